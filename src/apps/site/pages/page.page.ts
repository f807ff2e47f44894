/**
 * A page of the site for a reader, as HTML (the layout around its rendered body) or as Markdown
 * (`<page>.md`); the 404 page; the site's own redirects (site-redirects.ts has the precedence); an
 * old path of a page that moved, redirected to where it is now.
 * Answers are kept by the site's version, the reader's variant and the path (site.steps.ts).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { DomainError } from "../../../lib/errors.js";
import { pageHref, siteHref } from "../layout.views.js";
import { type Answer, answer, answerKey, cacheControlOf, robotsOf, type SiteRequest, send, visitOf } from "../site.steps.js";
import { findMovedPage, listSiteRedirects } from "../site-load.steps.js";
import { askMarkdown, askSite, countQuestion, markdownHref, pageMarkdown, renderNotFound, renderSitePage } from "../site-pages.steps.js";
import { siteRedirectFor } from "../site-redirects.steps.js";
import { readablePage, resolvePath } from "../site-view.model.js";

export const sitePageHandler = async (request: FastifyRequest, reply: FastifyReply, site: SiteRequest) => {
  const { app, ctx, view, reader, path } = site;
  const { deps } = app;
  const key = answerKey(site);
  const cacheControl = cacheControlOf(reader);
  const ask = ((request.query ?? {}) as Record<string, unknown>).ask;
  if (ask !== undefined && path.at(-1)?.endsWith(".md")) return askMarkdownAnswer(reply, site, ask);
  const search = request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "";
  const cached = app.answers.get(key);
  if (cached) {
    // A 404 is kept by the site's version, which a new redirect does not change.
    const own = cached.status === 404 ? await siteRedirectFor(site, search) : undefined;
    if (own) return reply.header("cache-control", "no-store").redirect(own.location, own.status);
    countView(request, site, cached);
    return send(request, reply, cached, cacheControl, app);
  }

  const redirects = await listSiteRedirects(deps.db, site.site.id);
  const resolution = resolvePath(view, path, reader, redirects);
  if (resolution.kind === "redirect") {
    return reply.header("cache-control", "no-store").redirect(siteHref(ctx, resolution.path) + search, resolution.permanent ? 308 : 302);
  }
  if (resolution.kind === "not-found") {
    const own = await siteRedirectFor(site, search);
    if (own) return reply.header("cache-control", "no-store").redirect(own.location, own.status);
  }
  if (resolution.kind === "not-found" && resolution.variant && resolution.rest !== "") {
    // An old path of a page that was renamed or moved: to where that page is now.
    const { variant } = resolution;
    const movedId = await findMovedPage(deps.db, variant.siteSpace.spaceId, variant.revisionId, resolution.rest);
    if (movedId && variant.pages.has(movedId) && readablePage(variant, movedId, reader, false)) {
      const target = resolution.markdown ? markdownHref(ctx, variant, movedId) : pageHref({ ...ctx, variant }, variant, movedId);
      return reply.header("cache-control", "no-store").redirect(target, 301);
    }
  }
  let result: Answer;
  if (resolution.kind === "not-found") {
    result = answer(404, "text/html; charset=utf-8", renderNotFound({ ...ctx, variant: resolution.variant }), {
      "x-robots-tag": "noindex",
    });
  } else {
    const pageCtx = { ...ctx, variant: resolution.variant, pageId: resolution.pageId };
    const page = resolution.variant.pages.get(resolution.pageId)?.page;
    const pageRobots = page?.noIndex || page?.noRobotsIndex ? { "x-robots-tag": "noindex" } : robotsOf(reader);
    const shown = { spaceId: resolution.variant.siteSpace.spaceId, pageId: resolution.pageId };
    result = resolution.markdown
      ? {
          ...answer(
            200,
            "text/markdown; charset=utf-8",
            await pageMarkdown(deps, pageCtx, resolution.variant, resolution.pageId),
            pageRobots,
          ),
          page: { ...shown, source: "markdown" },
        }
      : {
          ...answer(
            200,
            "text/html; charset=utf-8",
            await renderSitePage(
              deps,
              pageCtx,
              resolution.variant,
              resolution.pageId,
              markdownHref(ctx, resolution.variant, resolution.pageId),
            ),
            pageRobots,
          ),
          page: { ...shown, source: "page" },
        };
  }
  app.answers.set(key, result);
  countView(request, site, result);
  return send(request, reply, result, cacheControl, app);
};

/** A page sent is a view (a 304 too: the reader's browser shows the page it kept); a 404, a view of no page (an event only). */
function countView(request: FastifyRequest, site: SiteRequest, sent: Answer) {
  if (sent.page) site.app.insights?.view(visitOf(request, site.site), sent.page.source, sent.page.spaceId, sent.page.pageId);
  else if (sent.status === 404) site.app.insights?.notFound(visitOf(request, site.site));
}

/**
 * `<page>.md?ask=<question>`: the answer to a question asked of the site (as this reader sees it),
 * as Markdown with its sources' addresses: what an agent reading the page's Markdown can ask next.
 * Never kept: each question is answered anew (its retrieval is kept, site-pages.ts askSite).
 */
async function askMarkdownAnswer(reply: FastifyReply, site: SiteRequest, ask: unknown) {
  const { app, ctx, view, reader, path } = site;
  const text = (status: number, body: string) =>
    reply.code(status).header("cache-control", "no-store").type("text/markdown; charset=utf-8").send(body);
  // The page must be one this reader may read: its address answers no more than the page itself.
  const resolution = resolvePath(view, path, reader, []);
  if (resolution.kind !== "page" || !resolution.markdown)
    return text(404, "# Not found\n\nThis page does not exist, or you cannot see it.\n");
  if (typeof ask !== "string") return text(400, "# Bad request\n\nGive one question in the `ask` parameter.\n");
  try {
    const answered = await askSite(app.deps, ctx, ask);
    countQuestion(app.insights, site.site.id, answered, "api");
    return reply
      .code(200)
      .header("cache-control", "private, no-store")
      .headers(robotsOf(reader))
      .type("text/markdown; charset=utf-8")
      .send(askMarkdown(answered, ctx.origin));
  } catch (error) {
    if (error instanceof DomainError && error.kind === "invalid") return text(400, `# Bad request\n\n${error.message}\n`);
    throw error;
  }
}
