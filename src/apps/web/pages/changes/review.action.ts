/** Submits the member's review (approve or request changes), with an optional comment. */
import Type from "typebox";
import { prepareReview, submitReview } from "../../../../modules/change-request-reviews/change-request-reviews.service.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { Body, CrParams } from "./changes.schemas.js";
import { back } from "./changes.steps.js";

const schema = {
  params: CrParams,
  body: Type.Object({ status: Type.Enum(["approved", "changes-requested"]), comment: Type.Optional(Body) }),
};

export const submitReviewForm = changeRequestHandler(schema, async (request, reply, { deps, loaded, actor }) => {
  const comment = request.body.comment?.trim();
  const prepared = await prepareReview({
    loaded,
    actor,
    body: { status: request.body.status, ...(comment ? { comment: { markdown: comment } } : {}) },
  });
  await deps.db.transaction().execute((trx) => submitReview(trx, prepared));
  return back(reply, loaded, "reviewed", "#reviews");
});
