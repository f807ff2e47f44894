/** Retention: deletes insights of published sites older than QUIRE_INSIGHTS_RETENTION_DAYS, and the salts of past days. Runs periodically. */
import { defineJob } from "../../jobs/registry.js";
import { deleteEventsBefore } from "./events.queries.js";
import { dayOf } from "./insights.model.js";
import { deleteInsightsBefore, deleteSaltsBefore } from "./insights.queries.js";

declare module "../../jobs/registry.js" {
  interface JobPayloads {
    "purge-site-insights": Record<string, never>;
  }
}

const DAY_MS = 24 * 60 * 60_000;

export const purgeSiteInsightsJob = defineJob({
  kind: "purge-site-insights",
  maxAttempts: 3,
  everyMs: 60 * 60_000,
  async run(_payload, { db, config, log }) {
    const now = Date.now();
    const before = dayOf(new Date(now - (config.insights.retentionDays - 1) * DAY_MS));
    const deleted = (await deleteInsightsBefore(db, before)) + (await deleteEventsBefore(db, before));
    // Yesterday's salt may still be needed by a write just after midnight; older ones never are.
    await deleteSaltsBefore(db, dayOf(new Date(now - DAY_MS)));
    if (deleted > 0) log.info({ deleted, before }, "site insights past retention deleted");
  },
});
