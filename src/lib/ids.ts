import { hash, randomFillSync, timingSafeEqual } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Random base62 string; each character carries log2(62) ≈ 5.95 bits. */
/** Random bytes drawn from the system's CSPRNG 4 KB at a time: one call per id cost more than the id (profiled on block keys). */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++] as number;
}

export function randomBase62(length: number): string {
  // Rejection sampling keeps the distribution uniform (256 is not a multiple of 62).
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

/** Opaque object id: 20 base62 characters (~119 bits), unguessable and URL-safe. */
export function newId(): string {
  return randomBase62(20);
}

/** Prefix that marks Quire API tokens, so scanners can recognise leaked ones. */
export const TOKEN_PREFIX = "qr_";

/** A new API token: 40 base62 characters (~238 bits) after the prefix. Shown once, stored hashed. */
export function newApiToken(): string {
  return TOKEN_PREFIX + randomBase62(40);
}

/** SHA-256 of a token, the only form in which tokens are stored. */
export function hashToken(token: string): string {
  return hash("sha256", token, "hex");
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
