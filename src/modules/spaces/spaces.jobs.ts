/**
 * Permanently removes spaces deleted more than 7 days ago (with their revisions, through foreign
 * keys), and forgets finished jobs older than 30 days. Runs periodically.
 */

import { defineJob } from "../../jobs/registry.js";
import { isoDaysAgo } from "../../lib/time.js";

declare module "../../jobs/registry.js" {
  interface JobPayloads {
    "purge-deleted-spaces": Record<string, never>;
  }
}

/** Days a deleted space stays restorable. */
export const SPACE_RETENTION_DAYS = 7;

export const purgeDeletedSpacesJob = defineJob({
  kind: "purge-deleted-spaces",
  maxAttempts: 3,
  everyMs: 60 * 60_000,
  async run(_payload, { db, log }) {
    const cutoff = isoDaysAgo(SPACE_RETENTION_DAYS);
    const purged = await db.transaction().execute(async (trx) => {
      const ids = (
        await trx.selectFrom("spaces").select("id").where("deletedAt", "is not", null).where("deletedAt", "<", cutoff).execute()
      ).map((r) => r.id);
      if (ids.length === 0) return 0;
      // Grants and invite links point at spaces without a foreign key (they target spaces or
      // collections), so they go explicitly; revisions and everything else of the space follow
      // through their foreign keys.
      await trx.deleteFrom("grants").where("targetType", "=", "space").where("targetId", "in", ids).execute();
      await trx.deleteFrom("linkInvites").where("targetType", "=", "space").where("targetId", "in", ids).execute();
      await trx.deleteFrom("spaces").where("id", "in", ids).execute();
      return ids.length;
    });
    const jobs = await db
      .deleteFrom("jobs")
      .where("state", "in", ["succeeded", "failed"])
      .where("updatedAt", "<", isoDaysAgo(30))
      .executeTakeFirst();
    log.info({ spaces: purged, jobs: Number(jobs.numDeletedRows) }, "purged deleted spaces");
  },
});
