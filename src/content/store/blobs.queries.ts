/** File bytes, stored once per distinct content. */
import type { Executor } from "../../db/database.js";
import { nowIso } from "../../lib/time.js";
import { blobHash } from "./canonical.js";

export async function putBlob(db: Executor, bytes: Buffer): Promise<{ hash: string; size: number }> {
  const hash = blobHash(bytes);
  await db
    .insertInto("contentBlobs")
    .values({ hash, size: bytes.length, data: bytes, createdAt: nowIso() })
    .onConflict((oc) => oc.column("hash").doNothing())
    .execute();
  return { hash, size: bytes.length };
}

export async function getBlob(db: Executor, hash: string): Promise<Buffer | undefined> {
  const row = await db.selectFrom("contentBlobs").select("data").where("hash", "=", hash).executeTakeFirst();
  return row ? Buffer.from(row.data) : undefined;
}

export async function hasBlob(db: Executor, hash: string): Promise<boolean> {
  return !!(await db.selectFrom("contentBlobs").select("hash").where("hash", "=", hash).executeTakeFirst());
}
