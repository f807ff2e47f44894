/**
 * The search index job: keeps a space's search index in step with its primary content (enqueued,
 * in the writing transaction, on every change of it).
 */

import type { Executor } from "../../db/database.js";
import { enqueue } from "../../jobs/queue.js";
import { defineJob } from "../../jobs/registry.js";
import { indexSpace } from "./index-space.js";

declare module "../../jobs/registry.js" {
  interface JobPayloads {
    "search-index-space": { spaceId: string };
  }
}

export const searchIndexJob = defineJob({
  kind: "search-index-space",
  maxAttempts: 5,
  async run({ spaceId }, { db, dialect, log }) {
    const outcome = await db.transaction().execute((trx) => indexSpace(trx, dialect, spaceId));
    log.debug({ spaceId, outcome }, "search index");
  },
});

/** Asks for the space to be reindexed (one pending job per space is enough). */
export function requestSearchIndex(db: Executor, spaceId: string): Promise<string | null> {
  return enqueue(db, "search-index-space", { spaceId }, { dedupeKey: `search-index:${spaceId}` });
}
