/**
 * Reviews and requested reviewers of change requests. A reviewer has at most one current review
 * (`outdated = 0`, enforced by a partial unique index): a newer review, or a new request to the
 * same reviewer, makes the earlier ones outdated.
 */
import type { Executor } from "../../db/database.js";
import type { ChangeRequestReviewRow, RequestedReviewerRow } from "../../db/schema.js";
import { type Page, paginate } from "../../lib/pagination.js";

export function getReview(db: Executor, changeRequestId: string, id: string): Promise<ChangeRequestReviewRow | undefined> {
  return db
    .selectFrom("changeRequestReviews")
    .selectAll()
    .where("changeRequestId", "=", changeRequestId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** One page of a change request's reviews, newest first; `outdated` keeps only outdated (or only current) ones. */
export function listReviews(
  db: Executor,
  changeRequestId: string,
  options: { outdated?: boolean | undefined; page?: string | undefined; limit?: number | undefined },
): Promise<Page<ChangeRequestReviewRow>> {
  const query = db
    .selectFrom("changeRequestReviews")
    .selectAll()
    .where("changeRequestId", "=", changeRequestId)
    .$if(options.outdated !== undefined, (qb) => qb.where("outdated", "=", options.outdated ? 1 : 0));
  return paginate(
    query,
    [
      { column: "createdAt", direction: "desc", value: (r) => r.createdAt },
      { column: "id", direction: "desc", value: (r) => r.id },
    ],
    options,
  );
}

/** Each reviewer's current review of a change request, oldest first (what merge rules look at). */
export function currentReviews(db: Executor, changeRequestId: string): Promise<ChangeRequestReviewRow[]> {
  return db
    .selectFrom("changeRequestReviews")
    .selectAll()
    .where("changeRequestId", "=", changeRequestId)
    .where("outdated", "=", 0)
    .orderBy("createdAt")
    .orderBy("id")
    .execute();
}

/** Marks the current reviews of these reviewers outdated. */
export async function outdateReviews(db: Executor, changeRequestId: string, reviewerIds: readonly string[], now: string): Promise<void> {
  if (reviewerIds.length === 0) return;
  await db
    .updateTable("changeRequestReviews")
    .set({ outdated: 1, updatedAt: now })
    .where("changeRequestId", "=", changeRequestId)
    .where("reviewerId", "in", reviewerIds)
    .where("outdated", "=", 0)
    .execute();
}

export async function insertReview(db: Executor, row: ChangeRequestReviewRow): Promise<void> {
  await db.insertInto("changeRequestReviews").values(row).execute();
}

export function getRequestedReviewer(db: Executor, changeRequestId: string, userId: string): Promise<RequestedReviewerRow | undefined> {
  return db
    .selectFrom("changeRequestRequestedReviewers")
    .selectAll()
    .where("changeRequestId", "=", changeRequestId)
    .where("userId", "=", userId)
    .executeTakeFirst();
}

/** Asks these users for a review; asking again renews the request (new requester, revision and time). */
export async function upsertRequestedReviewers(db: Executor, rows: readonly RequestedReviewerRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto("changeRequestRequestedReviewers")
    .values([...rows])
    .onConflict((oc) =>
      oc.columns(["changeRequestId", "userId"]).doUpdateSet((eb) => ({
        requestedBy: eb.ref("excluded.requestedBy"),
        revision: eb.ref("excluded.revision"),
        createdAt: eb.ref("excluded.createdAt"),
      })),
    )
    .execute();
}

/** Withdraws a pending request; whether there was one. */
export async function deleteRequestedReviewer(db: Executor, changeRequestId: string, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom("changeRequestRequestedReviewers")
    .where("changeRequestId", "=", changeRequestId)
    .where("userId", "=", userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** One page of the pending review requests of a change request, oldest first. */
export function listRequestedReviewers(
  db: Executor,
  changeRequestId: string,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<RequestedReviewerRow>> {
  const query = db.selectFrom("changeRequestRequestedReviewers").selectAll().where("changeRequestId", "=", changeRequestId);
  return paginate(
    query,
    [
      { column: "createdAt", direction: "asc", value: (r) => r.createdAt },
      { column: "userId", direction: "asc", value: (r) => r.userId },
    ],
    options,
  );
}
