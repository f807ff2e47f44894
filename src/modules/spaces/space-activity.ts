/**
 * The activity counters a `Space` shows (open comments, change requests by status), each counted
 * by the module that owns it: one query per kind of activity for a whole page of spaces.
 */
import type { Executor } from "../../db/database.js";
import { changeRequestCountsBySpace, changeRequestCountsOfSpace } from "../change-requests/change-requests.queries.js";
import { openCommentCountOfSpace, openCommentCounts } from "../comments/comments.queries.js";

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
      return [id, { comments: comments.get(id) ?? 0, changeRequests: cr?.total ?? 0, changeRequestsOpen: cr?.open ?? 0, changeRequestsDraft: cr?.draft ?? 0 }];
    }),
  );
}

/** The counters of one space, with queries compiled once (every space read needs them). */
export async function spaceActivityCount(db: Executor, spaceId: string): Promise<SpaceCounts> {
  const [cr, comments] = await Promise.all([changeRequestCountsOfSpace(db, spaceId), openCommentCountOfSpace(db, spaceId)]);
  return { comments, changeRequests: cr.total, changeRequestsOpen: cr.open, changeRequestsDraft: cr.draft };
}
