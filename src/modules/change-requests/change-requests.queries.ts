import { type ExpressionBuilder, sql } from "kysely";
import type { Executor } from "../../db/database.js";
import type { ChangeRequestRow, ChangeRequestsTable, Database } from "../../db/schema.js";
import { type Page, paginate, type SortKey } from "../../lib/pagination.js";
import { nowIso } from "../../lib/time.js";
import { type ChangeRequestStatus, WRITABLE_STATUSES } from "./change-requests.schemas.js";

export function getChangeRequest(db: Executor, spaceId: string, id: string): Promise<ChangeRequestRow | undefined> {
  return db.selectFrom("changeRequests").selectAll().where("spaceId", "=", spaceId).where("id", "=", id).executeTakeFirst();
}

export function getChangeRequestByNumber(db: Executor, spaceId: string, number: number): Promise<ChangeRequestRow | undefined> {
  return db.selectFrom("changeRequests").selectAll().where("spaceId", "=", spaceId).where("number", "=", number).executeTakeFirst();
}

export function getChangeRequestsByIds(db: Executor, ids: readonly string[]): Promise<ChangeRequestRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom("changeRequests").selectAll().where("id", "in", ids).execute();
}

/** The next number in the space (the unique index on (space, number) catches a concurrent taker). */
export async function nextChangeRequestNumber(db: Executor, spaceId: string): Promise<number> {
  const row = await db
    .selectFrom("changeRequests")
    .select((eb) => eb.fn.max<number | null>("number").as("max"))
    .where("spaceId", "=", spaceId)
    .executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}

/**
 * Inside a transaction: holds the change request's row lock until it ends (a no-op update), so
 * that writes which read, then change, its reviews run one at a time on PostgreSQL.
 */
export async function lockChangeRequestRow(trx: Executor, id: string): Promise<void> {
  await trx
    .updateTable("changeRequests")
    .set((eb) => ({ updatedAt: eb.ref("updatedAt") }))
    .where("id", "=", id)
    .execute();
}

export async function insertChangeRequest(db: Executor, row: ChangeRequestRow): Promise<void> {
  await db.insertInto("changeRequests").values(row).execute();
}

export async function updateChangeRequestRow(
  db: Executor,
  id: string,
  changes: Partial<Pick<ChangeRequestsTable, "subject" | "description" | "status">>,
): Promise<void> {
  await db
    .updateTable("changeRequests")
    .set({ ...changes, updatedAt: nowIso() })
    .where("id", "=", id)
    .execute();
}

/**
 * Moves a change request's head from `expected` to `revisionId` (compare and set), only while its
 * content may change; `mergedAncestor` also moves its base (an update from the primary content).
 * False when another write won: the caller recomputes from the new head.
 */
