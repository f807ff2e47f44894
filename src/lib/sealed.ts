/**
 * Secrets that must outlive a request but never be stored in clear (Git credentials waiting in a
 * job's payload): AES-256-GCM under a key derived from the instance secret. Set QUIRE_SECRET_KEY to
 * keep the key outside the database as well.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

export interface Sealed {
  v: 1;
  iv: string;
  tag: string;
  data: string;
}

function keyFor(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "quire", purpose, 32));
}

export function seal(secret: string, purpose: string, plaintext: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyFor(secret, purpose), iv);
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return { v: 1, iv: iv.toString("base64"), tag: cipher.getAuthTag().toString("base64"), data: data.toString("base64") };
}

/** Opens a sealed value; throws when it was tampered with or sealed under another key. */
export function unseal(secret: string, purpose: string, sealed: Sealed): string {
  const decipher = createDecipheriv("aes-256-gcm", keyFor(secret, purpose), Buffer.from(sealed.iv, "base64"));
  decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64")), decipher.final()]).toString("utf8");
}
