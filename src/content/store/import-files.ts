/**
 * Storing the files of a Git import straight from the repository: each file is read once from
 * `git cat-file --batch`, hashed, measured (images) and written to the blob store, then dropped.
 * Reads go ahead in windows of a bounded number of bytes, so the import's memory is bounded by
 * the window or the largest single file, whichever is larger, not by the repository's assets.
 */
import type { Executor } from "../../db/database.js";
import type { BlobReader } from "../../git/tree.js";
import type { StoredFile } from "../git-sync/import-content.js";
import { hasDimensions, imageDimensions } from "../gitbook-repo/media.js";
import type { RepoFile } from "../gitbook-repo/types.js";
import { putBlob } from "./blobs.queries.js";

/**
 * Bytes requested from Git at once; a file larger than this is read alone. Two windows are in
 * memory at a time (one stored while the next is read), and their buffers are malloc'd memory the
 * process rarely gives back: 4 MB rather than 32 keeps that off the import's peak, with the same
 * number of cat-file processes (one) and a round trip per window.
 */
export const READ_WINDOW_BYTES = 4 * 1024 * 1024;

/** Splits `files` into consecutive windows of at most `windowBytes` (a larger file is a window of its own). */
export function readWindows<T extends { size: number }>(files: readonly T[], windowBytes = READ_WINDOW_BYTES): T[][] {
  const windows: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const file of files) {
    if (current.length > 0 && bytes + file.size > windowBytes) {
      windows.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += file.size;
  }
  if (current.length > 0) windows.push(current);
  return windows;
}

/**
 * Stores `files` (outside any transaction: stored by content hash, a file stored by an import that
 * then fails is harmless and reused by a retry) and answers their hashes and image dimensions by
 * blob id. The next window is read from Git while the current one is written.
 */
export async function storeRepoFiles(
  db: Executor,
  reader: BlobReader,
  files: readonly RepoFile[],
  windowBytes = READ_WINDOW_BYTES,
): Promise<Map<string, StoredFile>> {
  const stored = new Map<string, StoredFile>();
  const byOid = new Map<string, RepoFile>();
  for (const file of files) if (!byOid.has(file.oid)) byOid.set(file.oid, file);
  const windows = readWindows([...byOid.values()], windowBytes);
  const read = (window: RepoFile[] | undefined) => {
    if (!window) return undefined;
    const pending = reader.readBlobs(window.map((f) => f.oid));
    // Awaited on the next turn; until then a failure must not count as unhandled.
    pending.catch(() => undefined);
    return pending;
  };
  let next = read(windows[0]);
  for (let i = 0; i < windows.length; i++) {
    const window = windows[i] as RepoFile[];
    const bytes: (Buffer | undefined)[] = await (next as Promise<Buffer[]>);
    next = read(windows[i + 1]);
    for (let j = 0; j < window.length; j++) {
      const file = window[j] as RepoFile;
      const data = bytes[j] as Buffer;
      bytes[j] = undefined;
      const { hash } = await putBlob(db, data);
      stored.set(file.oid, { hash, dimensions: hasDimensions(file.contentType) ? imageDimensions(data) : undefined });
    }
  }
  return stored;
}
