/** Resolves or reopens a comment of the change request. */
import Type from "typebox";
import { commentPermissions } from "../../../../modules/comments/comments.policy.js";
import { editComment } from "../../../../modules/comments/comments.service.js";
import { authorize } from "../../../../permissions/authorize.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { CommentParams } from "./changes.schemas.js";
import { back, reactMessages, requireComment } from "./changes.steps.js";

const schema = { params: CommentParams, body: Type.Object({ resolved: Type.Enum(["true", "false"]) }) };

export const resolveComment = changeRequestHandler(schema, async (request, reply, ctx) => {
  const { loaded, actor } = ctx;
  const comment = await requireComment(ctx, request.params.commentId);
  authorize(commentPermissions(actor.user.id, comment, loaded.permissions), "reply", reactMessages("comment", comment.id, loaded));
  const resolved = request.body.resolved === "true";
  await ctx.deps.db.transaction().execute((trx) => editComment(trx, { comment, actorId: actor.user.id, resolved }));
  return back(reply, loaded, resolved ? "resolved" : "reopened", `#comment-${comment.id}`);
});
