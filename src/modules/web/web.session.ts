/**
 * Sessions of the web app: @fastify/session with its id in a signed, HttpOnly, SameSite=Lax
 * cookie (Secure when QUIRE_PUBLIC_URL is https), the session's values in the database (only the
 * id's SHA-256 is stored), so that every process sees a sign-out at once. CSRF tokens
 * (@fastify/csrf-protection) are tied to the session; every form posts one.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import fastifyCookie from "@fastify/cookie";
import fastifyCsrf from "@fastify/csrf-protection";
import fastifyFormbody from "@fastify/formbody";
import fastifySession from "@fastify/session";
import type { FastifyInstance, FastifyRequest, Session } from "fastify";
import type { Deps } from "../../deps.js";
import { deleteSession, readSession, writeSession } from "./web.queries.js";

export const SESSION_COOKIE = "quire_session";
export const SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * How the session was signed in: the web app's SSO enforcement depends on it, and SAML single
 * logout on the assertion's subject (absent in sessions opened before single logout existed).
 */
export type SignedInWith = { method: "saml"; orgId: string; providerId: string; subject?: SamlSubject } | { method: "link" };

/** The subject and session of a SAML assertion, echoed in the LogoutRequest sent at sign-out. */
export interface SamlSubject {
  nameId: string;
  nameIdFormat: string | null;
  nameQualifier: string | null;
  spNameQualifier: string | null;
  sessionIndex: string | null;
}

declare module "fastify" {
  interface Session {
    userId?: string;
    signedInWith?: SignedInWith;
    /** The SAML AuthnRequest this browser started, until its answer completes the sign-in. */
    samlRequest?: { providerId: string; requestId: string };
    _csrf?: string;
  }
}

function cookieSecret(instanceSecret: string): string {
  return createHmac("sha256", instanceSecret).update("quire web session cookie").digest("hex");
}

export async function registerWebSessions(app: FastifyInstance, deps: Deps): Promise<void> {
  const { db } = deps;
  const secret = cookieSecret(deps.secret);
  await app.register(fastifyFormbody, { bodyLimit: 1024 * 1024 });
  await app.register(fastifyCookie);
  await app.register(fastifySession, {
    secret,
    cookieName: SESSION_COOKIE,
    saveUninitialized: false,
    // A session lasts 7 days from sign-in; pages only read it (no database write per page view).
    rolling: false,
    cookie: {
      path: "/",
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
}

/** Starts a fresh session for the user (a new id: a session fixed before sign-in is worthless after). */
export async function startSession(request: FastifyRequest, userId: string, signedInWith: SignedInWith): Promise<void> {
  await request.session.regenerate();
  request.session.set("userId", userId);
  request.session.set("signedInWith", signedInWith);
}

/** Where to go after signing in: a path of this site only (never another host), else the app's home. */
export function safeNext(value: unknown): string {
  if (typeof value !== "string" || value.length > 2000) return "/app";
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\") || /[\r\n\t]/.test(value)) return "/app";
  return value;
}

/**
 * Who a session cookie (its value as the browser sent it) is signed in as, for pages served outside
 * the web app's routes (published sites read by members); undefined when the signature is wrong or
 * the session is unknown, signed out or expired. The value is `<id>.<HMAC-SHA256 base64, unpadded>`,
 * as @fastify/cookie signs it.
 */
export async function sessionOfCookie(deps: Deps, value: string): Promise<{ userId: string; signedInWith: SignedInWith } | undefined> {
  const dot = value.lastIndexOf(".");
  if (dot <= 0 || value.length > 512) return undefined;
  const id = value.slice(0, dot);
  const expected = createHmac("sha256", cookieSecret(deps.secret)).update(id).digest("base64").replace(/=+$/, "");
  const given = Buffer.from(value.slice(dot + 1));
  if (given.length !== Buffer.byteLength(expected) || !timingSafeEqual(given, Buffer.from(expected))) return undefined;
  const data = await readSession(deps.db, id);
  if (!data) return undefined;
  const session = JSON.parse(data) as { userId?: unknown; signedInWith?: SignedInWith };
  if (typeof session.userId !== "string" || !session.signedInWith) return undefined;
  return { userId: session.userId, signedInWith: session.signedInWith };
}
