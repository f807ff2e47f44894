/**
 * A page of the site for a reader, as HTML (the layout around its rendered body) or as Markdown
 * (`<page>.md`); the 404 page; the site's own redirects (site-redirects.ts has the precedence); an
 * old path of a page that moved, redirected to where it is now.
 * Answers are kept by the site's version, the reader's variant and the path (site.steps.ts).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { pageHref, siteHref } from "../layout.js";
import { findMovedPage, listSiteRedirects } from "../site.loader.js";
import { type Answer, answer, answerKey, cacheControlOf, robotsOf, type SiteRequest, send } from "../site.steps.js";
import { markdownHref, pageMarkdown, renderNotFound, renderSitePage } from "../site-pages.js";
import { siteRedirectFor } from "../site-redirects.js";
import { readablePage, resolvePath } from "../site-view.js";

export const sitePageHandler = async (request: FastifyRequest, reply: FastifyReply, site: SiteRequest) => {
  const { app, ctx, view, reader, path } = site;
  const { deps } = app;
  const key = answerKey(site);
  const cacheControl = cacheControlOf(reader);
  const search = request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "";
  const cached = app.answers.get(key);
  if (cached) {
    // A 404 is kept by the site's version, which a new redirect does not change.
    const own = cached.status === 404 ? await siteRedirectFor(site, search) : undefined;
    if (own) return reply.header("cache-control", "no-store").redirect(own.location, own.status);
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
    result = resolution.markdown
      ? answer(200, "text/markdown; charset=utf-8", await pageMarkdown(deps, pageCtx, resolution.variant, resolution.pageId), pageRobots)
      : answer(
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
        );
  }
  app.answers.set(key, result);
  return send(request, reply, result, cacheControl, app);
};
