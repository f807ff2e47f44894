/**
 * Who is reading a published site, decided once per request, and what their claims let them see.
 *
 * This file is the seam between the site's routes (which resolve sections, variants and pages and
 * render them) and reader access (visibility, share links, visitor tokens, member access, adaptive
 * claims). The routes call `decideReader` before anything else and `conditionHolds` on every
 * condition they meet (site space, section, page front matter `if`, blocks).
 *
 * - `public`, `unlisted`: anyone reads.
 * - `share-link`: the first path segment after the site's base must be the key of an active share
 *   link of this site, looked up on every request (a deactivated or deleted link stops at once).
 * - `visitor-auth`: a visitor token (see modules/sites/visitor-token.model.ts) from `Authorization: Bearer`, the
 *   `jwt_token` query parameter (then kept in a cookie scoped to the site's path and removed from
 *   the URL by a redirect) or that cookie; without a valid one the reader is sent to sign in with
 *   the site's OpenID Connect provider when it names one (which gives them a visitor token of the
 *   site), else to the site's fallback URL with `location` (the page they asked for, from the
 *   site's root).
 * - Members of the organization who may read every space of the site read it whatever its
 *   visibility, published or not, with a Quire API token as `Authorization: Bearer` or signed in
 *   to the web app (by the pass to sites signing in gives, a cookie scoped to /s on Quire's own
 *   host; the session cookie itself never reaches site pages).
 * - A signed preview link (sites/preview.model.ts) admits whoever holds it for its hour, with the claims
 *   it carries, published or not; it is kept in a path-scoped cookie like a visitor token.
 *
 * The token `POST {org}/ping` returns (lib/member-claims.ts) is accepted like a visitor token by
 * every site of its organization.
 *
 * Claims (`visitor.claims`): the non-registered claims of a valid visitor token (on any site: a
 * public site can be adaptive too), plus unsigned claims the site's adaptive schema declares.
 */
