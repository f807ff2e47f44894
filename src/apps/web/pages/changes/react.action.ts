/** Adds or removes the member's reaction to a comment of the change request. */
import { commentPermissions } from "../../../../modules/comments/comments.policy.js";
import { checkReactions, editComment } from "../../../../modules/comments/comments.service.js";
import { authorize } from "../../../../permissions/authorize.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { CommentParams, ReactBody } from "./changes.schemas.js";
import { back, reactMessages, requireComment } from "./changes.steps.js";

export const reactToComment = changeRequestHandler({ params: CommentParams, body: ReactBody }, async (request, reply, ctx) => {
  const { loaded, actor } = ctx;
  const comment = await requireComment(ctx, request.params.commentId);
  authorize(commentPermissions(actor.user.id, comment, loaded.permissions), "reply", reactMessages("comment", comment.id, loaded));
  checkReactions("emoji", [request.body.emoji]);
  const change = request.body.action === "add" ? { addedReactions: [request.body.emoji] } : { removedReactions: [request.body.emoji] };
  await ctx.deps.db.transaction().execute((trx) => editComment(trx, { comment, actorId: actor.user.id, ...change }));
  return back(reply, loaded, "reacted", `#comment-${comment.id}`);
});
