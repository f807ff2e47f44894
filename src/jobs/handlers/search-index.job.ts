/** Keeps a space's search index in step with its primary content (enqueued on every change). */
import { indexSpace } from "../../content/search/index-space.js";
import type { Executor } from "../../db/database.js";
import { enqueue } from "../queue.js";
import { defineJob } from "../registry.js";

declare module "../registry.js" {
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
