/** Merges the change request into the primary content (the merge rules apply); conflicts are listed instead. */
import { mergeChangeRequest } from "../../../../modules/change-request-merge/change-request-merge.service.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { CrParams } from "./changes.schemas.js";
import { back } from "./changes.steps.js";

export const mergeForm = changeRequestHandler({ params: CrParams }, async (_request, reply, { deps, loaded, actor }) => {
  const outcome = await mergeChangeRequest(deps.db, { loaded, actor, notifyJobs: deps.notifyJobs });
  const merged = outcome.result === "merge";
  return back(reply, loaded, merged ? "merged" : "conflicts", merged ? "" : "#conflicts");
});
