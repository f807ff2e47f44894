/** What presenting reviews and review requests needs besides their rows, loaded in one query per kind. */
import type { Executor } from "../../db/database.js";
import type { ChangeRequestReviewRow, CommentRow, RequestedReviewerRow, UserRow } from "../../db/schema.js";
import { loadMembersAccess } from "../../permissions/access.js";
import type { LoadedChangeRequest } from "../change-requests/change-requests.loader.js";
import { type LoadedCommentsContext, loadCommentsContext } from "../comments/comments.loader.js";
import { getCommentsByIds } from "../comments/comments.queries.js";
import { getUsersByIds } from "../users/users.queries.js";
import { mayBeAskedToReview } from "./change-request-reviews.policy.js";

export interface ReviewsContext {
  /** Reviewers and requesters. */
  users: ReadonlyMap<string, UserRow>;
  /** The reviews' comments, with what presenting them needs. */
  comments: readonly CommentRow[];
  commentsContext: LoadedCommentsContext;
}

/** Reviewers, requesters and the reviews' comments (with their reactions, repliers and users). */
export async function loadReviewsContext(
  db: Executor,
  loaded: LoadedChangeRequest,
  rows: readonly ChangeRequestReviewRow[],
): Promise<ReviewsContext> {
  const commentIds = rows.flatMap((r) => (r.commentId ? [r.commentId] : []));
  const location = { spaceId: loaded.space.id, changeRequestId: loaded.changeRequest.id };
  const [users, comments] = await Promise.all([
    getUsersByIds(db, [...new Set(rows.flatMap((r) => (r.requestedBy ? [r.reviewerId, r.requestedBy] : [r.reviewerId])))]),
    getCommentsByIds(db, location, commentIds),
  ]);
  return { users: new Map(users.map((u) => [u.id, u])), comments, commentsContext: await loadCommentsContext(db, comments) };
}

/** The users asked for a review and those who asked. */
export async function loadRequestedReviewerUsers(
  db: Executor,
  rows: readonly RequestedReviewerRow[],
): Promise<ReadonlyMap<string, UserRow>> {
  const users = await getUsersByIds(db, [...new Set(rows.flatMap((r) => [r.userId, r.requestedBy]))]);
  return new Map(users.map((u) => [u.id, u]));
}

/** The members who may be asked to review the change request (the policy's rule) and were not asked yet, by name. */
export async function loadReviewCandidates(
  db: Executor,
  loaded: LoadedChangeRequest,
  alreadyAsked: ReadonlySet<string>,
): Promise<UserRow[]> {
  const accesses = await loadMembersAccess(db, loaded.space.orgId);
  const ids = [...accesses].filter(([id, access]) => !alreadyAsked.has(id) && mayBeAskedToReview(loaded, id, access)).map(([id]) => id);
  return (await getUsersByIds(db, ids)).sort((a, b) => a.displayName.localeCompare(b.displayName));
}
