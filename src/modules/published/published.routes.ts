/**
 * Published docs sites, served by Quire itself at `/s/<basename>/...` (and on a site's own host, see
 * site-hosts.ts): HTML pages for readers, `<page>.md`, llms.txt, llms-full.txt, sitemap.xml and
 * robots.txt for machines, search, the fingerprinted assets, and the sidebar's branches for its
 * toggles (site-nav.ts).
 *
 * Every request first asks reader.ts who is reading (`decideReader`); answers are then built from
 * the site's view (published.loader.ts) for that reader, and kept in memory keyed by the view's
 * version (which changes with any revision or structure change), the reader's variant and the
 * path. A warm page is one map lookup after the access decision; it carries a strong ETag and
 * answers 304 to If-None-Match.
 */
import { createHash } from "node:crypto";
import { normalizeIP } from "@fastify/rate-limit";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { LRUCache } from "lru-cache";
import { html } from "../../content/html/index.js";
import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import type { Deps } from "../../deps.js";
import { DomainError } from "../../lib/errors.js";
import { randomBase62 } from "../../lib/ids.js";
import { sign } from "../../lib/signing.js";
import { PdfBusyError, pdfBytes } from "../pdf/pdf.service.js";
import { FEEDBACK_RATINGS, type FeedbackRating, feedbackFromAddressSince, recordFeedback } from "../sites/feedback.queries.js";
import { documentForReader } from "./conditions.js";
import type { LayoutContext } from "./layout.js";
import { pageHref, siteHref } from "./layout.js";
import { type SitePagesForMcp, siteMcpSource } from "./mcp-source.js";
import { bodyAssets } from "./page-body.js";
import { findMovedPage, listSiteRedirects, loadSiteView, siteByBasename } from "./published.loader.js";
import { conditionHolds, decideReader, parseCookies } from "./reader.js";
import { buildSiteAssets } from "./site-assets.js";
import { customizationOf } from "./site-customization.js";
import { type SiteHosts, siteRequestOf } from "./site-hosts.js";
import { navBranch } from "./site-nav.js";
import {
  expressionText,
  llmsFullTxt,
  llmsTxt,
  markdownHref,
  pageMarkdown,
  renderNotFound,
  renderSearchPage,
  renderSitePage,
  robotsTxt,
  searchSite,
  sitemapXml,
} from "./site-pages.js";
import { pageContext, readablePage, readerKey, resolvePath, type SiteView, variantVisible } from "./site-view.js";

interface Answer {
  status: number;
  type: string;
  body: Buffer;
  etag: string;
  /** Extra headers (X-Robots-Tag). */
  headers: Record<string, string>;
}

const YEAR_SECONDS = 365 * 24 * 60 * 60;
/** Feedback answers one address may give one site in an hour. */
export const FEEDBACK_PER_HOUR = 30;

function answer(status: number, type: string, text: string, headers: Record<string, string> = {}): Answer {
  const body = Buffer.from(text);
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
  return { status, type, body, etag, headers };
}

const versions = new WeakMap<SiteView, number>();
let nextVersion = 1;
function versionOf(view: SiteView): number {
  let version = versions.get(view);
  if (version === undefined) versions.set(view, (version = nextVersion++));
  return version;
}

