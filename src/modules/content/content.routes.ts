/**
 * Reading content: the space's primary revision (`/content`), any revision (`/revisions/{id}`) and
 * documents by id. Change requests register the same reads under their own prefix with
 * `registerRevisionReads`.
 */

import { createHash } from "node:crypto";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import Type, { type TObject } from "typebox";
import { withHeadingAnchors } from "../../content/document/anchor.js";
import { sendsAsStored } from "../../content/document/api-json.js";
import { evaluateDocument } from "../../content/document/evaluate.js";
import type { JSONDocument } from "../../content/document/types.js";
import { editableFilePath } from "../../content/markdown/api-paths.js";
import { keptMarkdown, writeMarkdown } from "../../content/markdown/write-off-thread.js";
import { loadDocument, loadDocumentJson } from "../../content/revision/storage.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { notFound } from "../../http/errors.js";
import { errorResponses, ListOf, ListQuery, RichDocument } from "../../http/schemas.js";
import { sendJsonText } from "../../http/serializers.js";
import { paginateRows, toList } from "../../lib/pagination.js";
import { loadChangeRequestsContext } from "../change-requests/change-requests.loader.js";
import { presentLoadedChangeRequest } from "../change-requests/change-requests.presenter.js";
import { getChangeRequest } from "../change-requests/change-requests.queries.js";
import { requireSpace } from "../spaces/spaces.loader.js";
import {
  findPageByPath,
  keptPageDocumentApiJson,
  loadRevisionView,
  pageDocument,
  pageDocumentApiJson,
  pageDocumentJson,
  type RevisionView,
  requirePage,
  revisionReferencesDocument,
} from "./content.loader.js";
import {
  type ContentPresentContext,
  presentFile,
  presentPage,
  presentPages,
  presentReusableContent,
  presentRevision,
} from "./content.presenter.js";
import {
  ContentQuery,
  DocumentParams,
  FileSchema,
  PageQuery,
  PageSchema,
  PagesResponse,
  ReusableContentSchema,
  RevisionParams,
  RevisionSchema,
  SpaceContentParams,
} from "./content.schemas.js";
import { registerLinkReads } from "./links.routes.js";

export interface RevisionReadSet {
  /** Route prefix, e.g. "/v1/spaces/:spaceId/content". */
  base: string;
  params: TObject;
  tags: string[];
  operationIds: {
    revision: string;
    pages: string;
    files: string;
    file: string;
    page: string;
    pageDocument?: string;
    path: string;
    reusableContent: string;
    /** Link reads (see links.routes.ts), registered when named. */
    pageLinks?: string;
    pageBacklinks?: string;
    fileBacklinks?: string;
  };
  /** Loads the revision the routes read, after checking the caller may view it. */
  resolve(request: FastifyRequest): Promise<RevisionView>;
}

type Query = { metadata?: boolean; computed?: boolean; format?: "document" | "markdown"; evaluated?: boolean | "deterministic-only" };

