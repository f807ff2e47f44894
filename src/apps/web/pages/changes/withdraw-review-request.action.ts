/**
 * The API's DELETE .../requested-reviewers/{userId}: the creator or a reviewer-level member
 * withdraws a request, or the requested reviewer declines it.
 */
import Type from "typebox";
import { withdrawReviewRequest } from "../../../../modules/change-request-reviews/change-request-reviews.service.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { Id } from "../../web.schemas.js";
import { CrParams } from "./changes.schemas.js";
import { back } from "./changes.steps.js";

const schema = { params: Type.Object({ ...CrParams.properties, userId: Id }) };

export const withdrawReviewRequestForm = changeRequestHandler(schema, async (request, reply, { deps, loaded, actor }) => {
  await withdrawReviewRequest(deps.db, { loaded, actor, userId: request.params.userId });
  return back(reply, loaded, request.params.userId === actor.user.id ? "declined" : "withdrawn", "#reviews");
});