function plainNotFound(reply: FastifyReply) {
  return reply
    .code(404)
    .type("text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .send(
      html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Not found</title></head><body style="font:16px/1.5 system-ui,sans-serif;margin:3rem auto;max-width:36rem;padding:0 1rem"><h1>Not found</h1><p>There is no published site at this address.</p></body></html>`
        .value,
    );
}

export interface PublishedRoutesOptions {
  deps: Deps;
  siteHosts?: SiteHosts;
  /** The site's MCP endpoint (`<site>/~quire/mcp`): answers one request over the reader's pages. */
  mcp?: (request: FastifyRequest, reply: FastifyReply, source: SitePagesForMcp) => Promise<void>;
}

export const publishedRoutes: FastifyPluginAsyncTypebox<PublishedRoutesOptions> = async (app, { deps, siteHosts, mcp }) => {
  if (siteHosts) {
    await siteHosts.start(deps.db, deps.log);
    app.addHook("onClose", async () => siteHosts.stop());
  }
  // Site pages are not part of the API document.
  app.addHook("onRoute", (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  const assets = buildSiteAssets(bodyAssets());
  const answers = new LRUCache<string, Answer>({
    maxSize: deps.config.siteCacheBytes,
    sizeCalculation: (a) => a.body.length + 200,
  });

  const send = (request: FastifyRequest, reply: FastifyReply, a: Answer, cacheControl: string) => {
    reply.header("etag", a.etag).header("cache-control", cacheControl).header("vary", "Cookie, Authorization");
    for (const [name, value] of Object.entries(a.headers)) reply.header(name, value);
    const match = request.headers["if-none-match"];
    if (a.status === 200 && typeof match === "string" && match.split(/\s*,\s*/).includes(a.etag)) return reply.code(304).send();
    return reply.code(a.status).type(a.type).send(a.body);
  };

  /**
   * The common start of every site request: the site, the reader (or the answer that refuses or
   * redirects them), the path after the site's base and any share key, and the view. Undefined when
   * an answer was already sent.
   */
  const prepare = async (request: FastifyRequest, reply: FastifyReply, basename: string, rest: string) => {
    const where = siteRequestOf(request, deps.urls, basename);
    const site = await siteByBasename(deps.db, basename);
    if (!site) return void plainNotFound(reply);
    let segments: string[];
    try {
      segments = rest
        .split("/")
        .filter((s) => s !== "")
        .map((s) => decodeURIComponent(s));
    } catch {
      return void plainNotFound(reply);
    }

    if (segments[0] === "~quire" && segments[1] === "assets" && segments.length >= 3) {
      const asset = assets.files.get(segments.slice(2).join("/"));
      if (!asset) return void plainNotFound(reply);
      return void reply.header("cache-control", `public, max-age=${YEAR_SECONDS}, immutable`).type(asset.contentType).send(asset.body);
    }

    const decision = await decideReader(deps, site, request, segments, where.basePath);
    if (decision.kind === "not-found") return void plainNotFound(reply);
    if (decision.kind === "login" && segments.at(-2) === "~quire" && segments.at(-1) === "mcp") {
      // A tool cannot follow a login page: it is told to bring a visitor token (or an API token) as a bearer.
      return void reply
        .code(401)
        .header("www-authenticate", 'Bearer realm="site"')
        .header("cache-control", "no-store")
        .send({
          jsonrpc: "2.0",
          error: { code: -32001, message: "This site needs a visitor token or an API token: send Authorization: Bearer <token>." },
          id: null,
        });
    }
    if (decision.kind === "login") return void reply.header("cache-control", "no-store").redirect(decision.location, 302);
    for (const cookie of decision.setCookies) reply.header("set-cookie", cookie);
    if (decision.redirect) return void reply.header("cache-control", "no-store").redirect(decision.redirect, 302);

    const { reader } = decision;
    const path = segments.slice(decision.prefix.length);
    const base = where.basePath + decision.prefix.map((s) => `/${encodeURIComponent(s)}`).join("");
    const view = await loadSiteView(deps.db, site);
    const ctx: LayoutContext & { origin: string } = {
      view,
      reader,
      base,
      assetsBase: `${where.basePath}/~quire/assets`,
      assets: assets.names,
      filesBase: where.filesBase,
      variant: undefined,
      origin: where.origin,
    };
    return { site, where, reader, path, base, view, ctx };
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply, basename: string, rest: string) => {
    const prepared = await prepare(request, reply, basename, rest);
    if (!prepared) return reply;
    const { site, where, reader, path, base, view, ctx } = prepared;
    if (mcp && path.length === 2 && path[0] === "~quire" && path[1] === "mcp") {
      await mcp(request, reply, siteMcpSource(deps, ctx));
      return reply;
    }
    // Readers of a share link or a visitor-auth site, and members, must not share caches with others.
    const cacheControl = reader.indexable && !reader.member ? "public, max-age=0, must-revalidate" : "private, no-cache";
    const robots: Record<string, string> = reader.indexable ? {} : { "x-robots-tag": "noindex" };
    if (path.length === 5 && path[0] === "~quire" && path[1] === "nav") {
      // A sidebar branch for the toggle: built for this reader like the page it came from. Its URL's
      // fingerprint names the tree's content, so while it matches the answer never changes.
      const variant = view.variants.get(path[2] as string);
      if (!variant || !variantVisible(view, variant, reader)) return plainNotFound(reply);
      const branch = navBranch({ ...ctx, variant }, variant, path[4] as string);
      if (!branch) return plainNotFound(reply);
      const lasting = `${reader.indexable && !reader.member ? "public" : "private"}, max-age=${YEAR_SECONDS}, immutable`;
      const fragment = answer(200, "text/html; charset=utf-8", branch.html, { "x-robots-tag": "noindex" });
      return send(request, reply, fragment, branch.fingerprint === path[3] ? lasting : "private, no-cache");
    }
    if (path.length === 4 && path[0] === "~quire" && path[1] === "pdf") {
      return sitePdf(request, reply, ctx, path[2] as string, path[3] as string);
    }
    const cacheKey = `${site.id}|${versionOf(view)}|${readerKey(reader)}|${base}|${where.origin}|${path.join("/")}`;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const isSearch = path.length === 2 && path[0] === "~quire" && path[1] === "search";
    const cached = isSearch ? undefined : answers.get(cacheKey);
    if (cached) return send(request, reply, cached, cacheControl);

    let result: Answer;
    if (isSearch) {
      const q = typeof query.q === "string" ? query.q.slice(0, 500) : "";
      let results: Awaited<ReturnType<typeof searchSite>> | { error: string } = [];
      if (q.trim() !== "") {
        try {
          results = await searchSite(deps, ctx, q);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          results = { error: error.message };
        }
      }
      // The search page keeps the navigation of the site's home variant.
      const home = resolvePath(view, [], reader, []);
      const searchCtx = { ...ctx, variant: home.kind === "redirect" ? undefined : home.variant };
      result = answer(200, "text/html; charset=utf-8", renderSearchPage(searchCtx, q, results), robots);
      return send(request, reply, result, "private, no-cache");
    }
    const only = path.length === 1 ? path[0] : undefined;
    if (only === "llms.txt") result = answer(200, "text/plain; charset=utf-8", llmsTxt(ctx), robots);
    else if (only === "llms-full.txt") result = answer(200, "text/plain; charset=utf-8", await llmsFullTxt(deps, ctx), robots);
    else if (only === "sitemap.xml") result = answer(200, "application/xml; charset=utf-8", sitemapXml(ctx), robots);
    else if (only === "robots.txt") result = answer(200, "text/plain; charset=utf-8", robotsTxt(ctx), robots);
    else {
      const redirects = await listSiteRedirects(deps.db, site.id);
      const resolution = resolvePath(view, path, reader, redirects);
      if (resolution.kind === "redirect") {
        const search = request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "";
        return reply
          .header("cache-control", "no-store")
          .redirect(siteHref(ctx, resolution.path) + search, resolution.permanent ? 308 : 302);
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
      if (resolution.kind === "not-found") {
        result = answer(404, "text/html; charset=utf-8", renderNotFound({ ...ctx, variant: resolution.variant }), {
          "x-robots-tag": "noindex",
        });
      } else {
        const pageCtx = { ...ctx, variant: resolution.variant, pageId: resolution.pageId };
        const page = resolution.variant.pages.get(resolution.pageId)?.page;
        const pageRobots = page?.noIndex || page?.noRobotsIndex ? { "x-robots-tag": "noindex" } : robots;
        result = resolution.markdown
          ? answer(
              200,
              "text/markdown; charset=utf-8",
              await pageMarkdown(deps, pageCtx, resolution.variant, resolution.pageId),
              pageRobots,
            )
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
    }
    answers.set(cacheKey, result);
    return send(request, reply, result, cacheControl);
  };

  /**
   * A page as PDF (`<site>/~quire/pdf/<site space>/<page>`), when the customization enables it and
   * this reader may read the page: printed as they see it (their conditional blocks), by the API's
   * renderer and into its cache. Readers who see the same page share one rendered file.
   */
  const sitePdf = async (request: FastifyRequest, reply: FastifyReply, ctx: LayoutContext, siteSpaceId: string, pageId: string) => {
    const { view, reader } = ctx;
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
            document: (document) =>
              documentForReader(document, (expression) => conditionHolds(expression, reader, extra), expressionText(reader, extra)),
            pageReadable: (id) => readablePage(variant, id, reader, false),
          },
        },
        abort.signal,
      );
    } catch (error) {
      if (!(error instanceof PdfBusyError)) throw error;
      return reply
        .code(429)
        .header("retry-after", "5")
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

  app.get<{ Params: { basename: string } }>("/s/:basename", { config: { public: true } }, (request, reply) =>
    handle(request, reply, request.params.basename, ""),
  );
  app.get<{ Params: { basename: string; "*": string } }>("/s/:basename/*", { config: { public: true } }, (request, reply) =>
    handle(request, reply, request.params.basename, request.params["*"]),
  );

  // "Was this page helpful?" answers come as a plain HTML form (the page works without JavaScript).
  if (!app.hasContentTypeParser("application/x-www-form-urlencoded")) {
    app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: 4096 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
  }

  /**
   * An answer to "Was this page helpful?" (`POST <site>/~quire/feedback`, fields siteSpace, page,
   * rating), when the customization enables feedback and the reader may read the page. One answer
   * per reader (a random id in a cookie), page and UTC day: a second one replaces the first. At most
   * FEEDBACK_PER_HOUR answers an hour from one address to one site (a reader without the cookie is a
   * new reader each time, so this is what bounds a script). Answered with a redirect to the page's
   * thanks note.
   */
  const feedbackRoute = async (request: FastifyRequest, reply: FastifyReply, basename: string, rest: string) => {
    const prepared = await prepare(request, reply, basename, rest);
    if (!prepared) return reply;
    const { ctx, reader, where, site } = prepared;
    if (prepared.path.join("/") !== "~quire/feedback") return plainNotFound(reply);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const field = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : "");
    const rating = field("rating") as FeedbackRating;
    const text = (status: number, message: string) =>
      reply.code(status).header("cache-control", "no-store").type("text/plain; charset=utf-8").send(message);
    if (!FEEDBACK_RATINGS.includes(rating)) return text(400, `rating must be one of ${FEEDBACK_RATINGS.join(", ")}.`);
    const variant = ctx.view.variants.get(field("siteSpace"));
    const pageId = field("page");
    if (!variant || !variantVisible(ctx.view, variant, reader) || !readablePage(variant, pageId, reader, false))
      return plainNotFound(reply);
    if (!customizationOf({ view: ctx.view, variant }).settings.feedback.enabled) return plainNotFound(reply);
    const now = new Date();
    const address = sign(deps.secret, `feedback-address\n${normalizeIP(request.ip)}`);
    const hourAgo = new Date(now.getTime() - 60 * 60 * 1000).toISOString();
    if ((await feedbackFromAddressSince(deps.db, site.id, address, hourAgo)) >= FEEDBACK_PER_HOUR) {
      return text(429, "Too many answers from this address in the last hour; thank you, try again later.");
    }
    const cookieName = `quire-feedback~${createHash("sha256")
      .update(where.basePath || "/")
      .digest("hex")
      .slice(0, 12)}`;
    let id = parseCookies(request.headers.cookie).get(cookieName);
    if (!id || !/^[A-Za-z0-9]{22}$/.test(id)) {
      id = randomBase62(22);
      const secure = request.protocol === "https" || deps.config.publicUrl.startsWith("https:");
      reply.header(
        "set-cookie",
        `${cookieName}=${id}; Path=${where.basePath || "/"}; Max-Age=${YEAR_SECONDS}; SameSite=Lax; HttpOnly${secure ? "; Secure" : ""}`,
      );
    }
    const createdAt = now.toISOString();
    await recordFeedback(deps.db, {
      siteId: site.id,
      spaceId: variant.siteSpace.spaceId,
      pageId,
      voter: createHash("sha256").update(id).digest("base64url"),
      day: createdAt.slice(0, 10),
      rating,
      address,
      createdAt,
    });
    return reply
      .header("cache-control", "no-store")
      .redirect(`${pageHref({ ...ctx, variant, pageId }, variant, pageId)}#q-feedback-thanks`, 303);
  };

  // MCP clients POST JSON-RPC to `<site>/~quire/mcp` (GET and DELETE are answered by the handler).
  const mcpRoute = async (request: FastifyRequest<{ Params: { basename: string; "*": string } }>, reply: FastifyReply) => {
    const rest = request.params["*"];
    if (request.method === "POST" && /(^|\/)~quire\/feedback\/?$/.test(rest))
      return feedbackRoute(request, reply, request.params.basename, rest);
    if (!mcp || !/(^|\/)~quire\/mcp\/?$/.test(rest)) return plainNotFound(reply);
    const prepared = await prepare(request, reply, request.params.basename, rest);
    if (!prepared) return reply;
    if (prepared.path.join("/") !== "~quire/mcp") return plainNotFound(reply);
    await mcp(request, reply, siteMcpSource(deps, prepared.ctx));
    return reply;
  };
  app.post<{ Params: { basename: string; "*": string } }>("/s/:basename/*", { config: { public: true } }, mcpRoute);
  app.delete<{ Params: { basename: string; "*": string } }>("/s/:basename/*", { config: { public: true } }, mcpRoute);
};
