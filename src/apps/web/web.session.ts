/**
 * Sessions of the web app: @fastify/session with its id in a signed, HttpOnly, SameSite=Lax
 * cookie (Secure when QUIRE_PUBLIC_URL is https), the session's values in the database (only the
 * id's SHA-256 is stored), so that every process sees a sign-out at once. CSRF tokens
 * (@fastify/csrf-protection) are tied to the session; every form posts one.
 *
 * The session cookie is scoped to `/app`; published sites get a pass of their own
 * (src/http/member-session.ts, which both read). The SAML sign-in's request, started at
 * `/saml/{id}/start` (outside `/app`, so that starting does not replace the session) and brought
 * back by that browser to `/app/saml/{id}/complete`, is a signed cookie of its own.
 */

import fastifyCookie from "@fastify/cookie";
import fastifyCsrf from "@fastify/csrf-protection";
import fastifyFormbody from "@fastify/formbody";
import fastifySession from "@fastify/session";
import type { FastifyInstance, FastifyReply, FastifyRequest, Session } from "fastify";
import { recordAudit } from "../../db/audit.js";
import type { Deps } from "../../deps.js";
import {
  cookiePaths,
  legacySessionRemoval,
  SESSION_COOKIE,
  SESSION_MAX_AGE_MS,
  SITE_MEMBER_COOKIE,
  type SignedInWith,
  sessionCookieSecret,
  sitePassOf,
} from "../../http/member-session.js";
import { signText, verifyText } from "../../lib/signing.js";
import { deleteSession, readSession, writeSession } from "./web.queries.js";

const SAML_REQUEST_COOKIE = "quire_saml_request";
/** How long a SAML sign-in may take between its start and its completion (the IdP's request validity). */
const SAML_REQUEST_MAX_AGE_S = 10 * 60;

declare module "fastify" {
  interface Session {
    userId?: string;
    signedInWith?: SignedInWith;
    _csrf?: string;
  }
}

const SAML_REQUEST_PURPOSE = "quire saml request cookie";

function cookieOptions(deps: Deps, path: string, maxAgeS: number) {
  return { path, httpOnly: true, sameSite: "lax" as const, secure: deps.config.publicUrl.startsWith("https:"), maxAge: maxAgeS };
}

export async function registerWebSessions(app: FastifyInstance, deps: Deps): Promise<void> {
  const { db } = deps;
  const secret = sessionCookieSecret(deps.secret);
  await app.register(fastifyFormbody, { bodyLimit: 1024 * 1024 });
  await app.register(fastifyCookie);
  await app.register(fastifySession, {
    secret,
    cookieName: SESSION_COOKIE,
    saveUninitialized: false,
    // A session lasts 7 days from sign-in; pages only read it (no database write per page view).
    rolling: false,
    cookie: {
      path: cookiePaths(deps.config.publicUrl).app,
      httpOnly: true,
      sameSite: "lax",
      secure: deps.config.publicUrl.startsWith("https:"),
      maxAge: SESSION_MAX_AGE_MS,
    },
    store: {
      set(sessionId, session, callback) {
        const expires = session.cookie.expires ? new Date(session.cookie.expires) : new Date(Date.now() + SESSION_MAX_AGE_MS);
        const via = session.signedInWith;
        writeSession(db, sessionId, {
          userId: session.userId ?? null,
          data: JSON.stringify(session),
          expiresAt: expires.toISOString(),
          saml:
            via?.method === "saml" && via.subject
              ? { providerId: via.providerId, nameId: via.subject.nameId, sessionIndex: via.subject.sessionIndex }
              : undefined,
        }).then(() => callback(), callback);
      },
      get(sessionId, callback) {
        readSession(db, sessionId).then(
          (data) => callback(null, data ? (JSON.parse(data) as Session) : null),
          (err) => callback(err),
        );
      },
      destroy(sessionId, callback) {
        deleteSession(db, sessionId).then(() => callback(), callback);
      },
    },
  });
  await app.register(fastifyCsrf, { sessionPlugin: "@fastify/session" });
  app.addHook("onSend", (request, reply, _payload, done) => {
    const removal = legacySessionRemoval(request.headers.cookie);
    if (removal) reply.header("set-cookie", removal);
    done();
  });
}

