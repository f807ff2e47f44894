/** The cache of rendered PDFs: one stored blob per export key (the space's revision and the options). */
import type { Executor } from "../../db/database.js";
import { nowIso } from "../../lib/time.js";

/** The blob of the PDF cached under `key`, if any. */
export async function getPdfExportBlob(db: Executor, key: string): Promise<string | undefined> {
  return (await db.selectFrom("pdfExports").select("blobHash").where("key", "=", key).executeTakeFirst())?.blobHash;
}

export async function putPdfExport(db: Executor, row: { key: string; spaceId: string; blobHash: string }): Promise<void> {
  await db
    .insertInto("pdfExports")
    .values({ ...row, createdAt: nowIso() })
    .onConflict((oc) => oc.column("key").doUpdateSet({ blobHash: row.blobHash, createdAt: nowIso() }))
    .execute();
}
