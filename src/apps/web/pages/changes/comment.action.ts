/** Posts a comment on the change request, one of its pages or one block of a page (the API's comment policy). */
import Type from "typebox";
import { commentContribution } from "../../../../modules/change-requests/change-requests.queries.js";
import { checkTarget, createComment, documentFromBody } from "../../../../modules/comments/comments.service.js";
import { authorize } from "../../../../permissions/authorize.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { Id } from "../../web.schemas.js";
import { Body, CrParams } from "./changes.schemas.js";
import { back, commentScope, mayComment } from "./changes.steps.js";

const schema = { params: CrParams, body: Type.Object({ body: Body, page: Type.Optional(Id), node: Type.Optional(Id) }) };

export const postComment = changeRequestHandler(schema, async (request, reply, ctx) => {
  const { loaded, actor } = ctx;
  const scope = commentScope(loaded);
  authorize(scope.permissions, "comment", mayComment(loaded));
  const document = await documentFromBody({ markdown: request.body.body }, "body");
  const target = await checkTarget(ctx.deps.db, scope, { page: request.body.page || undefined, node: request.body.node || undefined });
  const comment = await ctx.deps.db.transaction().execute((trx) =>
    createComment(trx, {
      scope,
      target,
      postedBy: actor.user.id,
      document,
      onPosted: commentContribution(loaded.changeRequest.id, actor.user.id),
    }),
  );
  return back(reply, loaded, "commented", `#comment-${comment.id}`);
});
