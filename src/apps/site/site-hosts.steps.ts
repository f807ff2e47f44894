/**
 * A site on its own host name: a site whose `proxy` is `docs.example.com/help` is also served when a
 * request's Host is `docs.example.com` and its path is under `/help`, so that a reverse proxy can
 * give each site its own domain (forwarding the Host header unchanged). The request is routed as
 * `/s/<basename>/...` and remembers where it came from, so that every URL of the answer is built
 * for the reader's host and path.
 *
 * Fastify routes before any hook runs, so the match happens in its `rewriteUrl` (synchronous): the
 * host table is kept in memory and re-read from the database every second (a cached read on
 * SQLite), so a change of a site's proxy takes effect within a second.
 */
import type { IncomingMessage } from "node:http";
import type { FastifyRequest } from "fastify";
import type { Db } from "../../db/database.js";
import type { Urls } from "../../http/urls.js";
import { listSitesWithProxy } from "../../modules/sites/published.queries.js";

const SITE_HOST = Symbol("quire.siteHost");

interface HostEntry {
  /** Path prefix on the host ("" or "/help"). */
  path: string;
  basename: string;
}

interface Marked {
  [SITE_HOST]?: { basePath: string; host: string };
}

const REFRESH_MS = 1000;

export class SiteHosts {
  private hosts = new Map<string, HostEntry[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly publicHost: string) {}

  /** Starts keeping the table fresh; returns when the first read is done. */
  async start(db: Db, log: { warn(obj: unknown, msg: string): void }): Promise<void> {
    await this.refresh(db);
    this.timer = setInterval(() => {
      this.refresh(db).catch((err) => log.warn({ err }, "could not re-read the sites' proxy hosts"));
    }, REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async refresh(db: Db): Promise<void> {
    const hosts = new Map<string, HostEntry[]>();
    for (const site of await listSitesWithProxy(db)) {
      const parsed = parseProxy(site.proxy ?? "");
      if (!parsed || parsed.host === this.publicHost) continue;
      const list = hosts.get(parsed.host) ?? [];
      list.push({ path: parsed.path, basename: site.basename });
      // The longest path prefix is tried first.
      list.sort((a, b) => b.path.length - a.path.length);
      hosts.set(parsed.host, list);
    }
    this.hosts = hosts;
  }

  /** Fastify's rewriteUrl: a request to a site's host is routed to `/s/<basename>/...`. */
  rewrite(req: IncomingMessage): string {
    const url = req.url ?? "/";
    if (this.hosts.size === 0) return url;
    const host = (req.headers.host ?? "").toLowerCase();
    const list = this.hosts.get(host) ?? this.hosts.get(host.replace(/:\d+$/, ""));
    if (!list) return url;
    const query = url.indexOf("?");
    const pathname = query >= 0 ? url.slice(0, query) : url;
    for (const entry of list) {
      if (entry.path !== "" && pathname !== entry.path && !pathname.startsWith(`${entry.path}/`)) continue;
      (req as IncomingMessage & Marked)[SITE_HOST] = { basePath: entry.path, host };
      return `/s/${encodeURIComponent(entry.basename)}${url.slice(entry.path.length) || "/"}`;
    }
    return url;
  }
}

/** `host/path` (no scheme) as a lower-case host and a path prefix without a trailing slash. */
export function parseProxy(proxy: string): { host: string; path: string } | undefined {
  const match = /^([A-Za-z0-9.-]+(?::\d+)?)(\/.*)?$/.exec(proxy.trim().replace(/^https?:\/\//i, ""));
  if (!match?.[1]) return undefined;
  const path = (match[2] ?? "").replace(/\/+$/, "");
  return { host: match[1].toLowerCase(), path };
}

/** Where a site request is served: its base path on this host and the origin of absolute URLs. */
export function siteRequestOf(
  request: FastifyRequest,
  urls: Urls,
  basename: string,
): { basePath: string; origin: string; filesBase: string } {
  const marked = (request.raw as IncomingMessage & Marked)[SITE_HOST];
  // Downloads are served by Quire's own routes, which a site's host does not reach: full address there.
  if (marked) return { basePath: marked.basePath, origin: `${request.protocol}://${marked.host}`, filesBase: urls.base };
  const url = new URL(urls.site(basename));
  return { basePath: url.pathname.replace(/\/+$/, ""), origin: url.origin, filesBase: new URL(urls.base).pathname.replace(/\/+$/, "") };
}
