/** Storing an import's files: one at a time, each under the hash the import computed. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/db.js";
import { getBlob, storeImportedBlobs } from "./blobs.queries.js";
import { blobHash } from "./canonical.js";

let handle: TestDatabase;
beforeAll(async () => {
  handle = await createTestDatabase();
});
afterAll(() => handle.cleanup());

describe("storeImportedBlobs", () => {
  it("reads and stores the files one at a time, each retrievable by its hash", async () => {
    const files = ["first file", "second file", "third file"].map((text) => Buffer.from(text));
    let reading = 0;
    let mostAtOnce = 0;
    const blobs = new Map(
      files.map((bytes) => [
        blobHash(bytes),
        async () => {
          mostAtOnce = Math.max(mostAtOnce, ++reading);
          await new Promise((resolve) => setTimeout(resolve, 1));
          reading--;
          return bytes;
        },
      ]),
    );
    await storeImportedBlobs(handle.db, blobs);
    expect(mostAtOnce).toBe(1);
    for (const bytes of files) expect(await getBlob(handle.db, blobHash(bytes))).toEqual(bytes);
  });

  it("refuses a file whose bytes no longer match the hash the import recorded", async () => {
    const recorded = blobHash(Buffer.from("as imported"));
    const blobs = new Map([[recorded, async () => Buffer.from("changed since")]]);
    await expect(storeImportedBlobs(handle.db, blobs)).rejects.toThrow(/changed while it was imported/);
    expect(await getBlob(handle.db, recorded)).toBeUndefined();
  });
});
