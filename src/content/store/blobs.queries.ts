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

/**
 * Stores the files of an import (`ImportedContent.blobs`), reading them one at a time. A file whose
 * bytes no longer hash as they did when the import read them is refused: the revision would
 * otherwise name bytes that were never stored.
 */
export async function storeImportedBlobs(db: Executor, blobs: ReadonlyMap<string, () => Promise<Buffer>>): Promise<void> {
  for (const [hash, read] of blobs) {
    const stored = await putBlob(db, await read());
    if (stored.hash !== hash) throw new Error(`An imported file changed while it was imported (expected ${hash}, read ${stored.hash})`);
  }
}
