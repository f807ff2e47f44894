/**
 * GET /v1/spaces/{spaceId}/pdf (and the change-request variant, registered with
 * `registerPdfRoute`): answers at once with a signed URL valid for an hour, pinned to the revision
 * read now. GET /pdf/{token} renders that revision (or serves it from the cache) as a PDF.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import Type, { type TObject } from "typebox";
import { indexPages } from "../../content/revision/model.js";
import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import { loadContent } from "../../content/revision/storage.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { forbidden, notFound } from "../../http/errors.js";
import { errorResponses } from "../../http/schemas.js";
import { sign, verifySignature } from "../../lib/signing.js";
import { requireLiveSpace } from "../spaces/spaces.loader.js";
import { getSpace } from "../spaces/spaces.queries.js";
import { SpaceParams } from "../spaces/spaces.schemas.js";
import { pdfBytes } from "./pdf.service.js";

/** The URL works for an hour, as GitBook's does. */
const PDF_URL_TTL_SECONDS = 60 * 60;

interface PdfToken {
  s: string;
  r: string;
  p?: string;
  o?: boolean;
  /** Subtitle, e.g. the change request. */
  t?: string;
  e: number;
}

const PdfQuery = Type.Object({
  only: Type.Optional(Type.Boolean({ description: "With `page`: that page only, without its subpages" })),
  page: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Export this page (and its subpages)" })),
});
const PdfUrl = Type.Object({ url: Type.String({ description: "Temporary URL of the PDF, valid for one hour" }) });

export interface PdfRouteSet {
  path: string;
  params: TObject;
  operationId: string;
  /** The revision to print, after checking the caller may view it. */
  resolve(request: FastifyRequest): Promise<{ spaceId: string; revisionId: string; subtitle?: string }>;
}

export function registerPdfRoute(app: FastifyInstance, deps: Deps, set: PdfRouteSet): void {
  app.get(
    set.path,
    {
      schema: {
        tags: ["content"],
        operationId: set.operationId,
        params: set.params,
        querystring: PdfQuery,
        response: { 200: PdfUrl, ...errorResponses },
      },
    },
    async (request) => {
      const { page, only } = request.query as { page?: string; only?: boolean };
      const target = await set.resolve(request);
      if (page) {
        const revision = await getSpaceRevision(deps.db, target.spaceId, target.revisionId);
        const content = await loadContent(deps.db, revision?.treeHash ?? null);
        if (!indexPages(content.pages).has(page)) throw notFound(`No page with id "${page}" in this content.`);
      }
      const token: PdfToken = {
        s: target.spaceId,
        r: target.revisionId,
        ...(page ? { p: page } : {}),
        ...(only ? { o: true } : {}),
        ...(target.subtitle ? { t: target.subtitle } : {}),
        e: Math.floor(Date.now() / 1000) + PDF_URL_TTL_SECONDS,
      };
      const payload = Buffer.from(JSON.stringify(token)).toString("base64url");
      return { url: `${deps.urls.base}/pdf/${payload}.${sign(deps.secret, `pdf\n${payload}`)}` };
    },
  );
}

export const pdfRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls, secret } = deps;

  registerPdfRoute(app, deps, {
    path: "/v1/spaces/:spaceId/pdf",
    params: SpaceParams,
    operationId: "getSpacePDF",
    resolve: async (request) => {
      const { space } = await requireLiveSpace(db, actorOf(request), (request.params as { spaceId: string }).spaceId);
      return { spaceId: space.id, revisionId: space.revisionId };
    },
  });

  app.get(
    "/pdf/:token",
    { config: { public: true }, schema: { hide: true, params: Type.Object({ token: Type.String({ minLength: 10, maxLength: 4096 }) }) } },
    async (request, reply) => {
      const [payload, signature] = request.params.token.split(".");
      if (!payload || !signature || !verifySignature(secret, `pdf\n${payload}`, signature)) throw forbidden("This PDF link is not valid.");
      const token = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as PdfToken;
      if (token.e * 1000 < Date.now()) throw forbidden("This PDF link has expired; ask the API for a new one.");
      const space = await getSpace(db, token.s);
      const revision = space && (await getSpaceRevision(db, space.id, token.r));
      if (!space || space.deletedAt || !revision) throw notFound("This content no longer exists.");
      // Stop rendering if the client goes away.
      const abort = new AbortController();
      request.raw.on("close", () => {
        if (!reply.sent) abort.abort();
      });
      const bytes = await pdfBytes(
        db,
        urls,
        secret,
        {
          spaceId: space.id,
          revisionId: revision.id,
          treeHash: revision.treeHash,
          title: space.title,
          ...(token.t ? { subtitle: token.t } : {}),
          ...(token.p ? { pageId: token.p } : {}),
          ...(token.o ? { only: true } : {}),
        },
        abort.signal,
      );
      const filename = `${space.title.replace(/[^\p{L}\p{N} _-]+/gu, "").trim() || "export"}.pdf`;
      return reply
        .header("content-type", "application/pdf")
        .header("content-disposition", `inline; filename*=UTF-8''${encodeURIComponent(filename)}`)
        .header("x-content-type-options", "nosniff")
        .header("cache-control", "private, max-age=3600")
        .send(bytes);
    },
  );
};
