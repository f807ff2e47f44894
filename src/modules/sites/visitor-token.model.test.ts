import { randomBytes } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { looksLikeJwt, verifyVisitorToken } from "./visitor-token.model.js";

const KEY = randomBytes(32).toString("base64url");
const OTHER_KEY = randomBytes(32).toString("base64url");
const bytes = (key: string) => new TextEncoder().encode(key);

function token(
  claims: Record<string, unknown> = { plan: "enterprise" },
  options: { key?: string; alg?: string; expiresIn?: string | number } = {},
) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? "HS256" })
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? "2h")
    .sign(bytes(options.key ?? KEY));
}

describe("visitor tokens", () => {
  it("accepts an HS256 token signed with the site's key, with its payload and expiry", async () => {
    const check = await verifyVisitorToken(await token({ plan: "enterprise", beta: true }), KEY);
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.payload).toMatchObject({ plan: "enterprise", beta: true });
    expect(check.expiresAt).toBeGreaterThan(Date.now() + 60 * 60 * 1000);
  });

  it("refuses an expired token", async () => {
    const expired = await token({}, { expiresIn: Math.floor(Date.now() / 1000) - 120 });
    expect(await verifyVisitorToken(expired, KEY)).toEqual({ ok: false, reason: "ERR_JWT_EXPIRED" });
  });

  it("refuses a token without exp (it would never expire)", async () => {
    const forever = await new SignJWT({ plan: "x" }).setProtectedHeader({ alg: "HS256" }).sign(bytes(KEY));
    expect((await verifyVisitorToken(forever, KEY)).ok).toBe(false);
  });

  it("refuses a token signed with another site's key", async () => {
    expect(await verifyVisitorToken(await token({}, { key: OTHER_KEY }), KEY)).toEqual({
      ok: false,
      reason: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
    });
  });

  it("refuses alg none, even with a valid-looking payload", async () => {
    const unsecured = new UnsecuredJWT({ plan: "enterprise" }).setIssuedAt().setExpirationTime("2h").encode();
    expect((await verifyVisitorToken(unsecured, KEY)).ok).toBe(false);
    // A header rewritten to none with the original signature kept.
    const real = await token();
    const [, payload, signature] = real.split(".");
    const none = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
    expect((await verifyVisitorToken(`${none}.${payload}.${signature}`, KEY)).ok).toBe(false);
    expect((await verifyVisitorToken(`${none}.${payload}.`, KEY)).ok).toBe(false);
  });

  it("refuses HS512 with the right key, and RS256", async () => {
    expect(await verifyVisitorToken(await token({}, { alg: "HS512" }), KEY)).toEqual({ ok: false, reason: "ERR_JOSE_ALG_NOT_ALLOWED" });
    const { privateKey, publicKey } = await generateKeyPair("RS256");
    const rs = await new SignJWT({ plan: "x" }).setProtectedHeader({ alg: "RS256" }).setExpirationTime("2h").sign(privateKey);
    expect((await verifyVisitorToken(rs, KEY)).ok).toBe(false);
    // Algorithm confusion: an RS256 header over an HMAC made with the public key's text.
    const pem = JSON.stringify(await exportJWK(publicKey));
    const confused = await new SignJWT({ plan: "x" }).setProtectedHeader({ alg: "HS256" }).setExpirationTime("2h").sign(bytes(pem));
    expect((await verifyVisitorToken(confused, KEY)).ok).toBe(false);
  });

  it("refuses malformed tokens without throwing", async () => {
    for (const bad of ["", "abc", "a.b.c", "....", `${"x".repeat(9000)}.y.z`, "eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.c2ln"]) {
      expect((await verifyVisitorToken(bad, KEY)).ok).toBe(false);
    }
  });

  it("tells JWTs from Quire API tokens", async () => {
    expect(looksLikeJwt(await token())).toBe(true);
    expect(looksLikeJwt("qr_abcdef")).toBe(false);
  });
});
