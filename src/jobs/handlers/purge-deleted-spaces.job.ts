/**
 * Permanently removes spaces deleted more than 7 days ago (with their revisions, through foreign
 * keys), and forgets finished jobs older than 30 days. Runs periodically.
 */
import { isoDaysAgo } from "../../lib/time.js";
import { defineJob } from "../registry.js";

declare module "../registry.js" {
  interface JobPayloads {
    "purge-deleted-spaces": Record<string, never>;
  }
}

/** Days a deleted space stays restorable. */
export const SPACE_RETENTION_DAYS = 7;

export const purgeDeletedSpacesJob = defineJob({
  kind: "purge-deleted-spaces",
  maxAttempts: 3,
  async run(_payload, { db, log }) {
    const cutoff = isoDaysAgo(SPACE_RETENTION_DAYS);
    const purged = await db.deleteFrom("spaces").where("deletedAt", "is not", null).where("deletedAt", "<", cutoff).executeTakeFirst();
    const jobs = await db
      .deleteFrom("jobs")
      .where("state", "in", ["succeeded", "failed"])
      .where("updatedAt", "<", isoDaysAgo(30))
      .executeTakeFirst();
    log.info({ spaces: Number(purged.numDeletedRows), jobs: Number(jobs.numDeletedRows) }, "purged deleted spaces");
  },
});
