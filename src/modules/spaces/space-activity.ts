/**
 * The activity counters a `Space` shows (open comments, change requests by status). For a page of
 * spaces each kind is counted by the module that owns it, one query per kind; a single space (every
 * space read) gets all of them in one compiled-once query, whose rows are kept while the database
 * is unchanged.
 */
import type { Kysely } from "kysely";
import type { Executor } from "../../db/database.js";
import { prepared } from "../../db/prepared.js";
import type { Database } from "../../db/schema.js";
import { changeRequestCountsBySpace } from "../change-requests/change-requests.queries.js";
import { openCommentCounts } from "../comments/comments.queries.js";

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

const countsOfSpace = prepared<{ spaceId: string }, { comments: number; total: number; open: number; draft: number }>((kysely, param) => {
  const db = kysely as Kysely<Database>;
  const crs = (status?: string) =>
    db
      .selectFrom("changeRequests")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("spaceId", "=", param("spaceId"))
      .$if(status !== undefined, (qb) => qb.where("status", "=", status!));
  return db
    .selectNoFrom([
      db.selectFrom("comments").select((eb) => eb.fn.countAll<number>().as("n")).where("spaceId", "=", param("spaceId")).where("changeRequestId", "is", null).where("status", "=", "open").as("comments"),
      crs().as("total"),
      crs("open").as("open"),
      crs("draft").as("draft"),
    ]);
}, { cache: true });

/** The counters of one space, in one compiled-once query (every space read needs them). */
export async function spaceActivityCount(db: Executor, spaceId: string): Promise<SpaceCounts> {
  const [row] = await countsOfSpace(db, { spaceId });
  return { comments: Number(row!.comments), changeRequests: Number(row!.total), changeRequestsOpen: Number(row!.open), changeRequestsDraft: Number(row!.draft) };
}
