/**
 * Storing the files of a Git import straight from the repository: each file is read once from
 * Git (`BlobReader.forEachBlob`), hashed, measured (images) and written to the blob store, one at
 * a time, into a buffer reused from one file to the next: the import's memory is bounded by the
 * reader's window or the largest single file, not by the repository's assets.
 */
import type { Executor } from "../../db/database.js";
import type { BlobReader } from "../../git/tree.js";
import type { StoredFile } from "../git-sync/import-content.js";
import { hasDimensions, imageDimensions } from "../gitbook-repo/media.js";
import type { RepoFile } from "../gitbook-repo/types.js";
import { putBlob } from "./blobs.queries.js";

/**
 * Stores `files` (outside any transaction: stored by content hash, a file stored by an import that
 * then fails is harmless and reused by a retry) and answers their hashes and image dimensions by
 * blob id.
 */
export async function storeRepoFiles(db: Executor, reader: BlobReader, files: readonly RepoFile[]): Promise<Map<string, StoredFile>> {
  const stored = new Map<string, StoredFile>();
  const byOid = new Map<string, RepoFile>();
  for (const file of files) if (!byOid.has(file.oid)) byOid.set(file.oid, file);
  await reader.forEachBlob([...byOid.values()], async (oid, bytes) => {
    const file = byOid.get(oid) as RepoFile;
    // The bytes are reused for the next file: hashed, measured and bound to the insert before that.
    const { hash } = await putBlob(db, bytes);
    stored.set(oid, { hash, dimensions: hasDimensions(file.contentType) ? imageDimensions(bytes) : undefined });
  });
  return stored;
}
