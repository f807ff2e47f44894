/** Brings the primary content's changes into the change request ("Update from primary"); conflicts are listed instead. */
import { updateFromPrimary } from "../../../../modules/change-request-merge/change-request-merge.service.js";
import { refuseWrite } from "../../../../modules/change-requests/change-requests.policy.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { CrParams } from "./changes.schemas.js";
import { back } from "./changes.steps.js";

export const updateFromPrimaryForm = changeRequestHandler({ params: CrParams }, async (_request, reply, { deps, loaded, actor }) => {
  refuseWrite(loaded, loaded.changeRequestPermissions.editContent, "edit", "update its change requests");
  const outcome = await updateFromPrimary(deps.db, { loaded, actor });
  const updated = outcome.result === "update";
  return back(reply, loaded, updated ? "updated" : "update-conflicts", updated ? "" : "#conflicts");
});
