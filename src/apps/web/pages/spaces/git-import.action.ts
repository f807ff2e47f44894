/** Requests a Git import of the space (a background job), as the API's POST .../git/import does. */
import { orgHandler } from "../../web.kinds.js";
import { SpaceParams } from "../../web.schemas.js";
import { GitForm, startGitRun } from "./git.steps.js";

export const gitImport = orgHandler({ params: SpaceParams, body: GitForm }, async (request, reply, ctx) =>
  startGitRun(reply, ctx, request.params.space, request.body, "import"),
);
