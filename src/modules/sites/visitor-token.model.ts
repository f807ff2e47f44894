/**
 * Visitor tokens: JWTs that the site owner's backend signs with the site's key (HS256, the key's
 * text as UTF-8 bytes, as GitBook's examples sign with `jose`) to let a visitor read a
 * `visitor-auth` site and to bring signed claims. Verified with `jose`: only HS256 is accepted
 * (`alg: none`, HS384/HS512 and public-key algorithms are refused), the signature must be the
 * site's own key, and the token must carry an `exp` that has not passed. Pure.
 */
import { jwtVerify, SignJWT } from "jose";
import { invalid } from "../../lib/errors.js";

/** Leeway for clocks that disagree by a little between the signer and Quire. */
const CLOCK_TOLERANCE_S = 30;
/** A JWT is three base64url parts; anything longer than this is not a token a backend meant to send. */
const MAX_TOKEN_LENGTH = 8192;

export type TokenCheck = { ok: true; payload: Record<string, unknown>; expiresAt: number } | { ok: false; reason: string };

/** Checks a visitor token against the site's signing key. Never throws. */
export async function verifyVisitorToken(token: string, siteKey: string, now: Date = new Date()): Promise<TokenCheck> {
  if (token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: "the token is too long" };
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(siteKey), {
      algorithms: ["HS256"],
      requiredClaims: ["exp"],
      clockTolerance: CLOCK_TOLERANCE_S,
      currentDate: now,
    });
    return { ok: true, payload: payload as Record<string, unknown>, expiresAt: (payload.exp as number) * 1000 };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { ok: false, reason: typeof code === "string" ? code : "the token is not a JWT" };
  }
}

/** Whether a bearer credential looks like a JWT (three base64url parts) rather than a Quire API token. */
export function looksLikeJwt(value: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value);
}

/**
 * A visitor token for the site's key, as a site owner's backend would sign it: what Quire gives a
 * visitor who signed in with the site's OpenID Connect provider (their claims become `visitor.claims`).
 */
export async function signVisitorToken(claims: Record<string, unknown>, siteKey: string, lifetimeS: number): Promise<string> {
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt()
    .setExpirationTime(`${lifetimeS}s`)
    .sign(new TextEncoder().encode(siteKey));
  if (token.length > MAX_TOKEN_LENGTH) {
    throw invalid(
      `The identity provider sent more claims than a visitor token holds (${MAX_TOKEN_LENGTH} characters); ask its administrator to release fewer.`,
    );
  }
  return token;
}
