/** Saves the change request's subject and description (Markdown), as the API's PATCH does. */
import Type from "typebox";
import { authorizeUpdate } from "../../../../modules/change-requests/change-requests.policy.js";
import type { UpdateChangeRequestValue } from "../../../../modules/change-requests/change-requests.schemas.js";
import { updateChangeRequest } from "../../../../modules/change-requests/change-requests.service.js";
import { documentFromBody } from "../../../../modules/comments/comments.service.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { Body, CrParams } from "./changes.schemas.js";
import { back } from "./changes.steps.js";

const schema = { params: CrParams, body: Type.Object({ subject: Type.String({ maxLength: 100 }), description: Type.Optional(Body) }) };

export const saveDetails = changeRequestHandler(schema, async (request, reply, { deps, loaded }) => {
  authorizeUpdate(loaded, `No change request "${request.params.number}".`);
  const text = request.body.description?.trim() ?? "";
  const description = text
    ? await documentFromBody({ markdown: text }, "description")
    : { object: "document" as const, data: {}, nodes: [] };
  await updateChangeRequest(deps.db, loaded.changeRequest, {
    subject: request.body.subject.trim(),
    description: description as unknown as UpdateChangeRequestValue["description"],
  });
  return back(reply, loaded, "details");
});
