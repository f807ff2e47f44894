import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { loadDocuments } from "../../content/revision/storage.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { ErrorBody, errorResponses } from "../../http/schemas.js";
import { requireChangeRequest } from "../change-requests/change-requests.loader.js";
import { refuseWrite } from "../change-requests/change-requests.policy.js";
import { ChangeRequestParams } from "../change-requests/change-requests.schemas.js";
import { conflictDocumentHashes, presentConflict, presentSemanticChange } from "./change-request-merge.presenter.js";
import {
  ChangesQuery,
  ChangesResponse,
  ConflictsResponse,
  MergeResponse,
  RESOLUTION_NOTE,
  UpdateResponse,
} from "./change-request-merge.schemas.js";
import { changesOf, currentConflicts, mergeChangeRequest, updateFromPrimary } from "./change-request-merge.service.js";

const tags = ["change-requests"];

/** What a change request changes, its conflicts with the primary content, and the update and merge operations. */
export const changeRequestMergeRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls, secret } = deps;

  app.post(
    "/v1/spaces/:spaceId/change-requests/:changeRequestId/merge",
    {
      schema: {
        tags,
        operationId: "mergeChangeRequest",
        description:
          "Merges the change request into the primary content (three-way: its base, the primary, the change request) as a `merge` revision, and marks it merged. With conflicts nothing changes: the answer is `conflicts` with the unchanged primary revision (GET .../conflicts lists them). Needs the space's merge permission (review level, live space).",
        params: ChangeRequestParams,
        response: { 200: MergeResponse, 409: ErrorBody, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const loaded = await requireChangeRequest(db, actor, request.params.spaceId, request.params.changeRequestId);
      const outcome = await mergeChangeRequest(db, { loaded, actor, notifyJobs: deps.notifyJobs });
      return { revision: outcome.revision, result: outcome.result };
    },
  );

  app.post(
    "/v1/spaces/:spaceId/change-requests/:changeRequestId/update",
    {
      schema: {
        tags,
        operationId: "updateChangeRequest",
        description:
          "Brings the primary content into the change request (three-way merge) as an `update` revision; its base becomes the current primary revision. With conflicts nothing changes: the answer is `conflicts` with the unchanged head (GET .../conflicts lists them). Needs the edit level on a live space.",
        params: ChangeRequestParams,
        response: { 200: UpdateResponse, 409: ErrorBody, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const loaded = await requireChangeRequest(db, actor, request.params.spaceId, request.params.changeRequestId);
      refuseWrite(loaded, loaded.changeRequestPermissions.editContent, "edit", "update its change requests");
      const outcome = await updateFromPrimary(db, { loaded, actor });
      return { revision: outcome.revision, result: outcome.result };
    },
  );

  app.get(
    "/v1/spaces/:spaceId/change-requests/:changeRequestId/changes",
    {
      schema: {
        tags,
        operationId: "getChangeRequestChanges",
        description:
          "What the change request changes relative to its base: pages created, edited, moved and deleted, then files, variables and reusable contents.",
        params: ChangeRequestParams,
        querystring: ChangesQuery,
        response: { 200: ChangesResponse, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await requireChangeRequest(db, actorOf(request), request.params.spaceId, request.params.changeRequestId);
      const { before, after, changes: all } = await changesOf(db, loaded);
      const limit = request.query.limit ?? 10;
      const ctx = { urls, secret };
      return {
        changes: all.slice(0, limit).map((change) => presentSemanticChange(change, before, after, ctx)) as never,
        ...(all.length > limit ? { more: all.length - limit } : {}),
      };
    },
  );

  app.get(
    "/v1/spaces/:spaceId/change-requests/:changeRequestId/conflicts",
    {
      schema: {
        tags,
        operationId: "listChangeRequestConflicts",
        description: `Quire extension: what a merge of the change request would collide on now, with the base, primary and change request versions of each colliding item (page fields, blocks, page places, files, variables, reusable contents). Empty when it would merge cleanly. ${RESOLUTION_NOTE}`,
        params: ChangeRequestParams,
        response: { 200: ConflictsResponse, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await requireChangeRequest(db, actorOf(request), request.params.spaceId, request.params.changeRequestId);
      const { sides, conflicts } = await currentConflicts(db, loaded);
      const documents = await loadDocuments(db, conflictDocumentHashes(conflicts));
      const contents = { base: sides.baseContent, primary: sides.primaryContent, changeRequest: sides.headContent };
      return {
        object: "change-request-conflicts" as const,
        revision: sides.primary.id,
        base: sides.base.id,
        changeRequestRevision: sides.head.id,
        count: conflicts.length,
        items: conflicts.map((conflict) => presentConflict(conflict, contents, documents)),
      };
    },
  );
};
