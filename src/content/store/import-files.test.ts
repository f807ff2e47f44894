/** Storing a Git import's files straight from the repository: each read once, in bounded windows. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/db.js";
import { makePng } from "../../../test/helpers/generate-repo.js";
import { type BlobReader, memoryTree } from "../../git/tree.js";
import type { RepoFile } from "../gitbook-repo/types.js";
import { getBlob } from "./blobs.queries.js";
import { blobHash } from "./canonical.js";
import { readWindows, storeRepoFiles } from "./import-files.js";

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
  it("stores each file once under its content hash, measures images, and never asks for more than a window ahead", async () => {
    const contents = new Map<string, Buffer>([
      ["a.png", makePng(4, 3)],
      ["b.bin", Buffer.alloc(3000, 1)],
      ["c.bin", Buffer.alloc(3000, 2)],
      ["same-as-b.bin", Buffer.alloc(3000, 1)],
      ["d.bin", Buffer.alloc(9000, 3)],
    ]);
    const { entries, reader } = memoryTree(contents);
    const requested: number[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const counting: BlobReader = {
      async readBlobs(oids, options) {
        const blobs = await reader.readBlobs(oids, options);
        const bytes = blobs.reduce((n, b) => n + b.length, 0);
        requested.push(...oids.map(() => 1));
        inFlight += bytes;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1));
        inFlight -= bytes;
        return blobs;
      },
    };
    const files: RepoFile[] = entries.map((e) => ({
      path: e.path,
      oid: e.oid,
      size: e.size,
      contentType: e.path.endsWith(".png") ? "image/png" : "application/octet-stream",
    }));
    const stored = await storeRepoFiles(handle.db, counting, files, 6500);
    // b.bin and same-as-b.bin are one blob: read once.
    expect(requested.length).toBe(4);
    // The current window and the next one, never the whole set (17,000+ bytes).
    expect(mostInFlight).toBeLessThanOrEqual(9000 + 6500);
    for (const [path, bytes] of contents) {
      const entry = entries.find((e) => e.path === path);
      const result = stored.get(entry?.oid as string);
      expect(result?.hash).toBe(blobHash(bytes));
      expect(await getBlob(handle.db, blobHash(bytes))).toEqual(bytes);
    }
    expect(stored.get(entries.find((e) => e.path === "a.png")?.oid as string)?.dimensions).toEqual({ width: 4, height: 3 });
  });
});
