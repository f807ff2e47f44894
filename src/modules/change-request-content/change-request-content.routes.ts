import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import Type from "typebox";
import { loadDocuments } from "../../content/revision/storage.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { ErrorBody, errorResponses } from "../../http/schemas.js";
import { requireChangeRequest } from "../change-requests/change-requests.loader.js";
import { assertWritable, refuseWrite } from "../change-requests/change-requests.policy.js";
import { recordContribution } from "../change-requests/change-requests.queries.js";
import {
  ChangeRequestParams,
  ChangeRequestSchema,
  ChangesQuery,
  ChangesResponse,
  ConflictsResponse,
  ContentChangeResult,
  MAX_CHANGES,
  MergeResponse,
  UpdateContentBody,
  UpdateContentQuery,
  UpdateResponse,
} from "../change-requests/change-requests.schemas.js";
import { presentOne } from "../change-requests/change-requests.service.js";
import { conflictDocumentHashes, presentConflict, presentSemanticChange } from "../change-requests/changes.presenter.js";
import { editChangeRequestContent } from "../change-requests/content-edit.service.js";
import { changesOf, currentConflicts, mergeChangeRequest, updateFromPrimary } from "../change-requests/merge.service.js";
import { CHANGE_REQUEST_COMMENT_OPERATION_IDS, registerCommentRoutes } from "../comments/comments.routes.js";
import { presentFile } from "../content/content.presenter.js";
import { registerRevisionReads } from "../content/content.routes.js";
import { FileSchema } from "../content/content.schemas.js";
import { loadRevisionView } from "../content/content.service.js";
import { registerLinkReads } from "../content/links.routes.js";
import { registerPdfRoute } from "../pdf/pdf.routes.js";

const tags = ["change-requests"];

/** Base64 files make content batches large: up to 16 MB per request on this route only. */
const CONTENT_BODY_LIMIT = 16 * 1024 * 1024;

const RESOLUTION_NOTE =
  "Conflicts: when a merge or update answers `conflicts`, GET .../conflicts lists them with both versions. Editing a page in conflict with this operation resolves the page's conflicts in favour of the change request: the page's merge base becomes the primary revision against which the conflicts were reported, for the parts that collided (the primary's other changes to the page still merge in). A page moved to different places on both sides, a page the primary deleted and the change request kept, and two pages with the same path are resolved by moving, deleting or renaming pages instead; a page the change request deleted and the primary edited is confirmed deleted with delete_page.";

/**
 * A change request's content (reads mirroring the space's, and the content edit operation), what
 * it changes, its conflicts with the primary content, and the update and merge operations.
 */
