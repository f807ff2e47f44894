/**
 * Reviewing change requests: submitting reviews, asking people for one, withdrawing the request,
 * and presenting reviews and requests.
 *
 * Choices where the spec is silent:
 * - reviewing needs the review level on the space (like merging); the creator of a change request
 *   cannot review it, and cannot be asked to;
 * - asking for reviews needs what changing the change request needs (its creator, or the review
 *   level); it moves a draft to `open` ("in review") and may set the subject and description;
 * - a review answers the reviewer's pending request (it is no longer pending); asking someone again
 *   renews their request and makes their earlier review outdated; content edits after a review
 *   leave it current, and its `revision` says what it looked at;
 * - a review's comment is a comment of the change request (`target.review`), with replies,
 *   reactions and resolution like any other.
 */
import type { JSONDocument } from "../../content/document/types.js";
import type { Executor, Trx } from "../../db/database.js";
import type { ChangeRequestReviewRow, RequestedReviewerRow } from "../../db/schema.js";
import { invalid, notAllowed } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { nowIso } from "../../lib/time.js";
import { contentLevel, loadOrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { authorize } from "../../permissions/authorize.js";
import { atLeast } from "../../permissions/roles.js";
import type { LoadedChangeRequest } from "../change-requests/change-requests.loader.js";
import { assertWritable } from "../change-requests/change-requests.policy.js";
import { getChangeRequest, lockChangeRequestRow, recordContribution } from "../change-requests/change-requests.queries.js";
import { updateChangeRequest } from "../change-requests/change-requests.service.js";
import { createComment, documentFromBody } from "../comments/comments.service.js";
import { getUsersByIds } from "../users/users.queries.js";
import { mayWithdrawReviewRequest } from "./change-request-reviews.policy.js";
import {
  deleteRequestedReviewer,
  getRequestedReviewer,
  insertReview,
  outdateReviews,
  upsertRequestedReviewers,
} from "./change-request-reviews.queries.js";
import type { RequestReviewersValue, SubmitReviewValue } from "./change-request-reviews.schemas.js";

/** A review checked and its comment read, ready to submit (`submitReview`). */
export interface PreparedReview {
  loaded: LoadedChangeRequest;
  actor: Actor;
  body: SubmitReviewValue;
  comment: JSONDocument | undefined;
}

/**
 * Checks that the actor may review (403 otherwise) and reads the comment's body, before the
 * transaction that submits it: a long comment is converted in a worker thread, which no open
 * transaction should wait for.
 */
export async function prepareReview(input: {
  loaded: LoadedChangeRequest;
  actor: Actor;
  body: SubmitReviewValue;
}): Promise<PreparedReview> {
  assertMayReview(input.loaded, input.actor);
  const comment = input.body.comment ? await documentFromBody(input.body.comment, "body.comment") : undefined;
  return { ...input, comment };
}

function assertMayReview(loaded: LoadedChangeRequest, actor: Actor): void {
  const { changeRequest, space } = loaded;
  if (changeRequest.createdBy === actor.user.id) {
    throw notAllowed(`You created change request #${changeRequest.number}: ask someone else to review it.`);
  }
  authorize(loaded.permissions, "review", {
    notFound: `No space with id "${space.id}".`,
    forbidden: `Only members with the review level or higher on space "${space.id}" can review its change requests.`,
  });
  assertWritable(changeRequest);
}

/** Submits the caller's review: their earlier review becomes outdated, their pending request answered. */
export async function submitReview(trx: Trx, input: PreparedReview): Promise<ChangeRequestReviewRow> {
  const { loaded, actor, body, comment } = input;
  const { changeRequest, space } = loaded;
  // The reviewer's reviews are read, outdated and added under the change request's row lock, so
  // that two submissions at once (a double click) follow each other instead of colliding.
  await lockChangeRequestRow(trx, changeRequest.id);
  const now = nowIso();
  const current = (await getChangeRequest(trx, space.id, changeRequest.id))!;
  assertWritable(current);
  const request = await getRequestedReviewer(trx, current.id, actor.user.id);
  await deleteRequestedReviewer(trx, current.id, actor.user.id);
  await outdateReviews(trx, current.id, [actor.user.id], now);
  const review: ChangeRequestReviewRow = {
    id: newId(),
    changeRequestId: current.id,
    reviewerId: actor.user.id,
    requestedBy: request?.requestedBy ?? null,
    revision: current.revisionId,
    status: body.status,
    outdated: 0,
    commentId: null,
    createdAt: now,
    updatedAt: now,
  };
  if (comment) {
    // A comment on the change request as a whole, about the revision reviewed.
    const stored = await createComment(trx, {
      scope: { space, changeRequestId: current.id },
      target: { revisionId: current.revisionId, pageId: null, nodeKey: null, tableCell: null },
      postedBy: actor.user.id,
      document: comment,
      reviewId: review.id,
      now,
    });
    review.commentId = stored.id;
    await recordContribution(trx, { changeRequestId: current.id, userId: actor.user.id, actionType: "comment" });
  }
  await insertReview(trx, review);
  return review;
}

/**
 * Checks who is asked for a review: members of the organization, with the review level on the
 * space, other than the creator. 400 naming the first one who is not.
 */
async function checkReviewers(db: Executor, loaded: LoadedChangeRequest, userIds: readonly string[]): Promise<void> {
  const { space, changeRequest } = loaded;
  const [users, accesses] = await Promise.all([
    getUsersByIds(db, [...userIds]),
    Promise.all(userIds.map((id) => loadOrgAccess(db, id, space.orgId))),
  ]);
  const known = new Set(users.map((u) => u.id));
  userIds.forEach((id, index) => {
    const field = `body.users[${index}]`;
    const access = accesses[index]!;
    if (!known.has(id) || !access.membership) throw invalid(`${field}: user "${id}" is not a member of this organization.`);
    if (id === changeRequest.createdBy)
      throw invalid(`${field}: user "${id}" created change request #${changeRequest.number} and cannot review it.`);
    if (!atLeast(contentLevel(access, space), "review")) {
      throw invalid(`${field}: user "${id}" cannot review: that needs the review level or higher on space "${space.id}".`);
    }
  });
}

/** Asks users to review; returns the requests, renewed ones included. */
export async function requestReviewers(
  trx: Trx,
  input: { loaded: LoadedChangeRequest; actor: Actor; body: RequestReviewersValue },
): Promise<RequestedReviewerRow[]> {
  const { loaded, actor, body } = input;
  const { changeRequest, space } = loaded;
  if (!loaded.changeRequestPermissions.update) {
    throw notAllowed(
      `Only the creator of change request #${changeRequest.number} or members with the review level on the space can ask for reviews.`,
    );
  }
  assertWritable(changeRequest);
  const userIds = [...new Set(body.users)];
  await checkReviewers(trx, loaded, userIds);
  const now = nowIso();
  const current = (await getChangeRequest(trx, space.id, changeRequest.id))!;
  assertWritable(current);
  const status = current.status === "draft" ? "open" : undefined;
  await updateChangeRequest(trx, current, { subject: body.subject, description: body.description, status });
  const rows = userIds.map((userId) => ({
    changeRequestId: current.id,
    userId,
    requestedBy: actor.user.id,
    revision: current.revisionId,
    createdAt: now,
  }));
  await upsertRequestedReviewers(trx, rows);
  await outdateReviews(trx, current.id, userIds, now);
  return rows;
}

/** Withdraws a request (its asker's side, or the reviewer declining); whether there was one. */
export async function withdrawReviewRequest(
  db: Executor,
  input: { loaded: LoadedChangeRequest; actor: Actor; userId: string },
): Promise<boolean> {
  const { loaded, actor, userId } = input;
  if (!mayWithdrawReviewRequest(loaded, actor.user.id, userId)) {
    throw notAllowed(
      `Only the creator of change request #${loaded.changeRequest.number}, members with the review level on the space, or the reviewer themselves can withdraw a review request.`,
    );
  }
  return deleteRequestedReviewer(db, loaded.changeRequest.id, userId);
}
