/**
 * Comments and replies. The same eleven operations exist on a space's own content and on each
 * change request, so they are registered as a set per location with `registerCommentRoutes`; this
 * file mounts the space's set, and change requests mount theirs with their own resolver.
 *
 * Decisions where the spec is silent (to be listed in the README):
 * - deletion is a hard delete (replies and reactions go with a comment);
 * - comment lists are newest first by default (`order`), replies oldest first (a conversation);
 * - `format` (default `document`) is also accepted on posts and updates, for the returned body;
 * - Markdown bodies are read like a page body without title or front matter (`# x` is a heading);
 * - reactions: adding an emoji one already reacted with keeps the first reaction; an emoji both
 *   added and removed in one request is removed;
 * - `permissions.reply` also governs reacting, resolving and reopening; `edit` is the author's only.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import Type, { type TObject } from "typebox";
import type { Executor, Trx } from "../../db/database.js";
import type { CommentReplyRow, CommentRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { notFound } from "../../http/errors.js";
import { errorResponses, ListOf, ListQuery, NoContent } from "../../http/schemas.js";
import { toList } from "../../lib/pagination.js";
import type { Actor } from "../../permissions/actor.js";
import { authorize } from "../../permissions/authorize.js";
import { presentMember } from "../members/members.presenter.js";
import { memberCounts } from "../members/members.queries.js";
import { MemberSchema } from "../members/members.schemas.js";
import { requireLiveSpace } from "../spaces/spaces.loader.js";
import { SpaceParams } from "../spaces/spaces.schemas.js";
import { loadCommentsContext, loadRepliesContext } from "./comments.loader.js";
import { commentPermissions } from "./comments.policy.js";
import { presentComments, presentReplies } from "./comments.presenter.js";
import { deleteComment, deleteReply, getComment, getReply, listCommenters, listComments, listReplies } from "./comments.queries.js";
import {
  type BodyInputValue,
  CommentIdParams,
  CommentReplySchema,
  CommentSchema,
  FormatQuery,
  type FormatValue,
  ListCommentsQuery,
  type ListCommentsQueryValue,
  ListRepliesQuery,
  PostCommentBody,
  type PostCommentValue,
  PostReplyBody,
  ReplyIdParams,
  UpdateCommentBody,
  type UpdateCommentValue,
  UpdateReplyBody,
  type UpdateReplyValue,
} from "./comments.schemas.js";
import { checkReactions, checkTarget, createComment, createReply, documentFromBody, editComment, editReply } from "./comments.service.js";
import { type CommentScope, locationOf, placeOf } from "./comments-scope.model.js";

export type { CommentScope } from "./comments-scope.model.js";

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

/** Registers the comment, reply and commenter routes of one location (a space, a change request). */
export function registerCommentRoutes(app: FastifyInstance, deps: Deps, set: CommentRouteSet): void {
  const { db, urls } = deps;
  const tags = set.tags ?? ["comments"];
  const withParams = (extra: TObject) => Type.Object({ ...set.params.properties, ...extra.properties });
  const commentParams = withParams(CommentIdParams);
  const replyParams = withParams(ReplyIdParams);
  const replyUpdateBody = set.replyResolvesComment
    ? Type.Object({
        ...UpdateReplyBody.properties,
        resolved: Type.Optional(Type.Boolean({ description: "Resolves or reopens the comment" })),
      })
    : UpdateReplyBody;

  async function scopeOf(request: FastifyRequest): Promise<{ actor: Actor; scope: CommentScope }> {
    const actor = actorOf(request);
    const scope = await set.resolve(request);
    if (!scope.permissions.view) throw notFound(`No ${placeOf(scope)}.`);
    return { actor, scope };
  }

  async function requireComment(scope: CommentScope, id: string): Promise<CommentRow> {
    const comment = await getComment(db, locationOf(scope), id);
    if (!comment) throw notFound(`No comment with id "${id}" in ${placeOf(scope)}.`);
    return comment;
  }

  async function requireReply(scope: CommentScope, comment: CommentRow, id: string): Promise<CommentReplyRow> {
    const reply = await getReply(db, comment.id, id);
    if (!reply) throw notFound(`No reply with id "${id}" to comment "${comment.id}" in ${placeOf(scope)}.`);
    return reply;
  }

  /** The location's hook for a new comment or reply, bound to this request. */
  const onPosted = (scope: CommentScope, actor: Actor) =>
    set.onPosted ? (trx: Trx) => set.onPosted!(trx, scope, actor.user.id) : undefined;

  const mayComment = (scope: CommentScope) => ({
    notFound: `No ${placeOf(scope)}.`,
    forbidden: `You may read ${placeOf(scope)} but not comment on it: that needs the comment permission.`,
  });

  const presentCommentRows = async (actor: Actor, scope: CommentScope, rows: CommentRow[], format: FormatValue) =>
    presentComments(await loadCommentsContext(db, rows), urls, { actorId: actor.user.id, scope, rows, format });
  const presentReplyRows = async (actor: Actor, scope: CommentScope, rows: CommentReplyRow[], format: FormatValue) =>
    presentReplies(await loadRepliesContext(db, rows), urls, { actorId: actor.user.id, scope, rows, format });

  async function presentOneComment(actor: Actor, scope: CommentScope, id: string, format: FormatValue | undefined) {
    const [presented] = await presentCommentRows(actor, scope, [await requireComment(scope, id)], format ?? "document");
    return presented!;
  }

  async function presentOneReply(actor: Actor, scope: CommentScope, comment: CommentRow, id: string, format: FormatValue | undefined) {
    const [presented] = await presentReplyRows(actor, scope, [await requireReply(scope, comment, id)], format ?? "document");
    return presented!;
  }

  app.get(
    `${set.prefix}/comments`,
    {
      schema: {
        tags,
        operationId: set.operationIds.listComments,
        params: set.params,
        querystring: ListCommentsQuery,
        response: { 200: ListOf(CommentSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { actor, scope } = await scopeOf(request);
      const query = request.query as ListCommentsQueryValue;
      const page = await listComments(db, locationOf(scope), {
        page: query.page,
        limit: query.limit,
        order: query.order ?? "desc",
        status: query.status ?? "all",
        targetPage: query.targetPage,
        authors: query.authors,
      });
      const items = await presentCommentRows(actor, scope, page.rows, query.format ?? "document");
      return toList({ ...page, rows: items }, (item) => item);
    },
  );

  app.post(
    `${set.prefix}/comments`,
    {
      schema: {
        tags,
        operationId: set.operationIds.postComment,
        params: set.params,
        querystring: FormatQuery,
        body: PostCommentBody,
        response: { 200: CommentSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { actor, scope } = await scopeOf(request);
      authorize(scope.permissions, "comment", mayComment(scope));
      const body = request.body as PostCommentValue;
      const document = await documentFromBody(body.body, "body.body");
      const target = await checkTarget(db, scope, body);
      const comment = await db
        .transaction()
        .execute((trx) => createComment(trx, { scope, target, postedBy: actor.user.id, document, onPosted: onPosted(scope, actor) }));
      return presentOneComment(actor, scope, comment.id, (request.query as { format?: FormatValue }).format);
    },
  );

  app.get(
    `${set.prefix}/comments/:commentId`,
    {
      schema: {
        tags,
        operationId: set.operationIds.getComment,
        params: commentParams,
        querystring: FormatQuery,
        response: { 200: CommentSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { actor, scope } = await scopeOf(request);
      return presentOneComment(
        actor,
        scope,
        (request.params as { commentId: string }).commentId,
        (request.query as { format?: FormatValue }).format,
      );
    },
  );

  app.put(
    `${set.prefix}/comments/:commentId`,
    {
      schema: {
        tags,
        operationId: set.operationIds.updateComment,
        params: commentParams,
        querystring: FormatQuery,
        body: UpdateCommentBody,
        response: { 200: CommentSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { actor, scope } = await scopeOf(request);
      const comment = await requireComment(scope, (request.params as { commentId: string }).commentId);
      const body = request.body as UpdateCommentValue;
      const permissions = commentPermissions(actor.user.id, comment, scope.permissions);
      const messages = commentMessages(scope, "comment", comment.id);
      if (body.body !== undefined) authorize(permissions, "edit", messages.edit);
      if (body.resolved !== undefined || body.addedReactions?.length || body.removedReactions?.length) {
        authorize(permissions, "reply", messages.react);
      }
      checkReactions("body.addedReactions", body.addedReactions);
      checkReactions("body.removedReactions", body.removedReactions);
      const document = body.body !== undefined ? await documentFromBody(body.body, "body.body", comment.body) : undefined;
      await db.transaction().execute((trx) =>
        editComment(trx, {
          comment,
          actorId: actor.user.id,
          document,
          resolved: body.resolved,
          addedReactions: body.addedReactions,
          removedReactions: body.removedReactions,
        }),
      );
      return presentOneComment(actor, scope, comment.id, (request.query as { format?: FormatValue }).format);
    },
  );

  app.delete(
    `${set.prefix}/comments/:commentId`,
    {
      schema: { tags, operationId: set.operationIds.deleteComment, params: commentParams, response: { 204: NoContent, ...errorResponses } },
    },
    async (request, reply) => {
      const { actor, scope } = await scopeOf(request);
      const comment = await getComment(db, locationOf(scope), (request.params as { commentId: string }).commentId);
      // 204 whether or not the comment existed, like every DELETE.
      if (comment) {
        authorize(
          commentPermissions(actor.user.id, comment, scope.permissions),
          "delete",
          commentMessages(scope, "comment", comment.id).delete,
        );
        await deleteComment(db, comment.id);
      }
      return reply.code(204).send(null);
    },
  );

  app.get(
    `${set.prefix}/comments/:commentId/replies`,
    {
      schema: {
        tags,
        operationId: set.operationIds.listReplies,
        params: commentParams,
        querystring: ListRepliesQuery,
        response: { 200: ListOf(CommentReplySchema), ...errorResponses },
      },
    },
    async (request) => {
      const { actor, scope } = await scopeOf(request);
      const comment = await requireComment(scope, (request.params as { commentId: string }).commentId);
      const query = request.query as { page?: string; limit?: number; format?: FormatValue };
      const page = await listReplies(db, comment.id, query);
      const items = await presentReplyRows(actor, scope, page.rows, query.format ?? "document");
      return toList({ ...page, rows: items }, (item) => item);
    },
  );

  app.post(
    `${set.prefix}/comments/:commentId/replies`,
    {
      schema: {
        tags,
        operationId: set.operationIds.postReply,
        params: commentParams,
        querystring: FormatQuery,
        body: PostReplyBody,
        response: { 200: CommentReplySchema, ...errorResponses },
      },
    },
    async (request) => {
      const { actor, scope } = await scopeOf(request);
      const comment = await requireComment(scope, (request.params as { commentId: string }).commentId);
      authorize(commentPermissions(actor.user.id, comment, scope.permissions), "reply", mayComment(scope));
      const document = await documentFromBody((request.body as { body: BodyInputValue }).body, "body.body");
      const reply = await db
        .transaction()
        .execute((trx) => createReply(trx, { comment, postedBy: actor.user.id, document, onPosted: onPosted(scope, actor) }));
      return presentOneReply(actor, scope, comment, reply.id, (request.query as { format?: FormatValue }).format);
    },
  );

  app.get(
    `${set.prefix}/comments/:commentId/replies/:commentReplyId`,
    {
      schema: {
        tags,
        operationId: set.operationIds.getReply,
        params: replyParams,
        querystring: FormatQuery,
        response: { 200: CommentReplySchema, ...errorResponses },
      },
    },
    async (request) => {
      const { actor, scope } = await scopeOf(request);
      const params = request.params as { commentId: string; commentReplyId: string };
      const comment = await requireComment(scope, params.commentId);
      return presentOneReply(actor, scope, comment, params.commentReplyId, (request.query as { format?: FormatValue }).format);
    },
  );

  app.put(
    `${set.prefix}/comments/:commentId/replies/:commentReplyId`,
    {
      schema: {
        tags,
        operationId: set.operationIds.updateReply,
        params: replyParams,
        querystring: FormatQuery,
        body: replyUpdateBody,
        response: { 200: CommentReplySchema, ...errorResponses },
      },
    },
    async (request) => {
      const { actor, scope } = await scopeOf(request);
      const params = request.params as { commentId: string; commentReplyId: string };
      const comment = await requireComment(scope, params.commentId);
      const reply = await requireReply(scope, comment, params.commentReplyId);
      const body = request.body as UpdateReplyValue;
      const resolved = set.replyResolvesComment ? body.resolved : undefined;
      const permissions = commentPermissions(actor.user.id, reply, scope.permissions);
      const messages = commentMessages(scope, "reply", reply.id);
      if (body.body !== undefined) authorize(permissions, "edit", messages.edit);
      if (body.addedReactions?.length || body.removedReactions?.length) authorize(permissions, "reply", messages.react);
      if (resolved !== undefined) {
        authorize(
          commentPermissions(actor.user.id, comment, scope.permissions),
          "reply",
          commentMessages(scope, "comment", comment.id).react,
        );
      }
      checkReactions("body.addedReactions", body.addedReactions);
      checkReactions("body.removedReactions", body.removedReactions);
      const document = body.body !== undefined ? await documentFromBody(body.body, "body.body", reply.body) : undefined;
      await db.transaction().execute((trx) =>
        editReply(trx, {
          comment,
          reply,
          actorId: actor.user.id,
          document,
          resolved,
          addedReactions: body.addedReactions,
          removedReactions: body.removedReactions,
        }),
      );
      return presentOneReply(actor, scope, comment, reply.id, (request.query as { format?: FormatValue }).format);
    },
  );

  app.delete(
    `${set.prefix}/comments/:commentId/replies/:commentReplyId`,
    {
      schema: { tags, operationId: set.operationIds.deleteReply, params: replyParams, response: { 204: NoContent, ...errorResponses } },
    },
    async (request, reply) => {
      const { actor, scope } = await scopeOf(request);
      const params = request.params as { commentId: string; commentReplyId: string };
      // 204 whether or not the comment or the reply existed, like every DELETE.
      const comment = await getComment(db, locationOf(scope), params.commentId);
      const existing = comment ? await getReply(db, comment.id, params.commentReplyId) : undefined;
      if (existing) {
        authorize(
          commentPermissions(actor.user.id, existing, scope.permissions),
          "delete",
          commentMessages(scope, "reply", existing.id).delete,
        );
        await deleteReply(db, existing.id);
      }
      return reply.code(204).send(null);
    },
  );

  app.get(
    `${set.prefix}/commenters`,
    {
      schema: {
        tags,
        operationId: set.operationIds.listCommenters,
        params: set.params,
        querystring: ListQuery,
        response: { 200: ListOf(MemberSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { scope } = await scopeOf(request);
      const page = await listCommenters(
        db,
        { ...locationOf(scope), orgId: scope.space.orgId },
        request.query as { page?: string; limit?: number },
      );
      const counts = await memberCounts(
        db,
        scope.space.orgId,
        page.rows.map((m) => m.userId),
      );
      return toList(page, (member) => presentMember(member, counts.get(member.userId)!, urls));
    },
  );
}

function commentMessages(scope: CommentScope, kind: "comment" | "reply", id: string) {
  const notFoundMessage = `No ${placeOf(scope)}.`;
  return {
    edit: { notFound: notFoundMessage, forbidden: `Only the author of ${kind} "${id}" can edit its body.` },
    react: {
      notFound: notFoundMessage,
      forbidden: `Reacting to, resolving or reopening ${kind} "${id}" needs the comment permission on ${placeOf(scope)}.`,
    },
    delete: {
      notFound: notFoundMessage,
      forbidden: `Only the author of ${kind} "${id}" or an admin of ${placeOf(scope)} can delete it.`,
    },
  };
}

const tags = ["comments"];

/** The comments of a space's own content (change requests mount the same set under their prefix). */
export const commentRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db } = deps;
  registerCommentRoutes(app, deps, {
    prefix: "/v1/spaces/:spaceId",
    params: SpaceParams,
    operationIds: SPACE_COMMENT_OPERATION_IDS,
    tags,
    resolve: async (request) => {
      const { spaceId } = request.params as { spaceId: string };
      const { space, permissions } = await requireLiveSpace(db, actorOf(request), spaceId);
      return { space, revision: space.revisionId, permissions };
    },
  });
};
