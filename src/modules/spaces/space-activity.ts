/**
 * The activity counters a `Space` shows (open comments, change requests by status), each counted
 * by the module that owns it: for a page of spaces one query per kind; for a single space (every
 * space read) the owners' subqueries in one compiled-once query, whose rows are kept while the
 * database is unchanged.
 */
import type { Kysely } from "kysely";
import type { Executor } from "../../db/database.js";
import { prepared } from "../../db/prepared.js";
import type { Database } from "../../db/schema.js";
import { changeRequestCount, changeRequestCountsBySpace } from "../change-requests/change-requests.queries.js";
import { openCommentCounts, openSpaceCommentCount } from "../comments/comments.queries.js";

export interface SpaceCounts {
  comments: number;
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
}

export async function spaceActivityCounts(db: Executor, spaceIds: readonly string[]): Promise<Map<string, SpaceCounts>> {
  const [changeRequests, comments] = await Promise.all([changeRequestCountsBySpace(db, spaceIds), openCommentCounts(db, { spaceIds })]);
  return new Map(
    spaceIds.map((id) => {
      const cr = changeRequests.get(id);
      return [
        id,
        {
          comments: comments.get(id) ?? 0,
          changeRequests: cr?.total ?? 0,
          changeRequestsOpen: cr?.open ?? 0,
          changeRequestsDraft: cr?.draft ?? 0,
        },
      ];
    }),
  );
}

const countsOfSpace = prepared<{ spaceId: string }, { comments: number; total: number; open: number; draft: number }>(
  (kysely, param) => {
    const db = kysely as Kysely<Database>;
    const spaceId = param("spaceId");
    return db.selectNoFrom([
      openSpaceCommentCount(db, spaceId).as("comments"),
      changeRequestCount(db, spaceId).as("total"),
      changeRequestCount(db, spaceId, "open").as("open"),
      changeRequestCount(db, spaceId, "draft").as("draft"),
    ]);
  },
  { cache: true },
);

/** The counters of one space, in one compiled-once query (every space read needs them). */
export async function spaceActivityCount(db: Executor, spaceId: string): Promise<SpaceCounts> {
  const [row] = await countsOfSpace(db, { spaceId });
  return {
    comments: Number(row!.comments),
    changeRequests: Number(row!.total),
    changeRequestsOpen: Number(row!.open),
    changeRequestsDraft: Number(row!.draft),
  };
}
