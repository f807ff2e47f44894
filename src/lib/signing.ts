import { createHmac, timingSafeEqual } from "node:crypto";

/** HMAC-SHA256 of `message` under the instance secret, base64url. */
export function sign(secret: string, message: string): string {
  return createHmac("sha256", secret).update(message).digest("base64url");
}

export function verifySignature(secret: string, message: string, signature: string): boolean {
  const expected = Buffer.from(sign(secret, message));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
