/**
 * Visitor claims a member of an organization carries to the organization's published sites: the
 * token `POST {org}/ping` returns (`serviceVisitorClaims`). An HS256 JWT under a key derived from
 * the instance secret and the organization (so a token of one organization opens none of
 * another's sites, and no site owner can forge one), `iss` "quire", `aud` "org:<id>", `sub` the
 * member, ten minutes. Its claims say who is reading (`member: true`, the organization `role`), for
 * conditions such as `visitor.claims.member === true`; a visitor-auth site of the organization
 * admits its holder.
 *
 * Only members with a role (not guests, who read no content unless granted) get one, and the token
 * stands for the membership: the site checks it on every use (published/reader.ts), so removing,
 * disabling or making the member a guest ends it at once, whatever its `exp`.
 */
import { hkdfSync } from "node:crypto";
import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from "jose";

export const MEMBER_CLAIMS_ISSUER = "quire";
/** Short, since a holder may pass it on: a page of the app pings again well within it. */
export const MEMBER_CLAIMS_TTL_S = 10 * 60;

/** Whether a member with this organization role (null: guest) may carry member claims to the organization's sites. */
export function memberClaimsAllowed(role: string | null): boolean {
  return role !== null;
}

function keyFor(secret: string, orgId: string): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", secret, "quire", `org-member-visitor-claims:${orgId}`, 32));
}

const audienceOf = (orgId: string) => `org:${orgId}`;

/** A signed token of a member's visitor claims, for the organization's sites. */
export async function signMemberClaims(
  secret: string,
  input: { orgId: string; userId: string; role: string | null; now?: number },
): Promise<string> {
  const now = Math.floor((input.now ?? Date.now()) / 1000);
  return new SignJWT({ member: true, role: input.role ?? "guest" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(MEMBER_CLAIMS_ISSUER)
    .setAudience(audienceOf(input.orgId))
    .setSubject(input.userId)
    .setIssuedAt(now)
    .setExpirationTime(now + MEMBER_CLAIMS_TTL_S)
    .sign(keyFor(secret, input.orgId));
}

/** Whether a token claims to be a member-claims token (unverified peek, to choose the key to verify with). */
export function isMemberClaimsToken(token: string): boolean {
  try {
    return decodeProtectedHeader(token).alg === "HS256" && decodeJwt(token).iss === MEMBER_CLAIMS_ISSUER;
  } catch {
    return false;
  }
}

/** The verified payload of a member-claims token for this organization, or undefined. Never throws. */
export async function verifyMemberClaims(secret: string, orgId: string, token: string): Promise<Record<string, unknown> | undefined> {
  try {
    const { payload } = await jwtVerify(token, keyFor(secret, orgId), {
      algorithms: ["HS256"],
      issuer: MEMBER_CLAIMS_ISSUER,
      audience: audienceOf(orgId),
      requiredClaims: ["exp", "iat", "sub"],
      clockTolerance: 30,
    });
    return payload as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