import { createHash } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { LRUCache } from "lru-cache";
import type { Executor } from "../../db/database.js";
import type { SiteRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import { optionalActor } from "../../http/authenticate.js";
import { memberOfSitePass, SITE_MEMBER_COOKIE } from "../../http/member-session.js";
import { TOKEN_PREFIX } from "../../lib/ids.js";
import { isMemberClaimsToken, memberClaimsAllowed, verifyMemberClaims } from "../../lib/member-claims.js";
import { decodeRison } from "../../lib/rison.js";
import { unseal } from "../../lib/sealed.js";
import { getOrganization } from "../../modules/organizations/organizations.queries.js";
import { webAccessAllowed } from "../../modules/saml/saml.policy.js";
import { verifyPreview } from "../../modules/sites/preview.model.js";
import { siteSpaceIdsOf } from "../../modules/sites/published.queries.js";
import { findActiveShareLink } from "../../modules/sites/share-links.queries.js";
import { loadSpacesForSite } from "../../modules/sites/sites.loader.js";
import { getAdaptiveSchema, getPublishingAuth } from "../../modules/sites/sites.queries.js";
import { VISITOR_KEY_PURPOSE } from "../../modules/sites/sites.service.js";
import { looksLikeJwt, type TokenCheck, verifyVisitorToken } from "../../modules/sites/visitor-token.model.js";
import { loadOrgAccess, type OrgAccess } from "../../permissions/access.js";
import { getMember } from "../../permissions/memberships.queries.js";
import { atLeast } from "../../permissions/roles.js";
import { combineClaims, signedClaimsOf, unsignedClaims, unsignedSchemaOf, variantKeyOf } from "./claims.model.js";
import type { Reader, ReaderDecision, VisitorClaims } from "./reader.model.js";

/** The visitor's claims as conditions see them: `visitor.claims`. */
export const TOKEN_COOKIE = "quire-visitor-token";
export const PREVIEW_COOKIE = "quire-site-preview";
export const UNSIGNED_COOKIE = "quire-visitor-public";
const PREVIEW_PARAMS = ["preview", "siteSpace", "claims", "signature"];
/** Share keys are 32 base62 characters; a segment that cannot be one is not worth a lookup. */
const SHARE_KEY = /^[A-Za-z0-9_-]{8,128}$/;
const UNSIGNED_COOKIE_NAME = /^[A-Za-z0-9_]+-visitor-public/;
const MAX_COOKIE_VALUE = 4000;

/** Unsealed signing keys by their sealed text (a regenerated key has another text, so it is never stale). */
const signingKeys = new LRUCache<string, string>({ max: 1000 });

function siteKey(secret: string, sealed: string): string | undefined {
  const known = signingKeys.get(sealed);
  if (known !== undefined) return known;
  try {
    const key = unseal(secret, VISITOR_KEY_PURPOSE, JSON.parse(sealed));
    signingKeys.set(sealed, key);
    return key;
  } catch {
    return undefined;
  }
}

/**
 * A member-claims token (POST {org}/ping) checked for the site's organization, in the shape of a
 * visitor token's check. The token stands for a membership, looked up on every use: a member
 * removed, disabled or made a guest since is refused at once, as is a token issued before the
 * membership began (removed and added again); the `role` claim is the member's role now.
 */
async function verifyMemberToken(db: Executor, secret: string, orgId: string, token: string): Promise<TokenCheck> {
  const payload = await verifyMemberClaims(secret, orgId, token);
  if (!payload) return { ok: false, reason: "not a member token of this organization" };
  const member = typeof payload.sub === "string" ? await getMember(db, orgId, payload.sub) : undefined;
  if (!member || member.disabled === 1 || !memberClaimsAllowed(member.role)) {
    return { ok: false, reason: "the member token's holder is no longer a member with a role" };
  }
  if (Date.parse(member.joinedAt) >= ((payload.iat as number) + 1) * 1000) {
    return { ok: false, reason: "the member token was issued before the current membership began" };
  }
  return { ok: true, payload: { ...payload, role: member.role }, expiresAt: (payload.exp as number) * 1000 };
}

/** Cookies of the request, by name (the first of a repeated name wins, as browsers send the most specific path first). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch {
      continue;
    }
    if (name && !out.has(name)) out.set(name, value);
  }
  return out;
}

/** Cookie names are per base path, so two sites on one host (`/s/a`, `/s/b`) keep separate tokens. */
function cookieName(prefix: string, basePath: string): string {
  return `${prefix}~${createHash("sha256")
    .update(basePath || "/")
    .digest("hex")
    .slice(0, 12)}`;
}

function setCookie(name: string, value: string, options: { path: string; secure: boolean; maxAgeS?: number; httpOnly?: boolean }): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${options.path}`, "SameSite=Lax"];
  if (options.httpOnly !== false) parts.push("HttpOnly");
  if (options.secure) parts.push("Secure");
  if (options.maxAgeS !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(options.maxAgeS))}`);
  return parts.join("; ");
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/**
 * Whether the request comes from a member of the site's organization who may read every space of
 * the site: by a Quire API token as `Authorization: Bearer`, or by the web app's pass to sites
 * (sent to sites under /s/ on Quire's own host), where the organization's SSO enforcement applies
 * as in the web app.
 */
async function isMember(
  deps: Deps,
  site: SiteRow,
  request: FastifyRequest,
  bearer: string | undefined,
  cookies: Map<string, string>,
): Promise<boolean> {
  let access: OrgAccess | undefined;
  if (bearer?.startsWith(TOKEN_PREFIX)) {
    try {
      const actor = await optionalActor(deps.db, request);
      access = actor ? await actor.access.forOrg(site.orgId) : undefined;
    } catch {
      // An unknown or revoked API token admits nobody; the site then answers as to anyone else.
      return false;
    }
  } else {
    const pass = cookies.get(SITE_MEMBER_COOKIE);
    const session = pass ? await memberOfSitePass(deps, pass) : undefined;
    if (session) {
      const org = await getOrganization(deps.db, site.orgId);
      access = await loadOrgAccess(deps.db, session.userId, site.orgId);
      if (!org || !webAccessAllowed(org, access.membership, session.signedInWith)) return false;
    }
  }
  if (!access?.membership) return false;
  const ids = await siteSpaceIdsOf(deps.db, site.id);
  const spaces = await loadSpacesForSite(deps.db, access, ids);
  return ids.every((id) => {
    const entry = spaces.get(id);
    return entry !== undefined && !entry.space.deletedAt && atLeast(entry.level, "read");
  });
}

/** The claims a preview link carries (Rison), or none when it carries none or they do not decode to an object. */
function previewClaims(params: URLSearchParams): VisitorClaims {
  const text = params.get("claims");
  if (!text) return {};
  try {
    const value = decodeRison(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as VisitorClaims) : {};
  } catch {
    return {};
  }
}

