/**
 * Published docs sites, served by Quire itself at `/s/<basename>/...` (and on a site's own host, see
 * site-hosts.ts): HTML pages for readers, `<page>.md`, llms.txt, llms-full.txt, sitemap.xml and
 * robots.txt for machines, search, the fingerprinted assets, the sidebar's branches for its
 * toggles (site-nav.ts), PDFs, feedback and the MCP endpoint: every one a row of SITE_ROUTES, its
 * handler in its own file under pages/.
 *
 * A row's path is relative to the site: a share-link site's addresses carry the share key after the
 * basename (`/s/<basename>/<key>/llms.txt`), so Fastify registers the site's catch-all addresses
 * and `dispatch` matches the path after the key against the table, once reader.ts has decided who
 * is reading (`prepare`, site.steps.ts). Answers are then built from the site's view
 * (site.loader.ts) for that reader, and kept in memory keyed by the view's version (which changes
 * with any revision or structure change), the reader's variant and the path. A warm page is one map
 * lookup after the access decision; it carries a strong ETag and answers 304 to If-None-Match.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { LRUCache } from "lru-cache";
import { EMBED_FRAME_ORIGINS } from "../../content/html/index.js";
import type { Deps } from "../../deps.js";
import { KeptEncodings, registerCompression } from "../../http/compression.js";
import { legacySessionRemoval } from "../../http/member-session.js";
import type { InsightsRecorder } from "../../modules/insights/recorder.service.js";
import { bodyAssets } from "./page-body.render.js";
import { askStream } from "./pages/ask.handler.js";
import { siteAsset } from "./pages/assets.handler.js";
import { feedbackAction } from "./pages/feedback.action.js";
import { llmsFullTxtHandler, llmsTxtHandler, robotsTxtHandler, sitemapHandler } from "./pages/machine.handler.js";
import { mcpHandler } from "./pages/mcp.handler.js";
import { navBranchHandler } from "./pages/nav.handler.js";
import { sitePageHandler } from "./pages/page.page.js";
import { sitePdfHandler } from "./pages/pdf.handler.js";
import { searchJson, searchPage } from "./pages/search.page.js";
import { buildSiteAssets, SITE_HEAD_JS_HASH } from "./site.assets.js";
import { type Answer, plainNotFound, prepare, type SiteApp, type SiteHandler, segmentsOf } from "./site.steps.js";
import type { SiteHosts } from "./site-hosts.steps.js";

/**
 * Sites share Quire's host with the web app and the API. Their pages run no script but their own
 * assets (site.js, content.js, mermaid's bundle) and the few lines in <head> that set the theme
 * before the first paint (admitted by their hash, SITE_HEAD_JS_HASH; no other inline script, no eval); styles may be inline
 * (the customization's <style>, widths and colors in content, the diagrams mermaid draws); fonts
 * come from the customization's http(s) files, images from wherever content and customization
 * point; frames are the players of known embeds; they fetch and post only to this host (the
 * sidebar's branches, search, feedback), set no <base>, and only this host may frame them.
 */
const SITE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src 'self' ${SITE_HEAD_JS_HASH}`,
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' https: http:",
  "img-src 'self' https: http: data:",
  `frame-src ${EMBED_FRAME_ORIGINS.join(" ")}`,
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join("; ");
/**
 * A stylesheet, a script or a font is never a document: a browser applies no policy of its
 * headers to it, so it carries one that grants nothing (should it be opened as a document) instead
 * of the page's ~500 bytes, which each of a first visit's four assets sent again (HTTP/1.1 headers
 * go uncompressed).
 */
const SUBRESOURCE_CONTENT_SECURITY_POLICY = "default-src 'none'; base-uri 'none'; frame-ancestors 'self'";

function policyFor(contentType: unknown): string {
  const type = String(contentType ?? "")
    .split(";", 1)[0]!
    .trim()
    .toLowerCase();
  return type === "text/css" || type === "text/javascript" || type.startsWith("font/")
    ? SUBRESOURCE_CONTENT_SECURITY_POLICY
    : SITE_CONTENT_SECURITY_POLICY;
}

type Method = "GET" | "POST" | "DELETE";

/** A row of the site's table: a handler run once the reader is decided, or (`public`) before, for what every reader gets alike. */
export type SiteRoute =
  | { method: Method; url: string; handler: SiteHandler; public?: false }
  | {
      method: Method;
      url: string;
      handler: (request: FastifyRequest, reply: FastifyReply, app: SiteApp, params: Record<string, string>) => Promise<unknown>;
      public: true;
    };

const S = "/s/:basename";

/**
 * Every address of a site, first match wins (`:name` is one segment, `*` the rest, possibly
 * nothing). HEAD is answered as GET.
 */
export const SITE_ROUTES: readonly SiteRoute[] = [
  { method: "GET", url: `${S}/~quire/assets/*`, handler: siteAsset, public: true },
  { method: "GET", url: `${S}/~quire/nav/:variant/:fingerprint`, handler: navBranchHandler },
  { method: "GET", url: `${S}/~quire/pdf/:siteSpace/:page`, handler: sitePdfHandler },
  { method: "GET", url: `${S}/~quire/search`, handler: searchPage },
  { method: "GET", url: `${S}/~quire/search.json`, handler: searchJson },
  { method: "GET", url: `${S}/~quire/ask`, handler: askStream },
  { method: "GET", url: `${S}/~quire/mcp`, handler: mcpHandler },
  { method: "POST", url: `${S}/~quire/mcp`, handler: mcpHandler },
  { method: "DELETE", url: `${S}/~quire/mcp`, handler: mcpHandler },
  { method: "POST", url: `${S}/~quire/feedback`, handler: feedbackAction },
  { method: "GET", url: `${S}/llms.txt`, handler: llmsTxtHandler },
  { method: "GET", url: `${S}/llms-full.txt`, handler: llmsFullTxtHandler },
  { method: "GET", url: `${S}/sitemap.xml`, handler: sitemapHandler },
  { method: "GET", url: `${S}/robots.txt`, handler: robotsTxtHandler },
  { method: "GET", url: `${S}/*`, handler: sitePageHandler },
];

/** The row's path after the site's basename, as segments (`*` last when it has one). */
const PATTERNS = new Map(SITE_ROUTES.map((route) => [route, route.url.slice(S.length).split("/").filter(Boolean)]));

