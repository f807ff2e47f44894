/** What presenting comments and replies needs besides their rows, loaded in one query per kind. */
import type { Executor } from "../../db/database.js";
import type { CommentReplyRow, CommentRow, UserRow } from "../../db/schema.js";
import { getUsersByIds } from "../users/users.queries.js";
import { listComments, type ReactionRow, type ReplierRow, reactionsTo, repliersOfComments, repliesOfComments } from "./comments.queries.js";
import type { CommentLocation } from "./comments-scope.model.js";

/** What presenting comments or replies needs besides them. */
export interface LoadedCommentsContext {
  reactions: readonly ReactionRow[];
  /** Comments only. */
  repliers?: readonly ReplierRow[];
  users: readonly UserRow[];
}

/** Ids of every user a presenter will need for these comments, replies, reactions and repliers. */
export function mentionedUserIds(input: {
  comments?: readonly CommentRow[];
  replies?: readonly CommentReplyRow[];
  reactions?: readonly ReactionRow[];
  repliers?: readonly ReplierRow[];
}): string[] {
  const ids = new Set<string>();
  for (const c of input.comments ?? []) {
    ids.add(c.postedBy);
    if (c.resolvedBy) ids.add(c.resolvedBy);
  }
  for (const r of input.replies ?? []) ids.add(r.postedBy);
  for (const r of input.reactions ?? []) ids.add(r.userId);
  for (const r of input.repliers ?? []) ids.add(r.userId);
  return [...ids];
}

/** Reactions to the comments, their repliers, and every user they mention. */
export async function loadCommentsContext(db: Executor, rows: readonly CommentRow[]): Promise<LoadedCommentsContext> {
  const ids = rows.map((c) => c.id);
  const [reactions, repliers] = await Promise.all([reactionsTo(db, "comment", ids), repliersOfComments(db, ids)]);
  const users = await getUsersByIds(db, mentionedUserIds({ comments: rows, reactions, repliers }));
  return { reactions, repliers, users };
}

/** Reactions to the replies, and every user they mention. */
export async function loadRepliesContext(db: Executor, rows: readonly CommentReplyRow[]): Promise<LoadedCommentsContext> {
  const reactions = await reactionsTo(
    db,
    "reply",
    rows.map((r) => r.id),
  );
  const users = await getUsersByIds(db, mentionedUserIds({ replies: rows, reactions }));
  return { reactions, users };
}

/** A whole conversation of one location (a change request's): its comments, their replies, and the reactions to both. */
export interface LoadedConversation {
  /** Oldest first, resolved ones included. */
  comments: CommentRow[];
  /** Oldest first. */
  replies: CommentReplyRow[];
  commentReactions: ReactionRow[];
  replyReactions: ReactionRow[];
}

/** Every comment of the location (at most `maxComments`), with their replies (at most `maxReplies` in all) and reactions, in four queries. */
export async function loadConversation(
  db: Executor,
  location: CommentLocation,
  limits: { maxComments: number; maxReplies: number },
): Promise<LoadedConversation> {
  const comments = (await listComments(db, location, { order: "asc", status: "all", limit: limits.maxComments })).rows;
  const replies = await repliesOfComments(
    db,
    comments.map((c) => c.id),
    limits.maxReplies,
  );
  const [commentReactions, replyReactions] = await Promise.all([
    reactionsTo(
      db,
      "comment",
      comments.map((c) => c.id),
    ),
    reactionsTo(
      db,
      "reply",
      replies.map((r) => r.id),
    ),
  ]);
  return { comments, replies, commentReactions, replyReactions };
}
