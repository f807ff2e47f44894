import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import Type from "typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { ErrorBody, errorResponses } from "../../http/schemas.js";
import { RESOLUTION_NOTE } from "../change-request-merge/change-request-merge.schemas.js";
import { loadChangeRequestsContext, requireChangeRequest } from "../change-requests/change-requests.loader.js";
import { assertWritable, refuseWrite } from "../change-requests/change-requests.policy.js";
import { presentLoadedChangeRequest } from "../change-requests/change-requests.presenter.js";
import { commentContribution } from "../change-requests/change-requests.queries.js";
import { ChangeRequestParams, ChangeRequestSchema } from "../change-requests/change-requests.schemas.js";
import { CHANGE_REQUEST_COMMENT_OPERATION_IDS, registerCommentRoutes } from "../comments/comments.routes.js";
import { loadRevisionView } from "../content/content.loader.js";
import { presentFile } from "../content/content.presenter.js";
import { registerRevisionReads } from "../content/content.routes.js";
import { FileSchema } from "../content/content.schemas.js";
import { registerLinkReads } from "../content/links.routes.js";
import { registerPdfRoute } from "../pdf/pdf.routes.js";
import { ContentChangeResult, MAX_CHANGES, UpdateContentBody, UpdateContentQuery } from "./change-request-content.schemas.js";
import { editChangeRequestContent } from "./change-request-content.service.js";

const tags = ["change-requests"];

/** Base64 files make content batches large: up to 16 MB per request on this route only. */
const CONTENT_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * A change request's content: reads mirroring the space's (pages, files, revisions, links, comments,
 * PDF) and the content edit operation. Merge, update, changes and conflicts are
 * change-request-merge.routes.ts.
 */
export const changeRequestContentRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls, secret } = deps;

  /** One change request as presented: what it needs is loaded first, then presented (pure). */

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
    onPosted: (trx, scope, userId) => commentContribution(scope.changeRequestId!, userId)(trx),
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
      const changeRequest = presentLoadedChangeRequest(
        outcome.changeRequest,
        await loadChangeRequestsContext(db, [outcome.changeRequest]),
        urls,
      );
      if (request.query.compat !== false) return changeRequest;
      const ctx = { urls, secret, orgId: loaded.space.orgId, spaceId: loaded.space.id, metadata: true };
      return {
        changeRequest,
        changes: outcome.results,
        ...(outcome.insertedFiles.length > 0 ? { insertedFiles: outcome.insertedFiles.map((f) => presentFile(f, ctx)) } : {}),
      };
    },
  );
};
