/** Replies to a comment of the change request (the comment policy's `reply`). */
import Type from "typebox";
import { commentContribution } from "../../../../modules/change-requests/change-requests.queries.js";
import { commentPermissions } from "../../../../modules/comments/comments.policy.js";
import { createReply, documentFromBody } from "../../../../modules/comments/comments.service.js";
import { authorize } from "../../../../permissions/authorize.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { Body, CommentParams } from "./changes.schemas.js";
import { back, mayComment, requireComment } from "./changes.steps.js";

export const postReply = changeRequestHandler({ params: CommentParams, body: Type.Object({ body: Body }) }, async (request, reply, ctx) => {
  const { loaded, actor } = ctx;
  const comment = await requireComment(ctx, request.params.commentId);
  authorize(commentPermissions(actor.user.id, comment, loaded.permissions), "reply", mayComment(loaded));
  const document = await documentFromBody({ markdown: request.body.body }, "body");
  await ctx.deps.db.transaction().execute((trx) =>
    createReply(trx, {
      comment,
      postedBy: actor.user.id,
      document,
      onPosted: commentContribution(loaded.changeRequest.id, actor.user.id),
    }),
  );
  return back(reply, loaded, "replied", `#comment-${comment.id}`);
});
