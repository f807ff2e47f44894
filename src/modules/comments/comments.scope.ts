/**
 * What a location of comments (a space's own content, a change request) gives
 * `registerCommentRoutes`: its route prefix and operation ids, and a resolver that finds the
 * location for the caller.
 */
import type { FastifyRequest } from "fastify";
import type { TObject } from "typebox";
import type { Executor } from "../../db/database.js";
import type { SpaceRow } from "../../db/schema.js";
import type { CommentScopeAccess } from "./comments.policy.js";
import type { CommentLocation } from "./comments.queries.js";

/** Where a request's comments live, as the location's resolver finds it for the caller. */
export interface CommentScope {
  space: SpaceRow;
  /** The change request whose comments these are (its id, not its number); absent for the space's own. */
  changeRequestId?: string;
  /** Id of the revision whose content new comments target: the space's primary revision, or the change request's head. */
  revision: string;
  /** The caller's access where the comments live; `view: false` is answered 404, like a missing location. */
  permissions: CommentScopeAccess;
}

export interface CommentOperationIds {
  listComments: string;
  postComment: string;
  getComment: string;
  updateComment: string;
  deleteComment: string;
  listReplies: string;
  postReply: string;
  getReply: string;
  updateReply: string;
  deleteReply: string;
  listCommenters: string;
}

export interface CommentRouteSet {
  /** Route prefix, e.g. "/v1/spaces/:spaceId". */
  prefix: string;
  /** Schema of the prefix's path parameters. */
  params: TObject;
  operationIds: CommentOperationIds;
  /** Loads the location for the caller; throws 404 when it is missing or the caller may not view it. */
  resolve(request: FastifyRequest): Promise<CommentScope>;
  tags?: string[];
  /** Reply updates accept `resolved`, which resolves or reopens the parent comment (change requests). */
  replyResolvesComment?: boolean;
  /** Runs in the transaction that stores a new comment or reply (change requests count contributions). */
  onPosted?(trx: Executor, scope: CommentScope, userId: string): Promise<void>;
}

export const SPACE_COMMENT_OPERATION_IDS: CommentOperationIds = {
  listComments: "listCommentsInSpace",
  postComment: "postCommentInSpace",
  getComment: "getCommentInSpace",
  updateComment: "updateCommentInSpace",
  deleteComment: "deleteCommentInSpace",
  listReplies: "listCommentRepliesInSpace",
  postReply: "postCommentReplyInSpace",
  getReply: "getCommentReplyInSpace",
  updateReply: "updateCommentReplyInSpace",
  deleteReply: "deleteCommentReplyInSpace",
  listCommenters: "listCommentersInSpace",
};

/** For `/v1/spaces/:spaceId/change-requests/:changeRequestId` (mount with `replyResolvesComment: true`). */
export const CHANGE_REQUEST_COMMENT_OPERATION_IDS: CommentOperationIds = {
  listComments: "listCommentsInChangeRequest",
  postComment: "postCommentInChangeRequest",
  getComment: "getCommentInChangeRequest",
  updateComment: "updateCommentInChangeRequest",
  deleteComment: "deleteCommentInChangeRequest",
  listReplies: "listCommentRepliesInChangeRequest",
  postReply: "postCommentReplyInChangeRequest",
  getReply: "getCommentReplyInChangeRequest",
  updateReply: "updateCommentReplyInChangeRequest",
  deleteReply: "deleteCommentReplyInChangeRequest",
  listCommenters: "listCommentersInChangeRequest",
};

export const locationOf = (scope: CommentScope): CommentLocation => ({ spaceId: scope.space.id, changeRequestId: scope.changeRequestId });
export const basePathOf = (scope: CommentScope) =>
  scope.changeRequestId === undefined ? `/spaces/${scope.space.id}` : `/spaces/${scope.space.id}/change-requests/${scope.changeRequestId}`;
export const placeOf = (scope: CommentScope) =>
  scope.changeRequestId === undefined ? `space "${scope.space.id}"` : `change request "${scope.changeRequestId}"`;
