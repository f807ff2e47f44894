/** Retention: deletes audit events older than QUIRE_AUDIT_RETENTION_DAYS (the audit log's only deletion). Runs periodically. */
import { defineJob } from "../../jobs/registry.js";
import { deleteAuditEventsBefore } from "./audit.queries.js";

declare module "../../jobs/registry.js" {
  interface JobPayloads {
    "purge-audit-events": Record<string, never>;
  }
}

const DAY_MS = 24 * 60 * 60_000;

export const purgeAuditEventsJob = defineJob({
  kind: "purge-audit-events",
  maxAttempts: 3,
  everyMs: 60 * 60_000,
  async run(_payload, { db, config, log }) {
    const before = new Date(Date.now() - config.auditRetentionDays * DAY_MS).toISOString();
    const deleted = await deleteAuditEventsBefore(db, before);
    if (deleted > 0) log.info({ deleted, before }, "audit events past retention deleted");
  },
});