export async function moveChangeRequestHead(
  db: Executor,
  input: { id: string; expected: string; revisionId: string; mergedAncestor?: string },
): Promise<boolean> {
  const result = await db
    .updateTable("changeRequests")
    .set({
      revisionId: input.revisionId,
      updatedAt: nowIso(),
      // A new base makes the conflicts reported against an older primary revision irrelevant.
      ...(input.mergedAncestor !== undefined ? { revisionMergedAncestor: input.mergedAncestor, conflictsRevision: null } : {}),
    })
    .where("id", "=", input.id)
    .where("revisionId", "=", input.expected)
    .where("status", "in", WRITABLE_STATUSES)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks a change request merged, only if its head is still the one merged (compare and set). */
export async function markChangeRequestMerged(db: Executor, input: { id: string; head: string; revisionMerged: string }): Promise<boolean> {
  const now = nowIso();
  const result = await db
    .updateTable("changeRequests")
    .set({ status: "merged", revisionMerged: input.revisionMerged, mergedAt: now, updatedAt: now })
    .where("id", "=", input.id)
    .where("revisionId", "=", input.head)
    .where("status", "in", WRITABLE_STATUSES)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Records the primary revision against which conflicts were reported (what a caller saw). */
export async function recordConflictsSeen(db: Executor, id: string, primaryRevision: string): Promise<void> {
  await db
    .updateTable("changeRequests")
    .set({ conflictsRevision: primaryRevision })
    .where("id", "=", id)
    .where((eb) => eb.or([eb("conflictsRevision", "is", null), eb("conflictsRevision", "!=", primaryRevision)]))
    .execute();
}

export interface ChangeRequestFilter {
  /** A space's list (ordered by number) or an organization's (ordered by creation time). */
  scope: "space" | "organization";
  spaceIds: readonly string[];
  status: ChangeRequestStatus;
  creator?: string | undefined;
  contributor?: string | undefined;
  requestedReviewer?: string | undefined;
  conversationsIssuesCluster?: string | undefined;
}

/** One page of change requests of these spaces matching the filter, newest first (keyset paging). */

/** Change requests that list `userId` in one of their per-user tables (contributors, requested reviewers). */
function listsUser(table: "changeRequestContributors" | "changeRequestRequestedReviewers", userId: string) {
  return (eb: ExpressionBuilder<Database, "changeRequests">) =>
    eb.exists(
      eb
        .selectFrom(table)
        .select(sql.lit(1).as("listed"))
        .where(sql.ref(`${table}.changeRequestId`), "=", sql.ref("changeRequests.id"))
        .where(sql.ref(`${table}.userId`), "=", userId),
    );
}
export async function listChangeRequests(
  db: Executor,
  filter: ChangeRequestFilter,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<ChangeRequestRow>> {
  if (filter.spaceIds.length === 0) return { rows: [], count: 0 };
  const query = db
    .selectFrom("changeRequests")
    .selectAll("changeRequests")
    .where("changeRequests.spaceId", "in", filter.spaceIds)
    .where("changeRequests.status", "=", filter.status)
    .$if(filter.creator !== undefined, (qb) => qb.where("changeRequests.createdBy", "=", filter.creator!))
    .$if(filter.conversationsIssuesCluster !== undefined, (qb) =>
      qb.where("changeRequests.conversationsIssuesCluster", "=", filter.conversationsIssuesCluster!),
    )
    .$if(filter.contributor !== undefined, (qb) => qb.where(listsUser("changeRequestContributors", filter.contributor!)))
    .$if(filter.requestedReviewer !== undefined, (qb) => qb.where(listsUser("changeRequestRequestedReviewers", filter.requestedReviewer!)));
  // Within one space, numbers give the creation order exactly; across spaces, creation time does.
  const keys: SortKey<ChangeRequestRow>[] =
    filter.scope === "space"
      ? [{ column: "changeRequests.number", direction: "desc", value: (r) => r.number }]
      : [
          { column: "changeRequests.createdAt", direction: "desc", value: (r) => r.createdAt },
          { column: "changeRequests.id", direction: "desc", value: (r) => r.id },
        ];
  return paginate(query, keys, options);
}

/** A comment or reply posted on a change request: one more contribution of its author (`createComment`'s `onPosted`). */
export function commentContribution(changeRequestId: string, userId: string): (db: Executor) => Promise<void> {
  return (db) => recordContribution(db, { changeRequestId, userId, actionType: "comment" });
}

/** Counts one more contribution of a kind by a user (an edit batch, a comment). */
export async function recordContribution(
  db: Executor,
  input: { changeRequestId: string; userId: string; actionType: "edit" | "comment" },
): Promise<void> {
  const now = nowIso();
  await db
    .insertInto("changeRequestContributors")
    .values({ changeRequestId: input.changeRequestId, userId: input.userId, actionType: input.actionType, count: 1, updatedAt: now })
    .onConflict((oc) =>
      oc
        .columns(["changeRequestId", "userId", "actionType"])
        .doUpdateSet((eb) => ({ count: eb("changeRequestContributors.count", "+", 1), updatedAt: now })),
    )
    .execute();
}

export function listContributors(db: Executor, changeRequestId: string) {
  return db
    .selectFrom("changeRequestContributors")
    .selectAll()
    .where("changeRequestId", "=", changeRequestId)
    .orderBy("updatedAt", "desc")
    .orderBy("userId")
    .orderBy("actionType")
    .execute();
}

export function listResolutions(db: Executor, changeRequestId: string) {
  return db.selectFrom("changeRequestResolutions").selectAll().where("changeRequestId", "=", changeRequestId).execute();
}

export async function saveResolution(
  db: Executor,
  input: { changeRequestId: string; pageId: string; primaryRevision: string; base: string; createdBy: string },
): Promise<void> {
  const now = nowIso();
  await db
    .insertInto("changeRequestResolutions")
    .values({ ...input, createdAt: now })
    .onConflict((oc) =>
      oc
        .columns(["changeRequestId", "pageId"])
        .doUpdateSet({ primaryRevision: input.primaryRevision, base: input.base, createdBy: input.createdBy, createdAt: now }),
    )
    .execute();
}

/** Resolutions are relative to a base; once the base moves (an update), they are spent. */
export async function clearResolutions(db: Executor, changeRequestId: string): Promise<void> {
  await db.deleteFrom("changeRequestResolutions").where("changeRequestId", "=", changeRequestId).execute();
}

/** The count of one space's change requests (of one status), as a subquery for a larger query (the space counters). */

/** Open comments on each change request. */
export async function openCommentCountsForChangeRequests(db: Executor, changeRequestIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>(changeRequestIds.map((id) => [id, 0]));
  if (changeRequestIds.length === 0) return counts;
  const rows = await db
    .selectFrom("comments")
    .select((eb) => ["changeRequestId", eb.fn.countAll<number>().as("count")])
    .where("changeRequestId", "in", changeRequestIds)
    .where("status", "=", "open")
    .groupBy("changeRequestId")
    .execute();
  for (const row of rows) if (row.changeRequestId !== null) counts.set(row.changeRequestId, Number(row.count));
  return counts;
}
