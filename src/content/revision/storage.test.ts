import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/db.js";
import { DomainError } from "../../lib/errors.js";
import { prepareObject, putObjects } from "../store/objects.queries.js";
import type { PageNode, RevisionContent } from "./model.js";
import { flattenBelowMaxDepth, indexPages, MAX_PAGE_DEPTH, pageTreeDepth } from "./model.js";
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

  /** A chain of pages `depth` levels deep: p1 > p2 > ... */
  const chain = (depth: number): PageNode[] => {
    let pages: PageNode[] = [];
    for (let level = depth; level >= 1; level--) pages = [page(`p${level}`, pages)];
    return pages;
  };

  it(`stores a page tree ${MAX_PAGE_DEPTH} levels deep, and refuses one deeper, whoever writes it`, async () => {
    const deepest = { pages: chain(MAX_PAGE_DEPTH), files: [], reusableContents: [], variables: {} };
    expect(pageTreeDepth(deepest.pages)).toBe(MAX_PAGE_DEPTH);
    expect(await loadContent(db.db, await saveContent(db.db, deepest))).toEqual(deepest);
    const tooDeep = { pages: chain(300), files: [], reusableContents: [], variables: {} };
    const error = await saveContent(db.db, tooDeep).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({
      kind: "invalid",
      message: `The page tree would be 300 levels deep; pages can be nested at most ${MAX_PAGE_DEPTH} levels (a page and its subpages, their subpages...).`,
    });
  });

  it("reads a tree stored deeper than the bound (before it existed) flattened to it, every page kept in reading order", async () => {
    // Stored object by object, as the store did before it refused such trees.
    let below: string | undefined;
    const objects = [];
    for (let level = 300; level >= 1; level--) {
      const { children: _, ...meta } = page(`p${level}`);
      const object = prepareObject("pages", { entries: [{ ...meta, ...(below ? { children: below } : {}) }] });
      objects.push(object);
      below = object.hash;
    }
    const files = prepareObject("files", { entries: [] });
    const reusable = prepareObject("reusable-contents", { entries: [] });
    const root = prepareObject("root", { pages: below, files: files.hash, reusableContents: reusable.hash, variables: {} });
    await putObjects(db.db, [...objects, files, reusable, root]);

    const loaded = await loadContent(db.db, root.hash);
    expect(pageTreeDepth(loaded.pages)).toBe(MAX_PAGE_DEPTH);
    const index = indexPages(loaded.pages);
    expect(index.size).toBe(300);
    expect([...index.keys()]).toEqual(Array.from({ length: 300 }, (_, i) => `p${i + 1}`));
    // The 50th level holds p50 and, after it, every page that was below it.
    expect(index.get("p49")?.page.children.map((p) => p.id)).toEqual(Array.from({ length: 251 }, (_, i) => `p${i + 50}`));
    expect(index.get("p300")?.parentId).toBe("p49");
    // It can be written back: an edit or an import of such a space repairs it.
    expect(await saveContent(db.db, { ...loaded, pages: structuredClone(loaded.pages) })).toMatch(/\w/);
  });

  it("flattens in place only what lies below the bound", () => {
    const pages = [page("a", [page("b")]), ...chain(MAX_PAGE_DEPTH + 2)];
    flattenBelowMaxDepth(pages);
    expect(pages[0]).toEqual(page("a", [page("b")]));
    expect(pageTreeDepth(pages)).toBe(MAX_PAGE_DEPTH);
    const index = indexPages(pages);
    expect(index.get(`p${MAX_PAGE_DEPTH + 2}`)?.parentId).toBe(`p${MAX_PAGE_DEPTH - 1}`);
    expect(index.get(`p${MAX_PAGE_DEPTH + 2}`)?.index).toBe(2);
  });

  it("loads the empty revision as empty content", async () => {
    expect(await loadContent(db.db, null)).toEqual({ pages: [], files: [], reusableContents: [], variables: {} });
  });
});