/**
 * Decides whether this request may read `site`. `segments` are the path segments after the site's
 * base (before any share key is consumed); `basePath` is the site's base path on this request
 * (`/s/<basename>` or `` on the site's own host), for cookie paths and redirects.
 */
export async function decideReader(
  deps: Deps,
  site: SiteRow,
  request: FastifyRequest,
  segments: readonly string[],
  basePath: string,
): Promise<ReaderDecision> {
  const { db } = deps;
  // The URL as the client sent it: on a site's own host the router sees it rewritten to /s/<basename>/...
  const url = new URL(request.originalUrl ?? request.url, "http://site.invalid");
  const params = url.searchParams;
  const cookies = parseCookies(request.headers.cookie);
  const cookiePath = basePath || "/";
  const secure = request.protocol === "https" || deps.config.publicUrl.startsWith("https:");
  const setCookies: string[] = [];
  // Parameters that carry a credential: once taken into a cookie, the URL is given again without them.
  const strip: string[] = [];

  // A preview link, from the URL (then kept in a cookie for its hour) or from that cookie.
  let preview: URLSearchParams | undefined;
  const previewName = cookieName(PREVIEW_COOKIE, basePath);
  if (params.has("preview") && params.has("signature")) {
    const given = new URLSearchParams(PREVIEW_PARAMS.flatMap((p) => (params.has(p) ? [[p, params.get(p) as string]] : [])));
    strip.push(...PREVIEW_PARAMS);
    if (verifyPreview(deps.secret, site.id, given)) {
      preview = given;
      const maxAgeS = (Number(given.get("preview")) - Date.now()) / 1000;
      setCookies.push(setCookie(previewName, given.toString(), { path: cookiePath, secure, maxAgeS }));
    }
  } else {
    const kept = cookies.get(previewName);
    if (kept !== undefined) {
      const given = new URLSearchParams(kept);
      if (verifyPreview(deps.secret, site.id, given)) preview = given;
      else setCookies.push(setCookie(previewName, "", { path: cookiePath, secure, maxAgeS: 0 }));
    }
  }

  const bearer = bearerOf(request);
  const member = await isMember(deps, site, request, bearer, cookies);
  const privileged = member || preview !== undefined;

  if (site.published !== 1 && !privileged) return { kind: "not-found" };

  // The share key: consumed whenever it is a live key of this site (members' links carry it too).
  let prefix: string[] = [];
  if (site.visibility === "share-link") {
    const key = segments[0];
    const link = key !== undefined && SHARE_KEY.test(key) ? await findActiveShareLink(db, site.id, key) : undefined;
    if (link && key !== undefined) prefix = [key];
    else if (!privileged) return { kind: "not-found" };
  }

  // The visitor token: bearer, then query, then the path-scoped cookie.
  const tokenName = cookieName(TOKEN_COOKIE, basePath);
  const queryToken = params.get("jwt_token");
  if (queryToken !== null) strip.push("jwt_token");
  const offered =
    bearer !== undefined && looksLikeJwt(bearer)
      ? { token: bearer, from: "bearer" as const }
      : queryToken
        ? { token: queryToken, from: "query" as const }
        : cookies.has(tokenName)
          ? { token: cookies.get(tokenName) as string, from: "cookie" as const }
          : undefined;
  let signed: VisitorClaims = {};
  let tokenValid = false;
  let fallbackUrl: string | null = null;
  let oidcProviderId: string | null = null;
  if (offered || site.visibility === "visitor-auth") {
    const auth = await getPublishingAuth(db, site.id);
    fallbackUrl = auth?.fallbackUrl ?? null;
    oidcProviderId = auth?.oidcProviderId ?? null;
    const key = auth ? siteKey(deps.secret, auth.privateKeySealed) : undefined;
    if (offered) {
      const check = isMemberClaimsToken(offered.token)
        ? await verifyMemberToken(db, deps.secret, site.orgId, offered.token)
        : key !== undefined
          ? await verifyVisitorToken(offered.token, key)
          : ({ ok: false, reason: "the site has no signing key" } as const);
      if (check.ok) {
        tokenValid = true;
        signed = signedClaimsOf(check.payload);
        if (offered.from === "query") {
          setCookies.push(
            setCookie(tokenName, offered.token, { path: cookiePath, secure, maxAgeS: (check.expiresAt - Date.now()) / 1000 }),
          );
        }
      } else {
        request.log.info({ siteId: site.id, from: offered.from, reason: check.reason }, "visitor token refused");
      }
    }
    if (offered?.from === "cookie" && !tokenValid) setCookies.push(setCookie(tokenName, "", { path: cookiePath, secure, maxAgeS: 0 }));
    if (offered?.from === "query" && !tokenValid && queryToken !== null && cookies.has(tokenName)) {
      // A bad token in the URL replaces whatever the cookie held: the visitor is not who the cookie said.
      setCookies.push(setCookie(tokenName, "", { path: cookiePath, secure, maxAgeS: 0 }));
    }
  }

  if (site.visibility === "visitor-auth" && !tokenValid && !privileged) {
    if (oidcProviderId) return { kind: "login", location: oidcLoginLocation(deps, oidcProviderId, site.id, url, basePath, strip) };
    if (!fallbackUrl) return { kind: "not-found" };
    return { kind: "login", location: loginLocation(fallbackUrl, url, basePath, strip) };
  }

  // Unsigned claims, only where the adaptive schema declares them.
  const queryClaims: [string, string][] = [];
  for (const [name, value] of params) if (name.startsWith("visitor.")) queryClaims.push([name.slice("visitor.".length), value]);
  const publicCookies = [...cookies].filter(([name]) => UNSIGNED_COOKIE_NAME.test(name)).map(([, value]) => value);
  let unsigned: VisitorClaims = {};
  if (queryClaims.length > 0 || publicCookies.length > 0) {
    const row = await getAdaptiveSchema(db, site.id);
    let schema: Record<string, unknown> | undefined;
    try {
      schema = row ? (JSON.parse(row.jsonSchema) as Record<string, unknown>) : undefined;
    } catch {
      schema = undefined;
    }
    unsigned = unsignedClaims(unsignedSchemaOf(schema), { cookies: publicCookies, query: queryClaims });
    if (queryClaims.length > 0) {
      // Claims given in a URL last for the browser session, as GitBook keeps them.
      const text = JSON.stringify(unsigned);
      if (text.length <= MAX_COOKIE_VALUE) {
        setCookies.push(setCookie(cookieName(UNSIGNED_COOKIE, basePath), text, { path: cookiePath, secure, httpOnly: false }));
      }
    }
  }

  const claims = combineClaims(preview ? { ...signed, ...previewClaims(preview) } : signed, unsigned);
  const via: Reader["via"] = preview
    ? "preview"
    : member
      ? "member"
      : tokenValid
        ? "visitor-token"
        : prefix.length > 0
          ? "share-link"
          : "anyone";
  const variantKey = variantKeyOf(prefix.length > 0 ? { claims, share: prefix[0] } : claims, member);
  const reader: Reader = {
    claims,
    member,
    indexable: site.visibility === "public" && site.published === 1 && !preview,
    variantKey,
    via,
  };
  const decision: ReaderDecision = { kind: "read", reader, prefix, setCookies };
  if (strip.length > 0 && (request.method === "GET" || request.method === "HEAD")) {
    for (const name of strip) params.delete(name);
    const search = params.toString();
    decision.redirect = `${url.pathname}${search ? `?${search}` : ""}`;
  }
  return decision;
}

/**
 * The sign-in with the site's OpenID Connect provider (src/apps/web/pages/oidc), which comes back
 * to the page asked for with a visitor token of this site.
 */
function oidcLoginLocation(deps: Deps, providerId: string, siteId: string, url: URL, basePath: string, strip: readonly string[]): string {
  const location = new URL(loginLocation("http://site.invalid/", url, basePath, strip)).searchParams.get("location") ?? "";
  const start = new URL(deps.urls.app(`/oidc/${encodeURIComponent(providerId)}/start`));
  start.searchParams.set("site", siteId);
  start.searchParams.set("location", location);
  return start.toString();
}

/** The login address: the site's fallback URL with `location`, the page asked for from the site's root (without credentials). */
function loginLocation(fallbackUrl: string, url: URL, basePath: string, strip: readonly string[]): string {
  const rest = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
  const params = new URLSearchParams(url.search);
  for (const name of strip) params.delete(name);
  const search = params.toString();
  const location = `${rest.replace(/^\/+/, "")}${search ? `?${search}` : ""}`;
  try {
    const target = new URL(fallbackUrl);
    target.searchParams.set("location", location);
    return target.toString();
  } catch {
    return fallbackUrl;
  }
}
