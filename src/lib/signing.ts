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

/** `<text>.<HMAC-SHA256 of text under a key for `purpose`, base64url>`: a value that says what it is for. */
export function signText(secret: string, purpose: string, text: string): string {
  const key = createHmac("sha256", secret).update(purpose).digest();
  return `${text}.${createHmac("sha256", key).update(text).digest("base64url")}`;
}

/** The text of a value made by `signText` for `purpose`, or undefined when it was not. */
export function verifyText(secret: string, purpose: string, value: string): string | undefined {
  const dot = value.lastIndexOf(".");
  if (dot <= 0 || value.length > 1024) return undefined;
  const text = value.slice(0, dot);
  const expected = Buffer.from(signText(secret, purpose, text));
  const given = Buffer.from(value);
  return given.length === expected.length && timingSafeEqual(given, expected) ? text : undefined;
}
