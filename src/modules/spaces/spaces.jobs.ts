/**
 * Permanently removes spaces deleted more than 7 days ago (with their revisions, through foreign
 * keys), and forgets finished jobs older than 30 days. Runs periodically.
 */

import { deleteFinishedJobsBefore } from "../../jobs/queue.js";
import { defineJob } from "../../jobs/registry.js";
import { isoDaysAgo } from "../../lib/time.js";
import { purgeSpacesDeletedBefore } from "./spaces.queries.js";

declare module "../../jobs/registry.js" {
  interface JobPayloads {
    "purge-deleted-spaces": Record<string, never>;
  }
}

/** Days a deleted space stays restorable. */
export const SPACE_RETENTION_DAYS = 7;

/** Days a finished job's row (its outcome and error) stays readable. */
const FINISHED_JOB_RETENTION_DAYS = 30;

export const purgeDeletedSpacesJob = defineJob({
  kind: "purge-deleted-spaces",
  maxAttempts: 3,
  everyMs: 60 * 60_000,
  async run(_payload, { db, log }) {
    const cutoff = isoDaysAgo(SPACE_RETENTION_DAYS);
    const purged = await db.transaction().execute((trx) => purgeSpacesDeletedBefore(trx, cutoff));
    const jobs = await deleteFinishedJobsBefore(db, isoDaysAgo(FINISHED_JOB_RETENTION_DAYS));
    log.info({ spaces: purged, jobs }, "purged deleted spaces");
  },
});
