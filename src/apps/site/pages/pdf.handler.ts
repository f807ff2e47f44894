/**
 * A page as PDF (`<site>/~quire/pdf/<site space>/<page>`), when the customization enables it and
 * this reader may read the page: printed as they see it (their conditional blocks), by the API's
 * renderer and into its cache. Readers who see the same page share one rendered file.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { documentInContext, readerContext } from "../../../content/document/for-reader.js";
import { getSpaceRevision } from "../../../content/revision/revisions.queries.js";
import { statusOfDomainError } from "../../../http/error-handler.js";
import { BUSY_RETRY_AFTER_SECONDS, DomainError } from "../../../lib/errors.js";
import { pdfBytes } from "../../../modules/pdf/pdf.service.js";
import { plainNotFound, type SiteRequest } from "../site.steps.js";
import { customizationOf } from "../site-customization.views.js";
import { pageContext, readablePage, variantVisible } from "../site-view.model.js";

export const sitePdfHandler = async (request: FastifyRequest, reply: FastifyReply, site: SiteRequest) => {
  const { view, reader, params } = site;
  const deps = site.app.deps;
  const siteSpaceId = params.siteSpace ?? "";
  const pageId = params.page ?? "";
  const variant = view.variants.get(siteSpaceId);
  if (!variant || !variantVisible(view, variant, reader) || !readablePage(variant, pageId, reader, false)) return plainNotFound(reply);
  const custom = customizationOf({ view, variant });
  if (!custom.settings.pdf.enabled) return plainNotFound(reply);
  const revision = await getSpaceRevision(deps.db, variant.siteSpace.spaceId, variant.revisionId);
  const page = variant.pages.get(pageId)?.page;
  if (!revision || !page) return plainNotFound(reply);
  const abort = new AbortController();
  request.raw.on("close", () => {
    if (!reply.sent) abort.abort();
  });
  const extra = pageContext(variant, page);
  let bytes: Buffer;
  try {
    bytes = await pdfBytes(
      deps.db,
      deps.urls,
      deps.secret,
      {
        spaceId: variant.siteSpace.spaceId,
        revisionId: variant.revisionId,
        treeHash: revision.treeHash,
        title: custom.title,
        pageId,
        only: true,
        reader: {
          document: (document) => documentInContext(document, readerContext(reader.claims, extra)),
          pageReadable: (id) => readablePage(variant, id, reader, false),
        },
      },
      abort.signal,
    );
  } catch (error) {
    if (!(error instanceof DomainError && error.kind === "busy")) throw error;
    return reply
      .code(statusOfDomainError.busy)
      .header("retry-after", String(BUSY_RETRY_AFTER_SECONDS))
      .header("cache-control", "no-store")
      .type("text/plain; charset=utf-8")
      .send(error.message);
  }
  const filename = `${page.title.replace(/[^\p{L}\p{N} _-]+/gu, "").trim() || "page"}.pdf`;
  return reply
    .header("content-type", "application/pdf")
    .header("content-disposition", `attachment; filename*=UTF-8''${encodeURIComponent(filename)}`)
    .header("x-content-type-options", "nosniff")
    .header("cache-control", reader.indexable && !reader.member ? "public, max-age=0, must-revalidate" : "private, no-cache")
    .header("vary", "Cookie, Authorization")
    .header("x-robots-tag", "noindex")
    .send(bytes);
};
