/** The audit log's export, shared by the API and the web app: one event with its details per line, oldest first. */
import { Readable } from "node:stream";
import type { Executor } from "../../db/database.js";
import type { Urls } from "../../http/urls.js";
import { presentAuditEventDetails } from "./audit.presenter.js";
import { allAuditEvents } from "./audit.queries.js";
import type { AuditFiltersValue } from "./audit.schemas.js";

export const JSON_LINES = "application/jsonl; charset=utf-8";

/** Read from the database in batches as the stream is consumed: the log is never held in memory. */
export function auditEventLines(db: Executor, urls: Urls, orgId: string, filters: AuditFiltersValue): Readable {
  async function* lines() {
    for await (const row of allAuditEvents(db, orgId, filters)) yield `${JSON.stringify(presentAuditEventDetails(row, urls))}\n`;
  }
  return Readable.from(lines());
}
