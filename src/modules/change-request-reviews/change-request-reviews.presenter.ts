/** Reviews and review requests as the caller sees them, from what change-request-reviews.loader.ts loaded. */
import type { ChangeRequestReviewRow, RequestedReviewerRow, UserRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import type { Actor } from "../../permissions/actor.js";
import type { LoadedChangeRequest } from "../change-requests/change-requests.loader.js";
import { presentComments } from "../comments/comments.presenter.js";
import type { FormatValue } from "../comments/comments.schemas.js";
import type { CommentScope } from "../comments/comments-scope.model.js";
import { presentUserOrPlaceholder } from "../users/users.presenter.js";
import type { ReviewsContext } from "./change-request-reviews.loader.js";
import type { RequestedReviewerResponse, ReviewResponse } from "./change-request-reviews.schemas.js";

/** The comment scope of a change request, for the caller (reviews embed comments of it). */
export function commentScopeOf(loaded: LoadedChangeRequest): CommentScope {
  return {
    space: loaded.space,
    changeRequestId: loaded.changeRequest.id,
    revision: loaded.changeRequest.revisionId,
    permissions: loaded.permissions,
  };
}

const userFor = (users: ReadonlyMap<string, UserRow>, id: string, urls: Urls) => presentUserOrPlaceholder(users.get(id), id, urls);

/** Reviews as the caller sees them, their comments in `format`. */
export function presentReviews(
  context: ReviewsContext,
  urls: Urls,
  input: { loaded: LoadedChangeRequest; actor: Actor; rows: readonly ChangeRequestReviewRow[]; format: FormatValue },
): ReviewResponse[] {
  const { loaded, actor, rows, format } = input;
  const comments = presentComments(context.commentsContext, urls, {
    actorId: actor.user.id,
    scope: commentScopeOf(loaded),
    rows: context.comments,
    format,
  });
  const commentById = new Map(comments.map((c) => [c.id, c]));
  const userById = context.users;
  const base = `/spaces/${loaded.space.id}/change-requests/${loaded.changeRequest.id}/reviews`;
  return rows.map((row) => {
    const comment = row.commentId ? commentById.get(row.commentId) : undefined;
    return {
      object: "change-request-review",
      id: row.id,
      revision: row.revision,
      reviewer: userFor(userById, row.reviewerId, urls),
      ...(row.requestedBy ? { requestedBy: userFor(userById, row.requestedBy, urls) } : {}),
      status: row.status as ReviewResponse["status"],
      outdated: row.outdated === 1,
      ...(comment ? { comment } : {}),
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      urls: { location: urls.api(`${base}/${row.id}`) },
    };
  });
}

/** Review requests, with the users `loadRequestedReviewerUsers` loaded. */
export function presentRequestedReviewers(
  users: ReadonlyMap<string, UserRow>,
  urls: Urls,
  rows: readonly RequestedReviewerRow[],
): RequestedReviewerResponse[] {
  return rows.map((row) => ({
    object: "change-request-requested-reviewer",
    revision: row.revision,
    requestedBy: userFor(users, row.requestedBy, urls),
    createdAt: row.createdAt,
    kind: "user",
    user: userFor(users, row.userId, urls),
  }));
}
