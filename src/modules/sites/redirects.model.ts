/**
 * A site's own redirects (GitBook 0.202 `SiteRedirect`): which one a request path matches, and the
 * checks a destination passes before it is stored. Pure: the API (redirects.routes.ts) and the
 * published site (apps/site) share it.
 */
import { invalid } from "../../lib/errors.js";

export type RedirectDestination =
  | { kind: "site-section"; siteSectionId: string }
  | { kind: "site-space"; siteSpaceId: string }
  | { kind: "site-page"; siteSpaceId: string; pageId: string }
  | { kind: "external"; url: string };

export interface MatchableRedirect {
  source: string;
  captureWildcard: number | boolean;
}

/** Redirects a site may have (live and draft): every request matches against them in memory. */
export const MAX_SITE_REDIRECTS = 5000;

/**
 * A path as redirects compare it: percent-escapes decoded (the site's router decodes request paths;
 * a source may be written either way), no trailing slash but at the root.
 */
export function normalizeRedirectPath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape is compared as written.
  }
  return decoded.length > 1 && decoded.endsWith("/") ? decoded.slice(0, -1) : decoded;
}

/**
 * The redirect a request path (from the site's root, leading slash) matches, and the part its
 * wildcard caught: an exact source first, else the wildcard source with the longest prefix
 * (`/blog/*` catches what is under `/blog/`, `/blog*` anything starting with `/blog`).
 */
export function matchRedirect<R extends MatchableRedirect>(
  redirects: readonly R[],
  path: string,
): { redirect: R; rest: string } | undefined {
  const wanted = normalizeRedirectPath(path);
  let best: { redirect: R; rest: string; length: number } | undefined;
  for (const redirect of redirects) {
    const source = redirect.source;
    if (!source.endsWith("*")) {
      if (normalizeRedirectPath(source) === wanted) return { redirect, rest: "" };
      continue;
    }
    const prefix = normalizeRedirectPath(source.slice(0, -1)) + (source.endsWith("/*") ? "/" : "");
    if (!wanted.startsWith(prefix) || (best && best.length >= prefix.length)) continue;
    best = { redirect, rest: wanted.slice(prefix.length), length: prefix.length };
  }
  return best && { redirect: best.redirect, rest: best.rest };
}

/**
 * 400 unless an external destination is an absolute http(s) URL: `javascript:`, `data:` and other
 * schemes, and scheme-relative `//host` addresses, would let a redirect run script or leave for a
 * host the URL does not name.
 */
export function checkExternalUrl(url: string, field: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(`${field} "${url.slice(0, 100)}" is not an absolute URL: give one such as https://example.com/docs.`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw invalid(`${field} must be an http or https URL, not "${parsed.protocol}".`);
  }
  if (parsed.username || parsed.password) throw invalid(`${field} must not carry a user name or password.`);
  return parsed.href;
}

/**
 * An external destination with what a wildcard caught appended (one slash between), or undefined
 * when the result would leave the destination's origin (`/ext*` catching `@evil.example` after
 * `https://good.example` would name another host) or not be http(s).
 */
export function externalTarget(url: string, rest: string): string | undefined {
  if (!rest) return url;
  const [head, query = ""] = splitQuery(url);
  const joined = `${head.replace(/\/+$/, "")}/${rest.replace(/^\/+/, "")}`;
  let target: URL;
  try {
    target = new URL(query ? `${joined}?${query}` : joined);
  } catch {
    return undefined;
  }
  const origin = new URL(url);
  if (target.origin !== origin.origin || target.username || target.password) return undefined;
  return target.href;
}

/** The path segments of what a wildcard caught, empty ones dropped (no `//` can reach a Location). */
export function caughtSegments(rest: string): string[] {
  return rest.split("/").filter((segment) => segment !== "" && segment !== "." && segment !== "..");
}

function splitQuery(value: string): [string, string?] {
  const at = value.indexOf("?");
  return at < 0 ? [value] : [value.slice(0, at), value.slice(at + 1)];
}

/** The status a served redirect answers with: GitBook's 308 for permanent redirects of public traffic, 307 otherwise. */
export function redirectStatus(permanent: boolean, publicTraffic: boolean): 307 | 308 {
  return permanent && publicTraffic ? 308 : 307;
}
