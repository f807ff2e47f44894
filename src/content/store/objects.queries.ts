/**
 * Immutable, content-addressed JSON objects. Because an object never changes once written, any
 * process may cache it forever by hash: the cache below is correct across processes and machines.
 */
import { LRUCache } from "lru-cache";
import type { Executor } from "../../db/database.js";
import { nowIso } from "../../lib/time.js";
import { canonicalJson, objectHash } from "./canonical.js";

export type ObjectKind = "document" | "pages" | "files" | "reusable-contents" | "root";

export interface PreparedObject {
  hash: string;
  kind: ObjectKind;
  json: string;
}

// Parsed objects by hash, bounded by the total length of their JSON text (~64 MB).
const cache = new LRUCache<string, { value: unknown; size: number }>({
  maxSize: 64 * 1024 * 1024,
  sizeCalculation: (entry) => Math.max(1, entry.size),
});

function remember(hash: string, json: string, value: unknown): void {
  cache.set(hash, { value, size: json.length });
}

/** Computes an object's address without writing it. */
export function prepareObject(kind: ObjectKind, value: unknown): PreparedObject {
  const json = canonicalJson(value);
  return { hash: objectHash(kind, json), kind, json };
}

/** Writes objects that are not stored yet (a no-op for those that are); returns nothing new. */
export async function putObjects(db: Executor, objects: PreparedObject[]): Promise<void> {
  const unique = new Map(objects.map((o) => [o.hash, o]));
  const now = nowIso();
  const rows = [...unique.values()].map((o) => ({ hash: o.hash, kind: o.kind, data: o.json, createdAt: now }));
  // Chunks keep each statement under SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto("contentObjects")
      .values(rows.slice(i, i + 200))
      .onConflict((oc) => oc.column("hash").doNothing())
      .execute();
  }
}

/** Reads objects by hash (cached). Missing hashes are absent from the result. */
export async function getObjects<T>(db: Executor, hashes: Iterable<string>): Promise<Map<string, T>> {
  const result = new Map<string, T>();
  const missing: string[] = [];
  for (const hash of new Set(hashes)) {
    const hit = cache.get(hash);
    if (hit) result.set(hash, hit.value as T);
    else missing.push(hash);
  }
  for (let i = 0; i < missing.length; i += 500) {
    const rows = await db
      .selectFrom("contentObjects")
      .select(["hash", "data"])
      .where("hash", "in", missing.slice(i, i + 500))
      .execute();
    for (const row of rows) {
      const value = JSON.parse(row.data) as T;
      remember(row.hash, row.data, value);
      result.set(row.hash, value);
    }
  }
  return result;
}

/** The stored JSON text of objects by hash, unparsed (to hand to a worker thread). Missing hashes are absent. */
export async function getObjectsJson(db: Executor, hashes: Iterable<string>): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  const wanted = [...new Set(hashes)];
  for (let i = 0; i < wanted.length; i += 100) {
    const rows = await db
      .selectFrom("contentObjects")
      .select(["hash", "data"])
      .where("hash", "in", wanted.slice(i, i + 100))
      .execute();
    for (const row of rows) result.set(row.hash, row.data);
  }
  return result;
}

/** The stored JSON text of an object, unparsed (to hand to a worker thread). */
export async function getObjectJson(db: Executor, hash: string): Promise<string | undefined> {
  const row = await db.selectFrom("contentObjects").select("data").where("hash", "=", hash).executeTakeFirst();
  return row?.data;
}

export async function getObject<T>(db: Executor, hash: string): Promise<T | undefined> {
  return (await getObjects<T>(db, [hash])).get(hash);
}
