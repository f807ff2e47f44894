/**
 * The hand-over from the ACS to the browser that started the sign-in. The ACS is a cross-site
 * POST from the identity provider, which carries no SameSite=Lax cookie, so it cannot tell which
 * browser it is talking to: it validates the response, then redirects to /app/saml/{id}/complete with
 * this short-lived signed ticket. That GET is a top-level navigation, which carries the SameSite=Lax
 * cookie in which /saml/{id}/start kept the AuthnRequest (web.session.ts); it must be the request the
 * ticket answers. So a response captured or
 * obtained elsewhere and posted from another browser (login CSRF) signs nobody in there.
 */
import { createHmac } from "node:crypto";
import { safeEqual } from "../../lib/ids.js";

/** The subject and session of the assertion that opened a session (see web.session.ts). */
export interface LogoutSubject {
  nameId: string;
  nameIdFormat: string | null;
  nameQualifier: string | null;
  spNameQualifier: string | null;
  sessionIndex: string | null;
}

/** How long the browser has to follow the ACS's redirect. */
export const TICKET_TTL_MS = 2 * 60 * 1000;

export interface SignInTicket {
  userId: string;
  providerId: string;
  orgId: string;
  requestId: string;
  next: string;
  /** The assertion's subject and session, kept in the session for single logout. */
  subject?: LogoutSubject;
  expiresAt: number;
}

function mac(secret: string, payload: string): string {
  return createHmac("sha256", secret).update("quire saml ticket\n").update(payload).digest("base64url");
}

export function sealTicket(secret: string, ticket: Omit<SignInTicket, "expiresAt">, now = Date.now()): string {
  const payload = Buffer.from(JSON.stringify({ ...ticket, expiresAt: now + TICKET_TTL_MS })).toString("base64url");
  return `${payload}.${mac(secret, payload)}`;
}

/** The ticket when its signature holds and it has not expired; undefined otherwise. */
export function openTicket(secret: string, sealed: string, now = Date.now()): SignInTicket | undefined {
  const [payload, signature, ...rest] = sealed.split(".");
  if (!payload || !signature || rest.length > 0 || !safeEqual(signature, mac(secret, payload))) return undefined;
  let ticket: SignInTicket;
  try {
    ticket = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as SignInTicket;
  } catch {
    return undefined;
  }
  if (typeof ticket.expiresAt !== "number" || ticket.expiresAt <= now) return undefined;
  return ticket;
}
