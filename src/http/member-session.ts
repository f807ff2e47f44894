/**
 * A member's session as every application on this host sees it. The web app (src/apps/web) opens
 * and ends sessions; its cookie is scoped to `/app`, so published sites (`/s/...`) never receive
 * it. What a site needs of it, who is signed in (members read unpublished sites), comes in a
 * cookie of its own scoped to `/s`: a pass that names the session without being it (the SHA-256
 * of its id, signed), worth nothing to the web app, and void once the session ends. Both
 * applications read it from here, below them, so that neither imports the other.
 */
import { createHmac } from "node:crypto";
import { fastifyCookie } from "@fastify/cookie";
import type { Executor } from "../db/database.js";
import { hashToken } from "../lib/ids.js";
import { signText, verifyText } from "../lib/signing.js";
import { readSessionByIdHash } from "./member-session.queries.js";

/** The web app's session cookie (its id, signed). */
export const SESSION_COOKIE = "quire_app_session";
/**
 * The session cookie's name when it was scoped to the whole host (`Path=/`): removed wherever it
 * still comes (its session may still be valid, but published pages must not keep receiving it).
 */
export const LEGACY_SESSION_COOKIE = "quire_session";
/** The signed-in member's pass to published sites under `/s` (see above). */
export const SITE_MEMBER_COOKIE = "quire_site_member";
export const SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

const SITE_PASS_PURPOSE = "quire published site member pass";

/** The paths the cookies are scoped to, under QUIRE_PUBLIC_URL's own path. */
export function cookiePaths(publicUrl: string): { app: string; saml: string; oidc: string; sites: string } {
  const base = new URL(publicUrl).pathname.replace(/\/+$/, "");
  return { app: `${base}/app`, saml: `${base}/app/saml`, oidc: `${base}/app/oidc`, sites: `${base}/s` };
}

/** The Set-Cookie value that removes the legacy session cookie, when `cookieHeader` carries one. */
export function legacySessionRemoval(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader || !/(?:^|;)\s*quire_session=/.test(cookieHeader)) return undefined;
  return `${LEGACY_SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`;
}

/**
 * How the session was signed in: the web app's SSO enforcement depends on it, and SAML single
 * logout on the assertion's subject (absent in sessions opened before single logout existed).
 */
export type SignedInWith =
  | { method: "saml"; orgId: string; providerId: string; subject?: SamlSubject }
  | { method: "oidc"; orgId: string; providerId: string }
  | { method: "link" };

/** The subject and session of a SAML assertion, echoed in the LogoutRequest sent at sign-out. */
export interface SamlSubject {
  nameId: string;
  nameIdFormat: string | null;
  nameQualifier: string | null;
  spNameQualifier: string | null;
  sessionIndex: string | null;
}

/** The pass to published sites of the session with this id (the value of `SITE_MEMBER_COOKIE`). */
export function sitePassOf(secret: string, sessionId: string): string {
  return signText(secret, SITE_PASS_PURPOSE, hashToken(sessionId));
}

/**
 * Who the member's pass to published sites (`SITE_MEMBER_COOKIE`, as the browser sent it) is signed
 * in as; undefined when its signature is wrong or its session is unknown, signed out or expired.
 */
export async function memberOfSitePass(
  deps: { db: Executor; secret: string },
  value: string,
): Promise<{ userId: string; signedInWith: SignedInWith } | undefined> {
  const idHash = verifyText(deps.secret, SITE_PASS_PURPOSE, value);
  if (idHash === undefined || !/^[0-9a-f]{64}$/.test(idHash)) return undefined;
  const data = await readSessionByIdHash(deps.db, idHash);
  if (!data) return undefined;
  const session = JSON.parse(data) as { userId?: unknown; signedInWith?: SignedInWith };
  if (typeof session.userId !== "string" || !session.signedInWith) return undefined;
  return { userId: session.userId, signedInWith: session.signedInWith };
}

/**
 * The key @fastify/session signs the session cookie with (web.session.ts registers it): derived
 * from the instance secret, so that the cookie's signature and the other signed values never share
 * a key.
 */
export function sessionCookieSecret(instanceSecret: string): string {
  return createHmac("sha256", instanceSecret).update("quire web session cookie").digest("hex");
}

/** A live member session, named by the SHA-256 of its id (what is stored, and what may be kept elsewhere). */
export interface MemberSession {
  userId: string;
  signedInWith: SignedInWith;
  idHash: string;
}

/** The live session with this id hash, or undefined when it is signed out, expired or has no member. */
export async function memberOfSessionHash(db: Executor, idHash: string): Promise<MemberSession | undefined> {
  const data = await readSessionByIdHash(db, idHash);
  if (!data) return undefined;
  const session = JSON.parse(data) as { userId?: unknown; signedInWith?: SignedInWith };
  if (typeof session.userId !== "string" || !session.signedInWith) return undefined;
  return { userId: session.userId, signedInWith: session.signedInWith, idHash };
}

/**
 * The member whose session cookie (`SESSION_COOKIE`) the request's Cookie header carries, for
 * endpoints under /app outside the web app's own plugin (the collaboration token): the same
 * signature check @fastify/session makes, then the stored session.
 */
export async function memberOfSessionCookie(
  deps: { db: Executor; secret: string },
  cookieHeader: string | undefined,
): Promise<MemberSession | undefined> {
  if (!cookieHeader || cookieHeader.length > 16 * 1024) return undefined;
  const value = fastifyCookie.parse(cookieHeader)[SESSION_COOKIE];
  if (!value) return undefined;
  const unsigned = fastifyCookie.unsign(value, sessionCookieSecret(deps.secret));
  if (!unsigned.valid || !unsigned.value) return undefined;
  return memberOfSessionHash(deps.db, hashToken(unsigned.value));
}
