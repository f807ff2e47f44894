import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { notFound } from "../../http/errors.js";
import { errorResponses, NoContent } from "../../http/schemas.js";
import { authorize } from "../../permissions/authorize.js";
import { requireLiveSpace } from "../spaces/spaces.loader.js";
import { GitSyncState, SpaceParams } from "../spaces/spaces.schemas.js";
import { requireSyncableSpace } from "./git-sync.loader.js";
import { ExportBody, ImportBody } from "./git-sync.schemas.js";
import { assertExportRef, gitJobBase, requestGitRun } from "./git-sync.service.js";
import { readGitSyncState, updateGitSyncState } from "./git-sync-state.service.js";

const tags = ["git"];

/** Git import and export (as jobs), the sync state, and disconnecting a space from its repository. */
export const gitSyncRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db } = deps;

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
      const space = await requireSyncableSpace(db, actor, request.params.spaceId);
      const base = gitJobBase(deps, request.body, space.id, actor.user.id);
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
      const space = await requireSyncableSpace(db, actor, request.params.spaceId);
      const base = gitJobBase(deps, request.body, space.id, actor.user.id);
      assertExportRef(base.ref);
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
