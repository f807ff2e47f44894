/**
 * What every handler of the published site shares: the answers kept in memory, the plain 404, the
 * answer with its ETag, and the common start of a request (`prepare`): the site, the reader (or
 * the answer that refuses or redirects them), the path after the site's base and any share key,
 * and the site's view.
 */
import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { LRUCache } from "lru-cache";
import { html } from "../../content/html/index.js";
import type { SiteRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import type { KeptEncodings } from "../../http/compression.js";
import type { InsightsRecorder, Visit } from "../../modules/insights/recorder.service.js";
import type { LayoutContext } from "./layout.views.js";
import type { SitePagesForMcp } from "./mcp-source.steps.js";
import type { Reader } from "./reader.model.js";
import { decideReader } from "./reader.steps.js";
import type { SiteAssets } from "./site.assets.js";
import { siteRequestOf } from "./site-hosts.steps.js";
import { loadSiteView, siteByBasename } from "./site-load.steps.js";
import { readerKey, type SiteView, versionOf } from "./site-view.model.js";

export interface Answer {
  status: number;
  type: string;
  body: Buffer;
  etag: string;
  /** Extra headers (X-Robots-Tag). */
  headers: Record<string, string>;
  /** The page this answer shows, counted as a view each time it is sent (insights). */
  page?: { spaceId: string; pageId: string; source: "page" | "markdown" };
}

export const YEAR_SECONDS = 365 * 24 * 60 * 60;

/** What the site's plugin holds for every request: the answers kept, the assets, the MCP endpoint. */
export interface SiteApp {
  deps: Deps;
  assets: SiteAssets;
  answers: LRUCache<string, Answer>;
  /** The compressed bodies of answers kept and of the assets, by ETag or asset name. */
  encodings: KeptEncodings;
  /** The site's MCP endpoint (`<site>/~quire/mcp`): answers one request over the reader's pages. */
  mcp?: ((request: FastifyRequest, reply: FastifyReply, source: SitePagesForMcp) => Promise<void>) | undefined;
  /** Counts what readers do for the site's Insights (never awaited: it writes in batches, later). */
  insights?: InsightsRecorder | undefined;
}

/** Who is reading, as insights count them (hashed there, never kept as given). */
export function visitOf(request: FastifyRequest, site: Pick<SiteRow, "id">): Visit {
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  return {
    siteId: site.id,
    ip: request.ip,
    userAgent: request.headers["user-agent"],
    // Where, for the site's events (the recorder keeps neither query nor fragment of either address).
    url: `${request.protocol}://${request.host}${request.url}`,
    referrer: header("referer"),
    language: header("accept-language"),
  };
}

/** A request past `prepare`: who reads which site, and where. */
export interface SiteRequest {
  app: SiteApp;
  site: SiteRow;
  where: ReturnType<typeof siteRequestOf>;
  reader: Reader;
  /** The path after the site's base and share key, decoded. */
  path: string[];
  /** The route's parameters, from `path`. */
  params: Record<string, string>;
  base: string;
  view: SiteView;
  ctx: LayoutContext & { origin: string };
}

/** A handler of the site's table: runs once the reader is decided. */
export type SiteHandler = (request: FastifyRequest, reply: FastifyReply, site: SiteRequest) => Promise<unknown>;

export function answer(status: number, type: string, text: string, headers: Record<string, string> = {}): Answer {
  const body = Buffer.from(text);
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
  return { status, type, body, etag, headers };
}

export function plainNotFound(reply: FastifyReply) {
  return reply
    .code(404)
    .type("text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .send(
      html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Not found</title></head><body style="font:16px/1.5 system-ui,sans-serif;margin:3rem auto;max-width:36rem;padding:0 1rem"><h1>Not found</h1><p>There is no published site at this address.</p></body></html>`
        .value,
    );
}

/**
 * Sends an answer with its ETag (304 to If-None-Match), compressed as the request accepts. For an
 * answer kept (`kept`: the site's), the compressed body is kept too, by the answer's ETag, so a
 * warm page is not compressed again; an answer built for one request only is compressed as it goes.
 */
export function send(
  request: FastifyRequest,
  reply: FastifyReply,
  a: Answer,
  cacheControl: string,
  kept: Pick<SiteApp, "encodings"> | undefined,
) {
  reply.header("etag", a.etag).header("cache-control", cacheControl).header("vary", "Cookie, Authorization, accept-encoding");
  for (const [name, value] of Object.entries(a.headers)) reply.header(name, value);
  const match = request.headers["if-none-match"];
  if (a.status === 200 && typeof match === "string" && match.split(/\s*,\s*/).includes(a.etag)) return reply.code(304).send();
  if (!kept) return reply.code(a.status).type(a.type).send(a.body);
  return kept.encodings.send(request, reply.code(a.status), a.etag, a.type, a.body);
}

/** Readers of a share link or a visitor-auth site, and members, must not share caches with others. */
export function cacheControlOf(reader: Reader): string {
  return reader.indexable && !reader.member ? "public, max-age=0, must-revalidate" : "private, no-cache";
}

export function robotsOf(reader: Reader): Record<string, string> {
  return reader.indexable ? {} : { "x-robots-tag": "noindex" };
}

/** The key of an answer kept: the site's version, the reader's variant, the addresses and the path. */
export function answerKey({ site, view, reader, base, where, path }: SiteRequest): string {
  return `${site.id}|${versionOf(view)}|${readerKey(reader)}|${base}|${where.origin}|${path.join("/")}`;
}

/**
 * The answer kept for this request, else `build`'s, kept: a warm page is one map lookup after the
 * access decision. Answered with its ETag (304 to If-None-Match).
 */
export async function sendKept(request: FastifyRequest, reply: FastifyReply, site: SiteRequest, build: () => Promise<Answer>) {
  const key = answerKey(site);
  let kept = site.app.answers.get(key);
  if (!kept) {
    kept = await build();
    site.app.answers.set(key, kept);
  }
  return send(request, reply, kept, cacheControlOf(site.reader), site.app);
}

/** The path after the site's basename as segments, decoded; undefined when it cannot be decoded. */
export function segmentsOf(rest: string): string[] | undefined {
  try {
    return rest
      .split("/")
      .filter((s) => s !== "")
      .map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

/**
 * The common start of every request past the site's assets: the site, the reader (or the answer
 * that refuses or redirects them), the path after the site's base and any share key, and the
 * view. Undefined when an answer was already sent.
 */
export async function prepare(
  app: SiteApp,
  request: FastifyRequest,
  reply: FastifyReply,
  basename: string,
  segments: string[],
): Promise<Omit<SiteRequest, "params"> | undefined> {
  const { deps } = app;
  const where = siteRequestOf(request, deps.urls, basename);
  const site = await siteByBasename(deps.db, basename);
  if (!site) return void plainNotFound(reply);
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
    assets: app.assets.names,
    filesBase: where.filesBase,
    variant: undefined,
    origin: where.origin,
  };
  return { app, site, where, reader, path, base, view, ctx };
}
