/** Requests a Git export of the space to a branch (a background job), as the API's POST .../git/export does. */
import Type from "typebox";
import { orgHandler } from "../../web.kinds.js";
import { SpaceParams } from "../../web.schemas.js";
import { GitForm, startGitRun } from "./git.steps.js";

const ExportForm = Type.Object({ ...GitForm.properties, commitMessage: Type.String({ minLength: 1, maxLength: 10_000 }) });

export const gitExport = orgHandler({ params: SpaceParams, body: ExportForm }, async (request, reply, ctx) =>
  startGitRun(reply, ctx, request.params.space, request.body, "export"),
);