export const changeRequestContentRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls, secret } = deps;

  /** The change request's head revision, after checking the caller may view the space. */
  const changeRequestContent = async (request: FastifyRequest) => {
    const { spaceId, changeRequestId } = request.params as { spaceId: string; changeRequestId: string };
    const { space, changeRequest } = await requireChangeRequest(db, actorOf(request), spaceId, changeRequestId);
    return loadRevisionView(db, space, changeRequest.revisionId);
  };

  registerRevisionReads(app, deps, {
    base: "/v1/spaces/:spaceId/change-requests/:changeRequestId/content",
    params: ChangeRequestParams,
    tags,
    operationIds: {
      revision: "getRevisionOfChangeRequestById",
      pages: "listPagesInChangeRequest",
      files: "listFilesInChangeRequestById",
      file: "getFileInChangeRequestById",
      page: "getPageInChangeRequestById",
      path: "getPageInChangeRequestByPath",
      reusableContent: "getReusableContentInChangeRequestById",
      pageLinks: "listPageLinksInChangeRequest",
      pageBacklinks: "listChangeRequestPageBacklinks",
      fileBacklinks: "listChangeRequestFileBacklinks",
    },
    resolve: changeRequestContent,
  });

  registerLinkReads(app, deps, {
    base: "/v1/spaces/:spaceId/change-requests/:changeRequestId",
    linksPath: "/v1/spaces/:spaceId/change-requests/:changeRequestId/links",
    params: ChangeRequestParams,
    tags,
    operationIds: { links: "listChangeRequestLinks" },
    resolve: changeRequestContent,
  });

  registerCommentRoutes(app, deps, {
    prefix: "/v1/spaces/:spaceId/change-requests/:changeRequestId",
    params: ChangeRequestParams,
    operationIds: CHANGE_REQUEST_COMMENT_OPERATION_IDS,
    replyResolvesComment: true,
    tags: ["comments"],
    resolve: async (request) => {
      const { spaceId, changeRequestId } = request.params as { spaceId: string; changeRequestId: string };
      const { space, changeRequest, permissions } = await requireChangeRequest(db, actorOf(request), spaceId, changeRequestId);
      return { space, changeRequestId: changeRequest.id, revision: changeRequest.revisionId, permissions };
    },
    onPosted: (trx, scope, userId) => recordContribution(trx, { changeRequestId: scope.changeRequestId!, userId, actionType: "comment" }),
  });

  registerPdfRoute(app, deps, {
    path: "/v1/spaces/:spaceId/change-requests/:changeRequestId/pdf",
    params: ChangeRequestParams,
    operationId: "getChangeRequestPDF",
    resolve: async (request) => {
      const { spaceId, changeRequestId } = request.params as { spaceId: string; changeRequestId: string };
      const { space, changeRequest } = await requireChangeRequest(db, actorOf(request), spaceId, changeRequestId);
      return {
        spaceId: space.id,
        revisionId: changeRequest.revisionId,
        subtitle: `Change request #${changeRequest.number}: ${changeRequest.subject}`,
      };
    },
  });

  app.post(
    "/v1/spaces/:spaceId/change-requests/:changeRequestId/content",
    {
      bodyLimit: CONTENT_BODY_LIMIT,
      schema: {
        tags,
        operationId: "updateChangeRequestContent",
        description: `Applies up to ${MAX_CHANGES} changes (insert_page, update_page, delete_page, revert_page, insert_files) in order, as one new revision of the change request: all of them or none (400 naming the first invalid change). Page bodies are Markdown (front matter sets page metadata; links to /pages/<id or path>, relative .md paths, ./<ref> of the same batch and /files/<id> resolve, unresolved ones become text) or JSON documents; block keys are kept where blocks are unchanged or edited in place. Files: base64 (at most 1 MB each, with contentType) or url (public http(s) addresses only, 1 MB, 10 s). Needs the edit level on a live space; a merged or archived change request is refused (409). compat=false answers {changeRequest, changes, insertedFiles}. ${RESOLUTION_NOTE}`,
        params: ChangeRequestParams,
        querystring: UpdateContentQuery,
        body: UpdateContentBody,
        response: {
          200: Type.Union([
            ChangeRequestSchema,
            Type.Object({
              changeRequest: ChangeRequestSchema,
              changes: Type.Array(ContentChangeResult),
              insertedFiles: Type.Optional(Type.Array(FileSchema)),
            }),
          ]),
          409: ErrorBody,
          413: ErrorBody,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { spaceId, changeRequestId } = request.params;
      const loaded = await requireChangeRequest(db, actor, spaceId, changeRequestId);
      refuseWrite(loaded, loaded.changeRequestPermissions.editContent, "edit", "edit its change requests");
      assertWritable(loaded.changeRequest);
      const outcome = await editChangeRequestContent(db, {
        loaded,
        actor,
        changes: request.body.changes,
        pageLocation: (pageId) => urls.api(`/spaces/${loaded.space.id}/change-requests/${loaded.changeRequest.id}/content/page/${pageId}`),
      });
      const changeRequest = await presentOne(db, urls, outcome.changeRequest);
      if (request.query.compat !== false) return changeRequest;
      const ctx = { urls, secret, orgId: loaded.space.orgId, spaceId: loaded.space.id, metadata: true };
      return {
        changeRequest,
        changes: outcome.results,
        ...(outcome.insertedFiles.length > 0 ? { insertedFiles: outcome.insertedFiles.map((f) => presentFile(f, ctx)) } : {}),
      };
    },
  );

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
