/**
 * Presents stored comments and replies: loads what they show besides themselves (reactions,
 * repliers, every user they mention) in one query each, then shapes them. Used by the comment
 * routes and by whatever embeds a comment (a change request review).
 */
import type { Executor } from "../../db/database.js";
import type { CommentReplyRow, CommentRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { getUsersByIds } from "../users/users.queries.js";
import { commentPermissions } from "./comments.policy.js";
import { type CommentPresentContext, mentionedUserIds, presentComment, presentReply } from "./comments.presenter.js";
import { reactionsToComments, reactionsToReplies, repliersOfComments } from "./comments.queries.js";
import type { CommentReplyResponse, CommentResponse, FormatValue } from "./comments.schemas.js";
import { type CommentScope, basePathOf } from "./comments.scope.js";

async function presentContext(db: Executor, urls: Urls, scope: CommentScope, format: FormatValue, userIds: string[]): Promise<CommentPresentContext> {
  const users = await getUsersByIds(db, userIds);
  return { urls, format, basePath: basePathOf(scope), users: new Map(users.map((u) => [u.id, u])) };
}

/** Comments of one location, as the caller (`actorId`) sees them. */
export async function presentComments(
  db: Executor,
  urls: Urls,
  input: { actorId: string; scope: CommentScope; rows: readonly CommentRow[]; format: FormatValue },
): Promise<CommentResponse[]> {
  const { actorId, scope, rows, format } = input;
  const ids = rows.map((c) => c.id);
  const [reactions, repliers] = await Promise.all([reactionsToComments(db, ids), repliersOfComments(db, ids)]);
  const ctx = await presentContext(db, urls, scope, format, mentionedUserIds({ comments: rows, reactions, repliers }));
  const reactionsOf = groupBy(reactions, (r) => r.subjectId);
  const repliersOf = groupBy(repliers, (r) => r.commentId);
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

/** Replies to comments of one location, as the caller (`actorId`) sees them. */
export async function presentReplies(
  db: Executor,
  urls: Urls,
  input: { actorId: string; scope: CommentScope; rows: readonly CommentReplyRow[]; format: FormatValue },
): Promise<CommentReplyResponse[]> {
  const { actorId, scope, rows, format } = input;
  const reactions = await reactionsToReplies(db, rows.map((r) => r.id));
  const ctx = await presentContext(db, urls, scope, format, mentionedUserIds({ replies: rows, reactions }));
  const reactionsOf = groupBy(reactions, (r) => r.subjectId);
  return rows.map((reply) =>
    presentReply(reply, { permissions: commentPermissions(actorId, reply, scope.permissions), reactions: reactionsOf.get(reply.id) ?? [] }, ctx),
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
