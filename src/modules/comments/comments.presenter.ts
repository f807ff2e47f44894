/**
 * Presents stored comments and replies. What they show besides themselves (reactions, repliers,
 * every user they mention) is loaded before, in one query each, by comments.loader.ts; then
 * `presentComments` and `presentReplies` shape them (pure). Used by the comment routes and by
 * whatever embeds a comment (a change request review).
 */

import type { JSONDocument } from "../../content/document/types.js";
import { markdownFromDocument } from "../../content/markdown/index.js";
import type { CommentReplyRow, CommentRow, UserRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { parseJson, parseJsonOrNull } from "../../lib/json.js";
import { presentUserOrPlaceholder } from "../users/users.presenter.js";
import type { LoadedCommentsContext } from "./comments.loader.js";
import { commentPermissions } from "./comments.policy.js";
import type { ReactionRow, ReplierRow } from "./comments.queries.js";
import type {
  BodyOutputValue,
  CommentPermissionsValue,
  CommentReplyResponse,
  CommentResponse,
  EmojiReactionValue,
  FormatValue,
  TableCellValue,
} from "./comments.schemas.js";
import { basePathOf, type CommentScope } from "./comments-scope.model.js";

/** What presenting a page of comments or replies needs, loaded beforehand in bulk. */
export interface CommentPresentContext {
  urls: Urls;
  format: FormatValue;
  /** API path of the comments' location: `/spaces/{id}` or `/spaces/{id}/change-requests/{id}`. */
  basePath: string;
  /** Every user the items mention (authors, resolvers, reactors, repliers). */
  users: Map<string, UserRow>;
}

/** A user the items mention; a placeholder when the account is gone (it never breaks the comment). */
function user(ctx: CommentPresentContext, id: string) {
  return presentUserOrPlaceholder(ctx.users.get(id), id, ctx.urls);
}

/** A stored body in the requested format (`document` unless `markdown` was asked for). */
export function presentBody(body: string, format: FormatValue): BodyOutputValue {
  const document = parseJson<JSONDocument>(body, "comments.body");
  if (format === "markdown") return { markdown: markdownFromDocument(document).replace(/\n+$/, "") };
  return { document };
}

/** Reactions grouped by emoji, in the order each emoji was first used; users oldest first. */
export function presentReactions(rows: readonly ReactionRow[], ctx: CommentPresentContext): EmojiReactionValue[] {
  const byEmoji = new Map<string, EmojiReactionValue>();
  for (const row of rows) {
    let reaction = byEmoji.get(row.emoji);
    if (!reaction) {
      reaction = { emoji: row.emoji, count: 0, users: [] };
      byEmoji.set(row.emoji, reaction);
    }
    reaction.count++;
    reaction.users.push({ user: user(ctx, row.userId), reactedAt: row.reactedAt });
  }
  return [...byEmoji.values()];
}

/** The public shape of a comment (`Comment`). */
export function presentComment(
  comment: CommentRow,
  input: { permissions: CommentPermissionsValue; reactions: readonly ReactionRow[]; repliers: readonly ReplierRow[] },
  ctx: CommentPresentContext,
): CommentResponse {
  const tableCell = parseJsonOrNull<TableCellValue>(comment.tableCell, "comments.table_cell");
  const repliers = [...input.repliers]
    .sort((a, b) => (a.updatedAt === b.updatedAt ? a.userId.localeCompare(b.userId) : a.updatedAt < b.updatedAt ? 1 : -1))
    .map((r) => ({ updatedAt: r.updatedAt, count: r.count, user: user(ctx, r.userId) }));
  const resolved = comment.status === "resolved" && comment.resolvedAt && comment.resolvedBy;
  return {
    object: "comment",
    id: comment.id,
    postedBy: user(ctx, comment.postedBy),
    postedAt: comment.postedAt,
    ...(comment.editedAt ? { editedAt: comment.editedAt } : {}),
    reactions: presentReactions(input.reactions, ctx),
    replies: input.repliers.reduce((sum, r) => sum + r.count, 0),
    repliers,
    body: presentBody(comment.body, ctx.format),
    target: {
      ...(comment.nodeKey ? { node: { id: comment.nodeKey } } : {}),
      ...(tableCell ? { tableCell } : {}),
      ...(comment.changeRequestId ? { changeRequest: comment.changeRequestId } : {}),
      ...(comment.reviewId ? { review: comment.reviewId } : {}),
      ...(comment.pageId ? { page: { id: comment.pageId } } : {}),
      space: comment.spaceId,
      revision: comment.revisionId,
    },
    urls: { location: ctx.urls.api(`${ctx.basePath}/comments/${comment.id}`) },
    permissions: input.permissions,
    ...(resolved
      ? { status: "resolved" as const, resolvedAt: comment.resolvedAt!, resolvedBy: user(ctx, comment.resolvedBy!) }
      : { status: "open" as const }),
  };
}

/** The public shape of a reply (`CommentReply`). */
export function presentReply(
  reply: CommentReplyRow,
  input: { permissions: CommentPermissionsValue; reactions: readonly ReactionRow[] },
  ctx: CommentPresentContext,
): CommentReplyResponse {
  return {
    object: "comment-reply",
    id: reply.id,
    postedBy: user(ctx, reply.postedBy),
    postedAt: reply.postedAt,
    ...(reply.editedAt ? { editedAt: reply.editedAt } : {}),
    reactions: presentReactions(input.reactions, ctx),
    body: presentBody(reply.body, ctx.format),
    urls: { location: ctx.urls.api(`${ctx.basePath}/comments/${reply.commentId}/replies/${reply.id}`) },
    permissions: input.permissions,
  };
}

function presentContext(urls: Urls, scope: CommentScope, format: FormatValue, users: readonly UserRow[]): CommentPresentContext {
  return { urls, format, basePath: basePathOf(scope), users: new Map(users.map((u) => [u.id, u])) };
}

/** Comments of one location, as the caller (`actorId`) sees them, with what was loaded for them. */
export function presentComments(
  loaded: LoadedCommentsContext,
  urls: Urls,
  input: { actorId: string; scope: CommentScope; rows: readonly CommentRow[]; format: FormatValue },
): CommentResponse[] {
  const { actorId, scope, rows, format } = input;
  const ctx = presentContext(urls, scope, format, loaded.users);
  const reactionsOf = groupBy(loaded.reactions, (r) => r.subjectId);
  const repliersOf = groupBy(loaded.repliers ?? [], (r) => r.commentId);
  return rows.map((comment) =>
    presentComment(
      comment,
      {
        permissions: commentPermissions(actorId, comment, scope.permissions),
        reactions: reactionsOf.get(comment.id) ?? [],
        repliers: repliersOf.get(comment.id) ?? [],
      },
      ctx,
    ),
  );
}

/** Replies to comments of one location, as the caller (`actorId`) sees them, with what was loaded for them. */
export function presentReplies(
  loaded: LoadedCommentsContext,
  urls: Urls,
  input: { actorId: string; scope: CommentScope; rows: readonly CommentReplyRow[]; format: FormatValue },
): CommentReplyResponse[] {
  const { actorId, scope, rows, format } = input;
  const ctx = presentContext(urls, scope, format, loaded.users);
  const reactionsOf = groupBy(loaded.reactions, (r) => r.subjectId);
  return rows.map((reply) =>
    presentReply(
      reply,
      { permissions: commentPermissions(actorId, reply, scope.permissions), reactions: reactionsOf.get(reply.id) ?? [] },
      ctx,
    ),
  );
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const list = groups.get(key(item));
    if (list) list.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}
