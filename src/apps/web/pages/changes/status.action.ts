/** Moves the change request to draft, open (in review) or archived, as the API's PATCH does. */
import Type from "typebox";
import { authorizeUpdate } from "../../../../modules/change-requests/change-requests.policy.js";
import { updateChangeRequest } from "../../../../modules/change-requests/change-requests.service.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { CrParams } from "./changes.schemas.js";
import { back } from "./changes.steps.js";

const schema = { params: CrParams, body: Type.Object({ status: Type.Enum(["draft", "open", "archived"]) }) };

export const changeStatus = changeRequestHandler(schema, async (request, reply, { deps, loaded }) => {
  authorizeUpdate(loaded, `No change request "${request.params.number}".`);
  await updateChangeRequest(deps.db, loaded.changeRequest, { status: request.body.status });
  return back(reply, loaded, "status");
});
