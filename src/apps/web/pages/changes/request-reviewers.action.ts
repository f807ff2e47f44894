/** Asks members for a review, as the API's POST .../requested-reviewers does. */
import Type from "typebox";
import { requestReviewers } from "../../../../modules/change-request-reviews/change-request-reviews.service.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { Id } from "../../web.schemas.js";
import { CrParams } from "./changes.schemas.js";
import { back } from "./changes.steps.js";

const schema = { params: CrParams, body: Type.Object({ users: Type.Union([Id, Type.Array(Id, { minItems: 1, maxItems: 50 })]) }) };

export const requestReviewersForm = changeRequestHandler(schema, async (request, reply, { deps, loaded, actor }) => {
  const users = Array.isArray(request.body.users) ? request.body.users : [request.body.users];
  await deps.db.transaction().execute((trx) => requestReviewers(trx, { loaded, actor, body: { users } }));
  return back(reply, loaded, "reviewers", "#reviews");
});
