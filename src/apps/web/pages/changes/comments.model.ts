/** A change request's conversation as its page shows it: replies under their comment, reactions by emoji, and whether the member may answer each. Pure. */
import type { JSONDocument } from "../../../../content/document/types.js";
import type { CommentReplyRow, CommentRow } from "../../../../db/schema.js";
import { parseJson } from "../../../../lib/json.js";
import { type CommentScopeAccess, commentPermissions } from "../../../../modules/comments/comments.policy.js";

export interface CommentView {
  id: string;
  pageId: string | null;
  nodeKey: string | null;
  reviewId: string | null;
  postedBy: string;
  postedAt: string;
  status: string;
  resolvedBy: string | null;
  body: JSONDocument;
  reactions: { emoji: string; userIds: string[] }[];
  replies: { id: string; postedBy: string; postedAt: string; body: JSONDocument; reactions: { emoji: string; userIds: string[] }[] }[];
  mayReply: boolean;
}

/** A reaction as the comments family loads it. */
interface Reaction {
  subjectId: string;
  emoji: string;
  userId: string;
}

/** A conversation as the comments family loads it (comments.loader.ts, loadConversation). */
export interface ConversationRows {
  comments: readonly CommentRow[];
  replies: readonly CommentReplyRow[];
  commentReactions: readonly Reaction[];
  replyReactions: readonly Reaction[];
}

function reactionsOf(list: readonly Reaction[], id: string): { emoji: string; userIds: string[] }[] {
  const byEmoji = new Map<string, string[]>();
  for (const r of list) if (r.subjectId === id) byEmoji.set(r.emoji, [...(byEmoji.get(r.emoji) ?? []), r.userId]);
  return [...byEmoji].map(([emoji, userIds]) => ({ emoji, userIds }));
}

/** The conversation's comments with their replies and reactions, and every user they name. */
export function commentViews(
  rows: ConversationRows,
  actorId: string,
  scope: CommentScopeAccess,
): { views: CommentView[]; userIds: string[] } {
  const replies = new Map<string, CommentReplyRow[]>();
  for (const reply of rows.replies) replies.set(reply.commentId, [...(replies.get(reply.commentId) ?? []), reply]);
  const userIds = new Set<string>();
  const views = rows.comments.map((c): CommentView => {
    userIds.add(c.postedBy);
    if (c.resolvedBy) userIds.add(c.resolvedBy);
    const own = replies.get(c.id) ?? [];
    for (const r of own) userIds.add(r.postedBy);
    return {
      id: c.id,
      pageId: c.pageId,
      nodeKey: c.nodeKey,
      reviewId: c.reviewId,
      postedBy: c.postedBy,
      postedAt: c.postedAt,
      status: c.status,
      resolvedBy: c.resolvedBy,
      body: parseJson<JSONDocument>(c.body, "comments.body"),
      reactions: reactionsOf(rows.commentReactions, c.id),
      replies: own.map((r) => ({
        id: r.id,
        postedBy: r.postedBy,
        postedAt: r.postedAt,
        body: parseJson<JSONDocument>(r.body, "comment_replies.body"),
        reactions: reactionsOf(rows.replyReactions, r.id),
      })),
      mayReply: commentPermissions(actorId, c, scope).reply,
    };
  });
  return { views, userIds: [...userIds] };
}
