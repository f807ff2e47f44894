/** Storing a Git import's files straight from the repository: each read once, in bounded windows. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/db.js";
import { makePng } from "../../../test/helpers/generate-repo.js";
import { type BlobReader, memoryTree, readWindows } from "../../git/tree.js";
import type { RepoFile } from "../gitbook-repo/types.js";
import { getBlob } from "./blobs.queries.js";
import { blobHash } from "./canonical.js";
import { storeRepoFiles } from "./import-files.js";

let handle: TestDatabase;
beforeAll(async () => {
  handle = await createTestDatabase();
});
afterAll(() => handle.cleanup());

describe("readWindows", () => {
  it("groups files up to the window's bytes; a larger file is a window of its own", () => {
    const sizes = [10, 20, 50, 5, 200, 30].map((size) => ({ size }));
    expect(readWindows(sizes, 60).map((w) => w.map((f) => f.size))).toEqual([[10, 20], [50, 5], [200], [30]]);
  });
});

describe("storeRepoFiles", () => {
  it("stores each file once under its content hash and measures images, one blob at a time", async () => {
    const contents = new Map<string, Buffer>([
      ["a.png", makePng(4, 3)],
      ["b.bin", Buffer.alloc(3000, 1)],
      ["c.bin", Buffer.alloc(3000, 2)],
      ["same-as-b.bin", Buffer.alloc(3000, 1)],
      ["d.bin", Buffer.alloc(9000, 3)],
    ]);
    const { entries, reader } = memoryTree(contents);
    const visited: string[] = [];
    // Hands every blob in the same buffer, as LocalRepo does, scribbled over once the callback is
    // done: what storeRepoFiles keeps must have been taken before.
    const shared = Buffer.alloc(9000);
    const reusing: BlobReader = {
      readBlobs: () => Promise.reject(new Error("storeRepoFiles reads through forEachBlob")),
      async forEachBlob(blobs, fn) {
        for (const { oid } of blobs) {
          visited.push(oid);
          const [bytes] = await reader.readBlobs([oid]);
          const view = shared.subarray(0, (bytes as Buffer).length);
          (bytes as Buffer).copy(view);
          await fn(oid, view);
          shared.fill(0xee);
        }
      },
    };
    const files: RepoFile[] = entries.map((e) => ({
      path: e.path,
      oid: e.oid,
      size: e.size,
      contentType: e.path.endsWith(".png") ? "image/png" : "application/octet-stream",
    }));
    const stored = await storeRepoFiles(handle.db, reusing, files);
    // b.bin and same-as-b.bin are one blob: read once.
    expect(visited.length).toBe(4);
    for (const [path, bytes] of contents) {
      const entry = entries.find((e) => e.path === path);
      const result = stored.get(entry?.oid as string);
      expect(result?.hash).toBe(blobHash(bytes));
      expect(await getBlob(handle.db, blobHash(bytes))).toEqual(bytes);
    }
    expect(stored.get(entries.find((e) => e.path === "a.png")?.oid as string)?.dimensions).toEqual({ width: 4, height: 3 });
  });
});
