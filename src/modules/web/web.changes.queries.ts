import type { Executor } from "../../db/database.js";
import type { CommentReplyRow } from "../../db/schema.js";

/** The replies to these comments, oldest first (a conversation), in one query; at most `limit` in all. */
export async function repliesOfComments(db: Executor, commentIds: readonly string[], limit: number): Promise<CommentReplyRow[]> {
  if (commentIds.length === 0) return [];
  return db
    .selectFrom("commentReplies")
    .selectAll()
    .where("commentId", "in", [...commentIds])
    .orderBy("postedAt")
    .orderBy("id")
    .limit(limit)
    .execute();
}
