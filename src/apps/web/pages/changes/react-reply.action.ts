/** Adds or removes the member's reaction to a reply to a comment of the change request. */
import { missing } from "../../../../lib/errors.js";
import { commentPermissions } from "../../../../modules/comments/comments.policy.js";
import { getReply } from "../../../../modules/comments/comments.queries.js";
import { checkReactions, editReply } from "../../../../modules/comments/comments.service.js";
import { authorize } from "../../../../permissions/authorize.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { ReactBody, ReplyParams } from "./changes.schemas.js";
import { back, reactMessages, requireComment } from "./changes.steps.js";

export const reactToReply = changeRequestHandler({ params: ReplyParams, body: ReactBody }, async (request, reply, ctx) => {
  const { loaded, actor } = ctx;
  const comment = await requireComment(ctx, request.params.commentId);
  const existing = await getReply(ctx.deps.db, comment.id, request.params.replyId);
  if (!existing) throw missing(`No reply with id "${request.params.replyId}" to comment "${comment.id}".`);
  authorize(commentPermissions(actor.user.id, existing, loaded.permissions), "reply", reactMessages("reply", existing.id, loaded));
  checkReactions("emoji", [request.body.emoji]);
  const change = request.body.action === "add" ? { addedReactions: [request.body.emoji] } : { removedReactions: [request.body.emoji] };
  await ctx.deps.db.transaction().execute((trx) => editReply(trx, { comment, reply: existing, actorId: actor.user.id, ...change }));
  return back(reply, loaded, "reacted", `#reply-${existing.id}`);
});
