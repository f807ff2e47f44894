import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Static } from "typebox";
import type { Deps } from "../../deps.js";
import { GitError } from "../../git/errors.js";
import { assertValidRef, unsafePathReason } from "../../git/index.js";
import { parseRemoteUrl } from "../../git/url.js";
import { actorOf } from "../../http/authenticate.js";
import { badRequest, notFound } from "../../http/errors.js";
import { errorResponses, NoContent } from "../../http/schemas.js";
import { seal } from "../../lib/sealed.js";
import { nowIso } from "../../lib/time.js";
import { authorize } from "../../permissions/authorize.js";
import { requireLiveSpace } from "../spaces/spaces.loader.js";
import { GitSyncState, SpaceParams } from "../spaces/spaces.schemas.js";
import type { GitSyncJobBase } from "./git-sync.jobs.js";
import { ExportBody, ImportBody } from "./git-sync.schemas.js";
import { CREDENTIALS_PURPOSE, requestGitRun } from "./git-sync.service.js";
import { readGitSyncState, updateGitSyncState } from "./git-sync.state.js";

const tags = ["git"];

/** Git import and export (as jobs), the sync state, and disconnecting a space from its repository. */
export const gitSyncRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, config, secret } = deps;

  /** Checks the request and turns it into a job payload (credentials sealed). 400 on bad input. */
  function jobBase(body: Static<typeof ImportBody>, spaceId: string, actorId: string): GitSyncJobBase {
    let remote: ReturnType<typeof parseRemoteUrl>;
    try {
      remote = parseRemoteUrl(body.url, { allowFile: config.gitAllowFileUrls });
      assertValidRef(body.ref, ["heads", "tags"]);
    } catch (error) {
      if (error instanceof GitError) throw badRequest(error.message);
      throw error;
    }
    const projectDirectory = (body.repoProjectDirectory ?? "").replace(/^(\.\/)+|^\/+|\/+$/g, "");
    const reason = projectDirectory ? unsafePathReason(projectDirectory) : undefined;
    if (reason) throw badRequest(`repoProjectDirectory ${JSON.stringify(body.repoProjectDirectory)} is refused: ${reason}.`);
    const credentials = remote.credentials
      ? seal(secret, CREDENTIALS_PURPOSE, `${remote.credentials.username}:${remote.credentials.password}`)
      : undefined;
    return {
      spaceId,
      remote: remote.url,
      ...(credentials ? { credentials } : {}),
      ref: body.ref,
      projectDirectory,
      ...(body.timestamp ? { timestamp: body.timestamp } : {}),
      force: body.force ?? false,
      ...(body.repoTreeURL ? { repoTreeURL: body.repoTreeURL } : {}),
      ...(body.repoCommitURL ? { repoCommitURL: body.repoCommitURL } : {}),
      actorId,
      requestedAt: nowIso(),
    };
  }

  async function loadForSync(request: { params: { spaceId: string } }, actor: ReturnType<typeof actorOf>) {
    const { space, permissions } = await requireLiveSpace(db, actor, request.params.spaceId);
    authorize(permissions, "triggerGitSync", {
      notFound: `No space with id "${space.id}".`,
      forbidden:
        space.editMode === "locked"
          ? "The space is locked: unlock it (PATCH editMode=live) before synchronising with Git."
          : "Only members who can edit the space can synchronise it with Git.",
    });
    return space;
  }

  app.post(
    "/v1/spaces/:spaceId/git/import",
    {
      schema: {
        tags,
        operationId: "importGitRepository",
        params: SpaceParams,
        body: ImportBody,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const space = await loadForSync(request, actor);
      const base = jobBase(request.body, space.id, actor.user.id);
      await requestGitRun(db, { kind: "git-import", payload: { ...base, standalone: request.body.standalone ?? false } }, request.body);
      deps.notifyJobs();
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/v1/spaces/:spaceId/git/export",
    {
      schema: {
        tags,
        operationId: "exportToGitRepository",
        params: SpaceParams,
        body: ExportBody,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const space = await loadForSync(request, actor);
      const base = jobBase(request.body, space.id, actor.user.id);
      if (!base.ref.startsWith("refs/heads/"))
        throw badRequest(`An export pushes to a branch: ref must be "refs/heads/<branch>", got "${base.ref}".`);
      await requestGitRun(db, { kind: "git-export", payload: { ...base, commitMessage: request.body.commitMessage } }, request.body);
      deps.notifyJobs();
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/v1/spaces/:spaceId/git/info",
    { schema: { tags, operationId: "getSpaceGitInfo", params: SpaceParams, response: { 200: GitSyncState, ...errorResponses } } },
    async (request) => {
      const { space } = await requireLiveSpace(db, actorOf(request), request.params.spaceId);
      const state = await readGitSyncState(db, space.id);
      if (!state) throw notFound("No Git repository is set up on this space; import from or export to one first.");
      return state;
    },
  );

  app.delete(
    "/v1/spaces/:spaceId/git/legacy-installation",
    { schema: { tags, operationId: "deleteLegacyGitInstallation", params: SpaceParams, response: { 204: NoContent, ...errorResponses } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const { space, permissions } = await requireLiveSpace(db, actor, request.params.spaceId);
      authorize(permissions, "admin", {
        notFound: `No space with id "${space.id}".`,
        forbidden: "Only admins of the space can disconnect it from its Git repository.",
      });
      // Quire has no provider installations: disconnecting forgets the repository and sync history.
      await updateGitSyncState(db, space.id, () => null);
      return reply.code(204).send(null);
    },
  );
};
