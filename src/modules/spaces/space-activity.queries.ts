/**
 * The activity counters a `Space` shows (open comments, change requests by status): for a page of
 * spaces one query per kind; for a single space (every space read) the subqueries in one
 * compiled-once query, whose rows are kept while the database is unchanged. They read the comments
 * and change requests tables directly, so that spaces (which every family loads) import neither
 * family.
 */
import type { ExpressionBuilder, Kysely } from "kysely";
import type { Executor } from "../../db/database.js";
import { prepared } from "../../db/prepared.js";
import type { Database } from "../../db/schema.js";

/** What a space's `comments` counter counts: open comments on the space itself, not on its change requests. */
function openOnSpaceItself(eb: ExpressionBuilder<Database, "comments">) {
  return eb.and([eb("comments.changeRequestId", "is", null), eb("comments.status", "=", "open")]);
}

/** The count of one space's open comments, as a subquery for a larger query (the space counters). */
export function openSpaceCommentCount(db: Kysely<Database>, spaceId: string) {
  return db
    .selectFrom("comments")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("comments.spaceId", "=", spaceId)
    .where(openOnSpaceItself);
}

/** Open comments on each space itself (comments on its change requests are not counted). */
export async function openCommentCounts(db: Executor, input: { spaceIds: readonly string[] }): Promise<Map<string, number>> {
  const counts = new Map<string, number>(input.spaceIds.map((id) => [id, 0]));
  if (input.spaceIds.length === 0) return counts;
  for (const row of await openCountsBySpace(db, { spaceIds: input.spaceIds })) counts.set(row.spaceId, Number(row.count));
  return counts;
}

const openCountsBySpace = prepared<{ spaceIds: readonly string[] }, { spaceId: string; count: number }>((kysely, _param, list) =>
  (kysely as Kysely<Database>)
    .selectFrom("comments")
    .select((eb) => ["spaceId", eb.fn.countAll<number>().as("count")])
    .where("spaceId", "in", list("spaceIds"))
    .where(openOnSpaceItself)
    .groupBy("spaceId"),
);

export function changeRequestCount(db: Kysely<Database>, spaceId: string, status?: "open" | "draft") {
  return db
    .selectFrom("changeRequests")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("changeRequests.spaceId", "=", spaceId)
    .$if(status !== undefined, (qb) => qb.where("changeRequests.status", "=", status!));
}

/** Change request counters of many spaces, in one query (`changeRequests`, `…Open`, `…Draft`). */
export async function changeRequestCountsBySpace(
  db: Executor,
  spaceIds: readonly string[],
): Promise<Map<string, { total: number; open: number; draft: number }>> {
  if (spaceIds.length === 0) return new Map();
  const rows = await countsBySpace(db, { spaceIds });
  return new Map(rows.map((row) => [row.spaceId, { total: Number(row.total), open: Number(row.open), draft: Number(row.draft) }]));
}

const countsBySpace = prepared<{ spaceIds: readonly string[] }, { spaceId: string; total: number; open: number; draft: number }>(
  (kysely, _param, list) =>
    (kysely as Kysely<Database>)
      .selectFrom("changeRequests")
      .select((eb) => [
        "spaceId",
        eb.fn.countAll<number>().as("total"),
        eb.fn.sum<number>(eb.case().when("status", "=", "open").then(1).else(0).end()).as("open"),
        eb.fn.sum<number>(eb.case().when("status", "=", "draft").then(1).else(0).end()).as("draft"),
      ])
      .where("spaceId", "in", list("spaceIds"))
      .groupBy("spaceId"),
);

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