/**
 * Starts a fresh session for the user (a new id: a session fixed before sign-in is worthless
 * after), with its pass to published sites.
 */
export async function startSession(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  signedInWith: SignedInWith,
): Promise<void> {
  await request.session.regenerate();
  // Every way into the web app (a sign-in link, SAML, OpenID Connect) passes here.
  recordAudit({
    action: "sign_in",
    actor: { type: "user", id: userId },
    target: { type: "user", id: userId },
    ...(signedInWith.method === "link" ? {} : { orgIds: [signedInWith.orgId] }),
    payload: { method: signedInWith.method, providerId: signedInWith.method === "link" ? null : signedInWith.providerId },
  });
  request.session.set("userId", userId);
  request.session.set("signedInWith", signedInWith);
  const pass = sitePassOf(deps.secret, request.session.sessionId);
  reply.setCookie(SITE_MEMBER_COOKIE, pass, cookieOptions(deps, cookiePaths(deps.config.publicUrl).sites, SESSION_MAX_AGE_MS / 1000));
}

/** Ends the session everywhere, and removes its cookies from this browser. */
export async function endSession(deps: Deps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await request.session.destroy();
  reply.clearCookie(SITE_MEMBER_COOKIE, cookieOptions(deps, cookiePaths(deps.config.publicUrl).sites, 0));
}

/** The SAML sign-in this browser starts, kept for its completion (the last one started wins). */
export function rememberSamlRequest(deps: Deps, reply: FastifyReply, started: { providerId: string; requestId: string }): void {
  const text = Buffer.from(JSON.stringify(started)).toString("base64url");
  reply.setCookie(
    SAML_REQUEST_COOKIE,
    signText(deps.secret, SAML_REQUEST_PURPOSE, text),
    cookieOptions(deps, cookiePaths(deps.config.publicUrl).saml, SAML_REQUEST_MAX_AGE_S),
  );
}

/** The SAML sign-in this browser started, if it brought back a genuine one (removed from the browser: it is used once). */
export function takeSamlRequest(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
): { providerId: string; requestId: string } | undefined {
  const value = request.cookies[SAML_REQUEST_COOKIE];
  if (value === undefined) return undefined;
  reply.clearCookie(SAML_REQUEST_COOKIE, cookieOptions(deps, cookiePaths(deps.config.publicUrl).saml, 0));
  const text = verifyText(deps.secret, SAML_REQUEST_PURPOSE, value);
  if (text === undefined) return undefined;
  try {
    const started = JSON.parse(Buffer.from(text, "base64url").toString()) as { providerId?: unknown; requestId?: unknown };
    return typeof started.providerId === "string" && typeof started.requestId === "string"
      ? { providerId: started.providerId, requestId: started.requestId }
      : undefined;
  } catch {
    return undefined;
  }
}

const OIDC_STATE_COOKIE = "quire_oidc_state";
const OIDC_STATE_PURPOSE = "quire oidc state cookie";

/** The OpenID Connect sign-in this browser starts (its `state`), kept for the callback (the last one started wins). */
export function rememberOidcState(deps: Deps, reply: FastifyReply, state: string, maxAgeS: number): void {
  reply.setCookie(
    OIDC_STATE_COOKIE,
    signText(deps.secret, OIDC_STATE_PURPOSE, state),
    cookieOptions(deps, cookiePaths(deps.config.publicUrl).oidc, maxAgeS),
  );
}

/** The state of the OpenID Connect sign-in this browser started, if genuine (removed from the browser: it is used once). */
export function takeOidcState(deps: Deps, request: FastifyRequest, reply: FastifyReply): string | undefined {
  const value = request.cookies[OIDC_STATE_COOKIE];
  if (value === undefined) return undefined;
  reply.clearCookie(OIDC_STATE_COOKIE, cookieOptions(deps, cookiePaths(deps.config.publicUrl).oidc, 0));
  return verifyText(deps.secret, OIDC_STATE_PURPOSE, value);
}

/** Where to go after signing in: a path of this site only (never another host), else the app's home. */
export function safeNext(value: unknown): string {
  if (typeof value !== "string" || value.length > 2000) return "/app";
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\") || /[\r\n\t]/.test(value)) return "/app";
  return value;
}
