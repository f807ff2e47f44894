/** What presenting comments and replies needs besides their rows, loaded in one query per kind. */
import type { Executor } from "../../db/database.js";
import type { CommentReplyRow, CommentRow, UserRow } from "../../db/schema.js";
import { getUsersByIds } from "../users/users.queries.js";
import { type ReactionRow, type ReplierRow, reactionsTo, repliersOfComments } from "./comments.queries.js";

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