/** The row's parameters when `segments` match its path. A trailing slash is the same address. */
function match(route: SiteRoute, segments: readonly string[]): Record<string, string> | undefined {
  const pattern = PATTERNS.get(route) ?? [];
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i] as string;
    if (part === "*") {
      params["*"] = segments.slice(i).join("/");
      return params;
    }
    const given = segments[i];
    if (given === undefined) return undefined;
    if (part.startsWith(":")) params[part.slice(1)] = given;
    else if (part !== given) return undefined;
  }
  return segments.length === pattern.length ? params : undefined;
}

const rowsOf = (method: string) => SITE_ROUTES.filter((route) => route.method === (method === "HEAD" ? "GET" : method));

export interface SiteRoutesOptions {
  deps: Deps;
  siteHosts?: SiteHosts;
  /** The site's MCP endpoint (`<site>/~quire/mcp`): answers one request over the reader's pages. */
  mcp?: SiteApp["mcp"];
  /** Counts what readers do for the site's Insights. */
  insights?: InsightsRecorder;
}

export const publishedSiteRoutes: FastifyPluginAsyncTypebox<SiteRoutesOptions> = async (app, { deps, siteHosts, mcp, insights }) => {
  if (siteHosts) {
    await siteHosts.start(deps.db, deps.log);
    app.addHook("onClose", async () => siteHosts.stop());
  }
  // Brotli or gzip as the reader's browser asks (answers kept are compressed once, site.steps.ts `send`).
  await registerCompression(app);
  // Site pages are not part of the API document.
  app.addHook("onRoute", (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("content-security-policy", policyFor(reply.getHeader("content-type")));
    reply.header("x-frame-options", "SAMEORIGIN");
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "strict-origin-when-cross-origin");
    // The web app's session cookie of earlier versions reached every path of the host: drop it.
    const removal = legacySessionRemoval(request.headers.cookie);
    if (removal) reply.header("set-cookie", removal);
    done(null, payload);
  });
  const site: SiteApp = {
    deps,
    assets: buildSiteAssets(bodyAssets()),
    answers: new LRUCache<string, Answer>({ maxSize: deps.config.siteCacheBytes, sizeCalculation: (a) => a.body.length + 200 }),
    // Compressed, an answer is a fifth to a tenth of its size: a quarter of the answers' budget holds them all.
    encodings: new KeptEncodings(Math.ceil(deps.config.siteCacheBytes / 4)),
    mcp,
    insights,
  };

  /** The row of the table this request is for, run once the reader is decided (public rows: at once). */
  const dispatch = async (request: FastifyRequest, reply: FastifyReply, basename: string, rest: string) => {
    const segments = segmentsOf(rest);
    if (!segments) return plainNotFound(reply);
    const rows = rowsOf(request.method);
    for (const route of rows) {
      const params = route.public ? match(route, segments) : undefined;
      if (route.public && params) return route.handler(request, reply, site, params);
    }
    // Nothing of this method can answer the path, with or without a share key: no access decision is spent on it.
    const reachable = rows.some((route) => !route.public && (match(route, segments) || match(route, segments.slice(1))));
    if (!reachable) return plainNotFound(reply);
    const prepared = await prepare(site, request, reply, basename, segments);
    if (!prepared) return reply;
    for (const route of rows) {
      if (route.public) continue;
      const params = match(route, prepared.path);
      if (params) return route.handler(request, reply, { ...prepared, params });
    }
    return plainNotFound(reply);
  };

  // "Was this page helpful?" answers come as a plain HTML form (the page works without JavaScript).
  if (!app.hasContentTypeParser("application/x-www-form-urlencoded")) {
    app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: 4096 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
  }

  // Not in the audit log: a published site's POST and DELETE are its readers' (the MCP endpoint,
  // which only reads, and anonymous page feedback, a rating counted like a page view): recording
  // them would let any visitor fill an organization's audit log.
  const audit = { skip: "a published site's readers: MCP (reads only) and anonymous page ratings" };
  for (const method of ["GET", "POST", "DELETE"] as const) {
    app.route<{ Params: { basename: string } }>({
      method,
      url: S,
      // GET: a page read, counted apart from the address's other requests (http/rate-limit.ts).
      config: { public: true, reader: method === "GET", audit },
      handler: (request, reply) => dispatch(request, reply, request.params.basename, ""),
    });
    app.route<{ Params: { basename: string; "*": string } }>({
      method,
      url: `${S}/*`,
      config: { public: true, reader: method === "GET", audit },
      handler: (request, reply) => dispatch(request, reply, request.params.basename, request.params["*"]),
    });
  }
};
