import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/db.js";
import type { PageNode, RevisionContent } from "./model.js";
import { indexPages } from "./model.js";
import { documentHashOf, loadContent, loadDocument, saveContent, saveDocument } from "./storage.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.cleanup());

const now = "2026-01-01T00:00:00.000Z";
function page(id: string, children: PageNode[] = [], extra: Partial<PageNode> = {}): PageNode {
  return { id, kind: "document", title: `Title ${id}`, slug: id, createdAt: now, updatedAt: now, children, ...extra };
}

async function countRows(): Promise<number> {
  const row = await db.db
    .selectFrom("contentObjects")
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe("revision content storage", () => {
  it("round-trips a nested tree, files, reusable contents and variables", async () => {
    const doc = { object: "document", data: {}, nodes: [{ object: "block", type: "paragraph", key: "k1", nodes: [] }] };
    const documentHash = await saveDocument(db.db, doc);
    const content: RevisionContent = {
      pages: [page("a", [page("a1"), page("a2", [page("a2x")])], { documentHash }), page("b", [], { kind: "group" })],
      files: [{ id: "f1", name: "x.png", contentType: "image/png", size: 3, blobHash: "h", dimensions: { width: 1, height: 2 } }],
      reusableContents: [{ id: "r1", title: "Snippet", documentHash }],
      variables: { version: "1.2" },
    };
    const root = await saveContent(db.db, content);
    expect(await loadContent(db.db, root)).toEqual(content);
    expect(await loadDocument(db.db, documentHash)).toEqual(doc);
    expect(documentHashOf(doc)).toBe(documentHash);
  });

  it("gives equal content the same root, whatever the key order", async () => {
    const a = await saveContent(db.db, { pages: [page("p")], files: [], reusableContents: [], variables: { x: "1", y: "2" } });
    const b = await saveContent(db.db, { pages: [page("p")], files: [], reusableContents: [], variables: { y: "2", x: "1" } });
    expect(a).toBe(b);
  });

  it("writes only the changed path when one page of a 1,000-page space changes", async () => {
    // 20 sections of 50 pages each.
    const build = (edited?: string): RevisionContent => ({
      pages: Array.from({ length: 20 }, (_, s) =>
        page(
          `s${s}`,
          Array.from({ length: 49 }, (_, p) => page(`s${s}p${p}`, [], p === 7 && s === 3 && edited ? { documentHash: edited } : {})),
        ),
      ),
      files: [],
      reusableContents: [],
      variables: {},
    });
    const first = await saveContent(db.db, build());
    const before = await countRows();
    const documentHash = await saveDocument(db.db, { object: "document", data: {}, nodes: [] });
    const second = await saveContent(db.db, build(documentHash));
    const written = (await countRows()) - before;
    // the document, the edited section's child list, the top-level list and the root
    expect(written).toBe(4);
    expect(second).not.toBe(first);
    const loaded = await loadContent(db.db, second);
    expect(indexPages(loaded.pages).size).toBe(1000);
    expect(indexPages(loaded.pages).get("s3p7")?.page.documentHash).toBe(documentHash);
    expect(indexPages(loaded.pages).get("s3p7")?.path).toBe("s3/s3p7");
  });

  it("loads the empty revision as empty content", async () => {
    expect(await loadContent(db.db, null)).toEqual({ pages: [], files: [], reusableContents: [], variables: {} });
  });
});
