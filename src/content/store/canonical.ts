import { createHash } from "node:crypto";

/**
 * JSON with object keys sorted at every level, so equal values always give equal text and hash.
 * `undefined` properties are dropped, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** Address of a stored object: SHA-256 of its kind and canonical JSON (kinds never collide). */
export function objectHash(kind: string, json: string): string {
  return createHash("sha256").update(kind).update("\0").update(json).digest("hex");
}

export function blobHash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