/** Registers the read routes of one revision source (primary content, a revision, a change request). */
export function registerRevisionReads(app: FastifyInstance, deps: Deps, set: RevisionReadSet): void {
  const { db, urls, secret } = deps;

  /** One change request as presented: what it needs is loaded first, then presented (pure). */
  registerLinkReads(app, deps, {
    base: set.base,
    params: set.params,
    tags: set.tags,
    resolve: set.resolve,
    operationIds: {
      ...(set.operationIds.pageLinks ? { pageLinks: set.operationIds.pageLinks } : {}),
      ...(set.operationIds.pageBacklinks ? { pageBacklinks: set.operationIds.pageBacklinks } : {}),
      ...(set.operationIds.fileBacklinks ? { fileBacklinks: set.operationIds.fileBacklinks } : {}),
    },
  });
  const presentContext = (view: RevisionView, query: Query): ContentPresentContext => ({
    urls,
    secret,
    orgId: view.space.orgId,
    spaceId: view.space.id,
    metadata: query.metadata ?? true,
  });
  const withParams = (extra: TObject) => Type.Object({ ...set.params.properties, ...extra.properties });

  async function pageWithBody(view: RevisionView, location: ReturnType<typeof requirePage>, query: Query, reply: FastifyReply) {
    const ctx = presentContext(view, query);
    if (location.page.kind !== "document") return presentPage(location.page, location.path, ctx);
    const evaluated = query.evaluated !== undefined && query.evaluated !== false;
    if (query.format !== "markdown" && !evaluated) {
      // The page serialized without its body, and the document's JSON spliced in as the last field.
      const json = await pageDocumentApiJson(db, location);
      if (json !== undefined) {
        const head = reply.serializeInput(presentPage(location.page, location.path, ctx), "200") as string;
        return sendJsonText(reply, `${head.slice(0, -1)},"document":${json}}`);
      }
    }
    const context = { space: { vars: view.content.variables }, page: { vars: location.page.variables ?? {} } };
    const mode = query.evaluated === true ? "all" : "deterministic-only";
    if (query.format === "markdown") {
      // Written in a worker thread when large, and kept: the text depends only on the document and how it is evaluated.
      // Images and files are written with their names (`/files/<id>/<name>`), which the text then depends on too.
      const files = Object.fromEntries(view.content.files.map((f) => [f.id, editableFilePath(f)]));
      const names = createHash("sha256").update(JSON.stringify(files)).digest("base64url");
      const key = `api|${location.page.documentHash ?? ""}|${names}|${evaluated ? `${mode}|${JSON.stringify(context)}` : ""}`;
      const markdown = await keptMarkdown.get(key, async () =>
        writeMarkdown({
          documentJson: await pageDocumentJson(db, location),
          links: "editable",
          files,
          ...(evaluated ? { evaluate: { context, mode } } : {}),
        }),
      );
      return presentPage(location.page, location.path, ctx, { markdown });
    }
    let document = (await pageDocument(db, location)) as JSONDocument;
    if (evaluated) document = evaluateDocument(document, context, mode);
    return presentPage(location.page, location.path, ctx, { document: withHeadingAnchors(document) });
  }

  app.get(
    set.base,
    {
      schema: {
        tags: set.tags,
        operationId: set.operationIds.revision,
        params: set.params,
        querystring: ContentQuery,
        response: { 200: RevisionSchema, ...errorResponses },
      },
    },
    async (request) => {
      const view = await set.resolve(request);
      const merged =
        view.revision.type === "merge" && view.revision.mergedFrom
          ? await getChangeRequest(db, view.space.id, view.revision.mergedFrom)
          : undefined;
      const mergedFrom = merged ? presentLoadedChangeRequest(merged, await loadChangeRequestsContext(db, [merged]), urls) : undefined;
      return presentRevision(view.revision, view.content, presentContext(view, request.query as Query), mergedFrom);
    },
  );

  app.get(
    `${set.base}/pages`,
    {
      schema: {
        tags: set.tags,
        operationId: set.operationIds.pages,
        params: set.params,
        querystring: ContentQuery,
        response: { 200: PagesResponse, ...errorResponses },
      },
    },
    async (request) => {
      const view = await set.resolve(request);
      return { pages: presentPages(view.content.pages, presentContext(view, request.query as Query)) };
    },
  );

  app.get(
    `${set.base}/files`,
    {
      schema: {
        tags: set.tags,
        operationId: set.operationIds.files,
        params: set.params,
        querystring: Type.Object({ ...ListQuery.properties, ...ContentQuery.properties }),
        response: { 200: ListOf(FileSchema), ...errorResponses },
      },
    },
    async (request) => {
      const view = await set.resolve(request);
      const query = request.query as Query & { page?: string; limit?: number };
      const page = paginateRows(
        view.content.files,
        [
          { direction: "asc", value: (f) => f.name },
          { direction: "asc", value: (f) => f.id },
        ],
        query,
      );
      const ctx = presentContext(view, query);
      return toList(page, (f) => presentFile(f, ctx));
    },
  );

  app.get(
    `${set.base}/files/:fileId`,
    {
      schema: {
        tags: set.tags,
        operationId: set.operationIds.file,
        params: withParams(Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 100 }) })),
        querystring: ContentQuery,
        response: { 200: FileSchema, ...errorResponses },
      },
    },
    async (request) => {
      const view = await set.resolve(request);
      const { fileId } = request.params as { fileId: string };
      const file = view.content.files.find((f) => f.id === fileId);
      if (!file) throw notFound(`No file with id "${fileId}" in this revision.`);
      return presentFile(file, presentContext(view, request.query as Query));
    },
  );

  app.get(
    `${set.base}/page/:pageId`,
    {
      schema: {
        tags: set.tags,
        operationId: set.operationIds.page,
        params: withParams(Type.Object({ pageId: Type.String({ minLength: 1, maxLength: 100 }) })),
        querystring: PageQuery,
        response: { 200: PageSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const view = await set.resolve(request);
      return pageWithBody(view, requirePage(view, (request.params as { pageId: string }).pageId), request.query as Query, reply);
    },
  );

  if (set.operationIds.pageDocument) {
    app.get(
      `${set.base}/page/:pageId/document`,
      {
        schema: {
          tags: set.tags,
          operationId: set.operationIds.pageDocument,
          params: withParams(Type.Object({ pageId: Type.String({ minLength: 1, maxLength: 100 }) })),
          querystring: Type.Object({ evaluated: PageQuery.properties.evaluated }),
          response: { 200: RichDocument, ...errorResponses },
        },
      },
      async (request, reply) => {
        const view = await set.resolve(request);
        const location = requirePage(view, (request.params as { pageId: string }).pageId);
        if (location.page.kind !== "document") throw notFound(`Page "${location.page.id}" is a ${location.page.kind}, it has no document.`);
        const { evaluated } = request.query as Query;
        if (evaluated === undefined || evaluated === false) {
          const json = keptPageDocumentApiJson(location) ?? (await pageDocumentApiJson(db, location));
          if (json !== undefined) return sendJsonText(reply, json);
        }
        const document = (await pageDocument(db, location)) as JSONDocument;
        if (evaluated === undefined || evaluated === false) return withHeadingAnchors(document) as never;
        const context = { space: { vars: view.content.variables }, page: { vars: location.page.variables ?? {} } };
        return withHeadingAnchors(evaluateDocument(document, context, evaluated === true ? "all" : "deterministic-only")) as never;
      },
    );
  }

  app.get(
    `${set.base}/path/*`,
    {
      schema: {
        tags: set.tags,
        operationId: set.operationIds.path,
        params: withParams(Type.Object({ "*": Type.String({ minLength: 1, maxLength: 2048 }) })),
        querystring: PageQuery,
        response: { 200: PageSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const view = await set.resolve(request);
      const path = decodeURIComponent((request.params as { "*": string })["*"]);
      const location = findPageByPath(view, path);
      if (!location || location.page.kind === "link") throw notFound(`No page at path "${path}" in this revision.`);
      return pageWithBody(view, location, request.query as Query, reply);
    },
  );

  app.get(
    `${set.base}/reusable-contents/:reusableContentId`,
    {
      schema: {
        tags: set.tags,
        operationId: set.operationIds.reusableContent,
        params: withParams(Type.Object({ reusableContentId: Type.String({ minLength: 1, maxLength: 100 }) })),
        querystring: ContentQuery,
        response: { 200: ReusableContentSchema, ...errorResponses },
      },
    },
    async (request) => {
      const view = await set.resolve(request);
      const { reusableContentId } = request.params as { reusableContentId: string };
      const entry = view.content.reusableContents.find((r) => r.id === reusableContentId);
      if (!entry) throw notFound(`No reusable content with id "${reusableContentId}" in this revision.`);
      return presentReusableContent(entry, presentContext(view, request.query as Query));
    },
  );
}

const tags = ["content"];

/** Primary content, revisions and documents of a space. */
export const contentRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db } = deps;

  const primaryContent = async (request: FastifyRequest) => {
    const { spaceId } = request.params as { spaceId: string };
    const { space } = await requireSpace(db, actorOf(request), spaceId);
    return loadRevisionView(db, space, space.revisionId);
  };

  registerRevisionReads(app, deps, {
    base: "/v1/spaces/:spaceId/content",
    params: SpaceContentParams,
    tags,
    operationIds: {
      revision: "getCurrentRevision",
      pages: "listPages",
      files: "listFiles",
      file: "getFileById",
      page: "getPageById",
      path: "getPageByPath",
      reusableContent: "getReusableContentById",
      pageLinks: "listPageLinksInSpace",
      pageBacklinks: "listSpacePageBacklinks",
      fileBacklinks: "listSpaceFileBacklinks",
    },
    resolve: primaryContent,
  });

  registerLinkReads(app, deps, {
    base: "/v1/spaces/:spaceId",
    linksPath: "/v1/spaces/:spaceId/links",
    params: SpaceContentParams,
    tags,
    operationIds: { links: "listSpaceLinks" },
    resolve: primaryContent,
  });

  registerRevisionReads(app, deps, {
    base: "/v1/spaces/:spaceId/revisions/:revisionId",
    params: RevisionParams,
    tags,
    operationIds: {
      revision: "getRevisionById",
      pages: "listPagesInRevisionById",
      files: "listFilesInRevisionById",
      file: "getFileInRevisionById",
      page: "getPageInRevisionById",
      pageDocument: "getPageDocumentInRevisionById",
      path: "getPageInRevisionByPath",
      reusableContent: "getReusableContentInRevisionById",
    },
    resolve: async (request) => {
      const { spaceId, revisionId } = request.params as { spaceId: string; revisionId: string };
      const { space } = await requireSpace(db, actorOf(request), spaceId);
      return loadRevisionView(db, space, revisionId);
    },
  });

  app.get(
    "/v1/spaces/:spaceId/documents/:documentId",
    {
      schema: { tags, operationId: "getDocumentById", params: DocumentParams, response: { 200: RichDocument, ...errorResponses } },
    },
    async (request, reply) => {
      const { spaceId, documentId } = request.params;
      const { space } = await requireSpace(db, actorOf(request), spaceId);
      // Documents are shared by hash across spaces; only one of this space's content may be read here.
      const view = await loadRevisionView(db, space, space.revisionId);
      const json = revisionReferencesDocument(view.content, documentId) ? await loadDocumentJson(db, documentId) : undefined;
      if (json === undefined) throw notFound(`No document with id "${documentId}" in this space's content.`);
      // Sent as stored (this read adds no heading anchors), unless the serializer would change it.
      if (sendsAsStored(json)) return sendJsonText(reply, json);
      return (await loadDocument(db, documentId)) as never;
    },
  );
};
