import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { JSONDocument as SpecDocument } from "@gitbook/api";
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import type { PageMeta, PageNode, RevisionContent } from "../revision/model.js";
import { documentHashOf } from "../revision/storage.js";
import {
  allPages,
  blocksByKey,
  content,
  doc,
  DocumentStore,
  editDocument,
  findPage,
  getPage,
  heading,
  hint,
  list,
  listItem,
  page,
  paragraph,
  Random,
  randomContent,
  randomEdits,
  tab,
  tabs,
  text,
} from "./fixtures.js";
import { mergeContent } from "./merge.js";
import type { JSONDocument, MergeResult } from "./types.js";

const LATER = "2026-03-01T00:00:00.000Z";

function setup() {
  const store = new DocumentStore();
  const a = store.put(doc(heading("a1", "Intro"), paragraph("a2", "First"), paragraph("a3", "Second"), paragraph("a4", "Third")));
  const base = content(
    [
      page("a", { documentHash: a }),
      page("b", { documentHash: store.put(doc(paragraph("b1", "B"))) }),
      page("c", {
        kind: "group",
        children: [page("c1", { documentHash: store.put(doc(paragraph("c1x", "C1"))) }), page("c2", { documentHash: store.put(doc(paragraph("c2x", "C2"))) })],
      }),
    ],
    {
      files: [{ id: "f1", name: "logo.png", contentType: "image/png", size: 10, blobHash: "blob-1" }],
      reusableContents: [{ id: "r1", title: "Snippet", documentHash: store.put(doc(paragraph("r1a", "One"), paragraph("r1b", "Two"))) }],
      variables: { version: "1.0", product: "Quire" },
    },
  );
  return { store, base };
}

function clone(value: RevisionContent): RevisionContent {
  return structuredClone(value);
}

async function merge(store: DocumentStore, base: RevisionContent, ours: RevisionContent, theirs: RevisionContent, pageBase?: (id: string) => PageMeta | undefined) {
  const result = await mergeContent({ base, ours, theirs, loadDocument: store.load, pageBase });
  store.addAll(result.documents);
  return result;
}

function pageDocument(store: DocumentStore, result: MergeResult, id: string): JSONDocument {
  return store.get(getPage(result.content.pages, id).documentHash!);
}

function editPage(store: DocumentStore, c: RevisionContent, id: string, edit: (d: JSONDocument) => void): void {
  const target = getPage(c.pages, id);
  target.documentHash = editDocument(store, target.documentHash, edit);
  target.updatedAt = LATER;
}

function setText(d: JSONDocument, key: string, value: string): void {
  blocksByKey(d).get(key)!.nodes = [text(value)];
}

function textOf(block: unknown): string {
  const nodes = (block as { nodes: { leaves: { text: string }[] }[] }).nodes;
  return nodes.map((n) => n.leaves.map((l) => l.text).join("")).join("");
}

function keys(d: JSONDocument): string[] {
  return (d.nodes as { key: string }[]).map((n) => n.key);
}

function ids(pages: PageNode[]): string[] {
  return pages.map((p) => p.id);
}

function move(c: RevisionContent, id: string, parent: string | null, index: number): void {
  const found = findPage(c.pages, id)!;
  found.siblings.splice(found.index, 1);
  const siblings = parent === null ? c.pages : getPage(c.pages, parent).children;
  siblings.splice(index, 0, found.page);
}

function remove(c: RevisionContent, id: string): void {
  const found = findPage(c.pages, id)!;
  found.siblings.splice(found.index, 1);
}

describe("mergeContent: pages", () => {
  it("keeps pages added on either side, in the places each side put them", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    ours.pages.splice(1, 0, page("o1"));
    const theirs = clone(base);
    getPage(theirs.pages, "c").children.push(page("t1"));
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    expect(ids(result.content.pages)).toEqual(["a", "o1", "b", "c"]);
    expect(ids(getPage(result.content.pages, "c").children)).toEqual(["c1", "c2", "t1"]);
  });

  it("removes a page removed on one side and untouched on the other; both sides removing it is fine", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    remove(ours, "b");
    const theirs = clone(base);
    remove(theirs, "c1");
    remove(theirs, "b");
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    expect(allPages(result.content.pages).map((p) => p.id)).toEqual(["a", "c", "c2"]);
  });

  it("moves a page to another parent on one side and edits it on the other: moved and edited", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    move(ours, "b", "c", 1);
    const theirs = clone(base);
    editPage(store, theirs, "b", (d) => setText(d, "b1", "B edited"));
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    expect(ids(getPage(result.content.pages, "c").children)).toEqual(["c1", "b", "c2"]);
    expect(getPage(result.content.pages, "b").documentHash).toBe(getPage(theirs.pages, "b").documentHash);
    expect(getPage(result.content.pages, "b").updatedAt).toBe(LATER);
  });

  it("reorders siblings on one side and edits one of them on the other", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    editPage(store, ours, "c2", (d) => setText(d, "c2x", "C2 edited"));
    const theirs = clone(base);
    move(theirs, "c2", "c", 0);
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    expect(ids(getPage(result.content.pages, "c").children)).toEqual(["c2", "c1"]);
    expect(textOf(pageDocument(store, result, "c2").nodes[0])).toBe("C2 edited");
  });

  it("renames a page (title and slug) on one side and edits it on the other: both", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    editPage(store, ours, "a", (d) => setText(d, "a2", "First, edited"));
    const theirs = clone(base);
    Object.assign(getPage(theirs.pages, "a"), { title: "Getting started", slug: "getting-started" });
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    const merged = getPage(result.content.pages, "a");
    expect([merged.title, merged.slug]).toEqual(["Getting started", "getting-started"]);
    expect(merged.documentHash).toBe(getPage(ours.pages, "a").documentHash);
  });

  it("merges metadata field by field, including nested layout fields", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    Object.assign(getPage(ours.pages, "a"), { emoji: "1f680", layout: { ...defaultLayout(), width: "wide" } });
    const theirs = clone(base);
    Object.assign(getPage(theirs.pages, "a"), { description: "All about A", hidden: true, layout: { ...defaultLayout(), outline: false } });
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    const merged = getPage(result.content.pages, "a");
    expect(merged).toMatchObject({ emoji: "1f680", description: "All about A", hidden: true });
    expect(merged.layout).toEqual({ ...defaultLayout(), width: "wide", outline: false });
    // A layout set on one side only is that side's, whatever the other side edits.
    delete getPage(ours.pages, "a").layout;
    const oneSided = await merge(store, base, ours, theirs);
    expect(oneSided.conflicts).toEqual([]);
    expect(getPage(oneSided.content.pages, "a").layout).toEqual({ ...defaultLayout(), outline: false });
  });

  it("reports the same field changed differently on both sides, with both page versions, and keeps ours", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    getPage(ours.pages, "b").title = "Ours";
    const theirs = clone(base);
    getPage(theirs.pages, "b").title = "Theirs";
    getPage(theirs.pages, "b").emoji = "2705";
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toHaveLength(1);
    expect(result.conflicts[0]).toMatchObject({ kind: "page", pageId: "b", field: "title" });
    expect((result.conflicts[0]!.ours as PageMeta).title).toBe("Ours");
    expect((result.conflicts[0]!.theirs as PageMeta).title).toBe("Theirs");
    expect((result.conflicts[0]!.base as PageMeta).title).toBe("Page b");
    expect(getPage(result.content.pages, "b")).toMatchObject({ title: "Ours", emoji: "2705" });
  });

  it("does not conflict on bookkeeping fields: updatedAt takes the later edit", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    Object.assign(getPage(ours.pages, "b"), { emoji: "1f680", updatedAt: "2026-02-01T00:00:00.000Z" });
    const theirs = clone(base);
    Object.assign(getPage(theirs.pages, "b"), { description: "d", updatedAt: "2026-02-05T00:00:00.000Z" });
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    expect(getPage(result.content.pages, "b").updatedAt).toBe("2026-02-05T00:00:00.000Z");
  });

  it("merges sibling insertions made by both sides at different places", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    ours.pages.splice(0, 0, page("o1"));
    const theirs = clone(base);
    theirs.pages.splice(2, 0, page("t1"));
    theirs.pages.push(page("t2"));
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    expect(ids(result.content.pages)).toEqual(["o1", "a", "b", "t1", "c", "t2"]);
  });

  it("keeps both pages inserted at the same position by both sides, in an order that does not depend on the side", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    ours.pages.splice(1, 0, page("zz-ours"), page("zz-ours-2"));
    const theirs = clone(base);
    theirs.pages.splice(1, 0, page("mm-theirs"));
    const one = await merge(store, base, ours, theirs);
    const other = await merge(store, base, theirs, ours);
    expect(one.conflicts).toEqual([]);
    expect(ids(one.content.pages)).toEqual(["a", "mm-theirs", "zz-ours", "zz-ours-2", "b", "c"]);
    expect(ids(other.content.pages)).toEqual(ids(one.content.pages));
  });

  it("reports a page moved to different parents by both sides, and keeps ours' place", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    move(ours, "b", "c", 0);
    const theirs = clone(base);
    move(theirs, "b", "a", 0);
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([
      expect.objectContaining({ kind: "move", pageId: "b", base: { parentId: null, index: 1 }, ours: { parentId: "c", index: 0 }, theirs: { parentId: "a", index: 0 } }),
    ]);
    expect(ids(getPage(result.content.pages, "c").children)).toEqual(["b", "c1", "c2"]);
    expect(getPage(result.content.pages, "a").children).toEqual([]);
  });

  it("reports a page deleted on one side and edited on the other, with both versions; content keeps ours", async () => {
    const { store, base } = setup();
    const edited = clone(base);
    editPage(store, edited, "b", (d) => setText(d, "b1", "B edited"));
    const deleted = clone(base);
    remove(deleted, "b");

    const theirsDeletes = await merge(store, base, edited, deleted);
    expect(theirsDeletes.conflicts).toEqual([expect.objectContaining({ kind: "delete-edit", pageId: "b", theirs: undefined })]);
    expect(theirsDeletes.conflicts[0]!.ours).toMatchObject({ id: "b", documentHash: getPage(edited.pages, "b").documentHash });
    expect(theirsDeletes.conflicts[0]!.base).toMatchObject({ id: "b", documentHash: getPage(base.pages, "b").documentHash });
    expect(findPage(theirsDeletes.content.pages, "b")).toBeDefined();

    const oursDeletes = await merge(store, base, deleted, edited);
    expect(oursDeletes.conflicts).toEqual([expect.objectContaining({ kind: "delete-edit", pageId: "b", ours: undefined })]);
    expect(oursDeletes.conflicts[0]!.theirs).toMatchObject({ documentHash: getPage(edited.pages, "b").documentHash });
    expect(findPage(oursDeletes.content.pages, "b")).toBeUndefined();
  });

  it("reports a page deleted on one side and moved to another parent on the other", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    remove(ours, "b");
    const theirs = clone(base);
    move(theirs, "b", "c", 2);
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([expect.objectContaining({ kind: "delete-edit", pageId: "b" })]);
  });

  it("lets a deletion win over a mere change of sibling position", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    remove(ours, "c2");
    const theirs = clone(base);
    move(theirs, "c2", "c", 0);
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    expect(ids(getPage(result.content.pages, "c").children)).toEqual(["c1"]);
  });

  it("reports a section deleted on one side while the other adds a page inside it, and never leaves an orphan", async () => {
    const { store, base } = setup();
    const deleted = clone(base);
    remove(deleted, "c");
    const added = clone(base);
    getPage(added.pages, "c").children.push(page("new"));

    const oursDeletes = await merge(store, base, deleted, added);
    expect(oursDeletes.conflicts).toEqual([expect.objectContaining({ kind: "delete-edit", pageId: "c" })]);
    expect(oursDeletes.conflicts[0]!.message).toContain("new");
    expect(allPages(oursDeletes.content.pages).map((p) => p.id)).toEqual(["a", "b"]);

    // The primary's new page keeps its section (the section comes back as the primary has it).
    const theirsDeletes = await merge(store, base, added, deleted);
    expect(theirsDeletes.conflicts).toEqual([expect.objectContaining({ kind: "delete-edit", pageId: "c" })]);
    expect(ids(getPage(theirsDeletes.content.pages, "c").children)).toContain("new");
  });

  it("reports the same slug added under the same parent by both sides (duplicate path)", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    getPage(ours.pages, "c").children.push(page("o-faq", { slug: "faq", title: "FAQ" }));
    const theirs = clone(base);
    getPage(theirs.pages, "c").children.push(page("t-faq", { slug: "faq", title: "Questions" }));
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([expect.objectContaining({ kind: "path", pageId: "t-faq", field: "slug" })]);
    expect(result.conflicts[0]!.message).toContain('"c/faq"');
    expect((result.conflicts[0]!.ours as PageMeta).id).toBe("o-faq");
    expect((result.conflicts[0]!.theirs as PageMeta).id).toBe("t-faq");
  });

  it("reports a rename that makes a slug collide with a page the other side added", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    ours.pages.push(page("o-new", { slug: "guide" }));
    const theirs = clone(base);
    getPage(theirs.pages, "b").slug = "guide";
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([expect.objectContaining({ kind: "path", pageId: "b" })]);
  });

  it("does not report duplicate paths that already existed on one side", async () => {
    const { store } = setup();
    const base = content([page("x", { slug: "same" }), page("y", { slug: "same" })]);
    const theirs = clone(base);
    theirs.pages.push(page("z"));
    const result = await merge(store, base, clone(base), theirs);
    expect(result.conflicts).toEqual([]);
  });

  it("reports a cycle made by both sides' moves (each side moves one page under the other) and keeps a tree", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    move(ours, "a", "b", 0);
    const theirs = clone(base);
    move(theirs, "b", "a", 0);
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([expect.objectContaining({ kind: "move", pageId: "b" })]);
    // Ours' tree wins for the pages on the cycle: a under b, b at the root.
    expect(ids(result.content.pages)).toEqual(["b", "c"]);
    expect(ids(getPage(result.content.pages, "b").children)).toEqual(["a"]);
    expect(allPages(result.content.pages)).toHaveLength(5);
  });

  it("reports a deeper cycle through descendants", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    move(ours, "c", "a", 0);
    const theirs = clone(base);
    move(theirs, "a", "c1", 0);
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts.map((c) => [c.kind, c.pageId])).toEqual([["move", "a"]]);
    const all = allPages(result.content.pages).map((p) => p.id);
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(["a", "b", "c", "c1", "c2"]);
  });

  it("applies a recorded resolution through pageBase: the chosen side's change merges cleanly", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    getPage(ours.pages, "b").title = "Ours";
    const theirs = clone(base);
    getPage(theirs.pages, "b").title = "Theirs";
    expect((await merge(store, base, ours, theirs)).conflicts).toHaveLength(1);
    // "Take the change request's title": the primary's version becomes the page's base.
    const { children: _children, ...oursMeta } = getPage(ours.pages, "b");
    const resolved = await merge(store, base, ours, theirs, (id) => (id === "b" ? oursMeta : undefined));
    expect(resolved.conflicts).toEqual([]);
    expect(getPage(resolved.content.pages, "b").title).toBe("Theirs");
  });
});

describe("mergeContent: blocks", () => {
  it("merges edits of different blocks of the same page into a new stored document", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    editPage(store, ours, "a", (d) => setText(d, "a2", "First (primary)"));
    const theirs = clone(base);
    editPage(store, theirs, "a", (d) => setText(d, "a4", "Third (change request)"));
    const result = await mergeContent({ base, ours, theirs, loadDocument: store.load });
    expect(result.conflicts).toEqual([]);
    const hash = getPage(result.content.pages, "a").documentHash!;
    const merged = result.documents.get(hash)!;
    expect(hash).toBe(documentHashOf(merged));
    expect(result.documents.size).toBe(1);
    const blocks = blocksByKey(merged);
    expect(textOf(blocks.get("a2"))).toBe("First (primary)");
    expect(textOf(blocks.get("a4"))).toBe("Third (change request)");
    expect(keys(merged)).toEqual(["a1", "a2", "a3", "a4"]);
  });

  it("reports the same block edited differently on both sides, with the three versions, and keeps ours", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    editPage(store, ours, "a", (d) => {
      setText(d, "a3", "Second (primary)");
      setText(d, "a2", "untouched by theirs");
    });
    const theirs = clone(base);
    editPage(store, theirs, "a", (d) => setText(d, "a3", "Second (change request)"));
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([expect.objectContaining({ kind: "block", pageId: "a", blockKey: "a3", field: "nodes" })]);
    const conflict = result.conflicts[0]!;
    expect([textOf(conflict.base), textOf(conflict.ours), textOf(conflict.theirs)]).toEqual(["Second", "Second (primary)", "Second (change request)"]);
    const merged = blocksByKey(pageDocument(store, result, "a"));
    expect(textOf(merged.get("a3"))).toBe("Second (primary)");
    expect(textOf(merged.get("a2"))).toBe("untouched by theirs");
  });

  it("accepts the same edit made on both sides", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    editPage(store, ours, "a", (d) => {
      setText(d, "a3", "Same");
      setText(d, "a2", "ours only");
    });
    const theirs = clone(base);
    editPage(store, theirs, "a", (d) => {
      setText(d, "a3", "Same");
      (d.nodes as unknown[]).push(paragraph("t-new", "theirs only"));
    });
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    const merged = pageDocument(store, result, "a");
    expect(keys(merged)).toEqual(["a1", "a2", "a3", "a4", "t-new"]);
    expect(textOf(blocksByKey(merged).get("a3"))).toBe("Same");
  });

  it("combines insertions and deletions made by both sides in different places", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    editPage(store, ours, "a", (d) => {
      (d.nodes as unknown[]).splice(1, 0, paragraph("o-new", "ours"));
      (d.nodes as unknown[]).splice(4, 1); // a4
    });
    const theirs = clone(base);
    editPage(store, theirs, "a", (d) => {
      (d.nodes as unknown[]).splice(2, 1); // a3
      (d.nodes as unknown[]).push(paragraph("t-new", "theirs"));
    });
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    expect(keys(pageDocument(store, result, "a"))).toEqual(["a1", "o-new", "a2", "t-new"]);
  });

  it("keeps both blocks inserted at the same position on both sides, in a side-independent order", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    editPage(store, ours, "a", (d) => void (d.nodes as unknown[]).splice(2, 0, paragraph("x-ours", "ours")));
    const theirs = clone(base);
    editPage(store, theirs, "a", (d) => void (d.nodes as unknown[]).splice(2, 0, paragraph("k-theirs", "theirs")));
    const one = await merge(store, base, ours, theirs);
    const other = await merge(store, base, theirs, ours);
    expect(one.conflicts).toEqual([]);
    expect(keys(pageDocument(store, one, "a"))).toEqual(["a1", "a2", "k-theirs", "x-ours", "a3", "a4"]);
    expect(getPage(other.content.pages, "a").documentHash).toBe(getPage(one.content.pages, "a").documentHash);
  });

  it("reports a block deleted on one side and edited on the other, keeping ours", async () => {
    const { store, base } = setup();
    const deleting = clone(base);
    editPage(store, deleting, "a", (d) => {
      (d.nodes as unknown[]).splice(1, 1); // a2
      setText(d, "a4", "other edit");
    });
    const editing = clone(base);
    editPage(store, editing, "a", (d) => setText(d, "a2", "First, edited"));
    const result = await merge(store, base, deleting, editing);
    expect(result.conflicts).toEqual([expect.objectContaining({ kind: "delete-edit", pageId: "a", blockKey: "a2", ours: undefined })]);
    expect(textOf(result.conflicts[0]!.theirs)).toBe("First, edited");
    expect(keys(pageDocument(store, result, "a"))).toEqual(["a1", "a3", "a4"]);
    const swapped = await merge(store, base, editing, deleting);
    expect(swapped.conflicts).toEqual([expect.objectContaining({ kind: "delete-edit", blockKey: "a2", theirs: undefined })]);
    expect(keys(pageDocument(store, swapped, "a"))).toEqual(["a1", "a2", "a3", "a4"]);
  });

  it("merges edits of different list items, and items added to the same list by both sides", async () => {
    const { store } = setup();
    const items = ["i1", "i2", "i3"].map((k) => listItem(k, `item ${k}`));
    const base = content([page("p", { documentHash: store.put(doc(paragraph("intro", "Steps"), list("L", items))) })]);
    const ours = clone(base);
    editPage(store, ours, "p", (d) => {
      setText(d, "i1p", "item one (primary)");
      (blocksByKey(d).get("L")!.nodes as unknown[]).push(listItem("o4", "ours added"));
    });
    const theirs = clone(base);
    editPage(store, theirs, "p", (d) => {
      setText(d, "i3p", "item three (change request)");
      (blocksByKey(d).get("L")!.nodes as unknown[]).splice(0, 0, listItem("t0", "theirs added"));
    });
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    const merged = blocksByKey(pageDocument(store, result, "p"));
    expect((merged.get("L")!.nodes as { key: string }[]).map((n) => n.key)).toEqual(["t0", "i1", "i2", "i3", "o4"]);
    expect(textOf(merged.get("i1p"))).toBe("item one (primary)");
    expect(textOf(merged.get("i3p"))).toBe("item three (change request)");
  });

  it("merges edits in different tabs, and a tab's title with its content", async () => {
    const { store } = setup();
    const block = tabs("T", [tab("t1", "macOS", [paragraph("t1p", "brew install")]), tab("t2", "Linux", [paragraph("t2p", "apt install")])]);
    const base = content([page("p", { documentHash: store.put(doc(block)) })]);
    const ours = clone(base);
    editPage(store, ours, "p", (d) => {
      setText(d, "t1p", "brew install quire");
      (blocksByKey(d).get("t2")!.data as Record<string, unknown>).title = "GNU/Linux";
    });
    const theirs = clone(base);
    editPage(store, theirs, "p", (d) => {
      setText(d, "t2p", "apt-get install quire");
      (blocksByKey(d).get("T")!.nodes as unknown[]).push(tab("t3", "Windows", [paragraph("t3p", "winget install")]));
    });
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    const merged = blocksByKey(pageDocument(store, result, "p"));
    expect(textOf(merged.get("t1p"))).toBe("brew install quire");
    expect(textOf(merged.get("t2p"))).toBe("apt-get install quire");
    expect(merged.get("t2")!.data).toEqual({ title: "GNU/Linux" });
    expect((merged.get("T")!.nodes as { key: string }[]).map((n) => n.key)).toEqual(["t1", "t2", "t3"]);
  });

  it("reports the same tab title changed differently on both sides", async () => {
    const { store } = setup();
    const base = content([page("p", { documentHash: store.put(doc(tabs("T", [tab("t1", "macOS", [paragraph("t1p", "x")])]))) })]);
    const ours = clone(base);
    editPage(store, ours, "p", (d) => void ((blocksByKey(d).get("t1")!.data as Record<string, unknown>).title = "Mac"));
    const theirs = clone(base);
    editPage(store, theirs, "p", (d) => void ((blocksByKey(d).get("t1")!.data as Record<string, unknown>).title = "Apple"));
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([expect.objectContaining({ kind: "block", blockKey: "t1", field: "data.title" })]);
  });

  it("moves a block into a container on one side while the other edits it: moved and edited", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    editPage(store, ours, "a", (d) => {
      const [moved] = (d.nodes as unknown[]).splice(3, 1);
      (d.nodes as unknown[]).push(hint("h", [moved as never]));
    });
    const theirs = clone(base);
    editPage(store, theirs, "a", (d) => setText(d, "a4", "Third, edited"));
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    const merged = pageDocument(store, result, "a");
    expect(keys(merged)).toEqual(["a1", "a2", "a3", "h"]);
    expect(textOf((blocksByKey(merged).get("h")!.nodes as unknown[])[0])).toBe("Third, edited");
  });

  it("merges table rows edited in different records", async () => {
    const { store } = setup();
    const table = {
      object: "block",
      type: "table",
      key: "tbl",
      isVoid: true,
      data: {
        view: { type: "grid", columns: ["c1", "c2"] },
        definition: { c1: { id: "c1", title: "Name", type: "text" }, c2: { id: "c2", title: "Value", type: "text" } },
        records: { r1: { orderIndex: "a0", values: { c1: "one", c2: "1" } }, r2: { orderIndex: "a1", values: { c1: "two", c2: "2" } } },
      },
      fragments: [],
    } as const;
    const base = content([page("p", { documentHash: store.put(doc(structuredClone(table) as never)) })]);
    const ours = clone(base);
    editPage(store, ours, "p", (d) => void (((blocksByKey(d).get("tbl")!.data as any).records.r1.values.c2 = "1.0")));
    const theirs = clone(base);
    editPage(store, theirs, "p", (d) => void (((blocksByKey(d).get("tbl")!.data as any).records.r2.values.c1 = "deux")));
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    const records = (blocksByKey(pageDocument(store, result, "p")).get("tbl")!.data as any).records;
    expect(records.r1.values).toEqual({ c1: "one", c2: "1.0" });
    expect(records.r2.values).toEqual({ c1: "deux", c2: "2" });
  });

  it("merges the document's data as metadata", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    editPage(store, ours, "a", (d) => {
      d.data.schemaVersion = 2;
      setText(d, "a2", "x");
    });
    const theirs = clone(base);
    editPage(store, theirs, "a", (d) => setText(d, "a3", "y"));
    const clean = await merge(store, base, ours, theirs);
    expect(clean.conflicts).toEqual([]);
    expect(pageDocument(store, clean, "a").data).toEqual({ schemaVersion: 2 });

    editPage(store, theirs, "a", (d) => void (d.data.schemaVersion = 3));
    const conflicting = await merge(store, base, ours, theirs);
    expect(conflicting.conflicts).toEqual([
      expect.objectContaining({ kind: "page", pageId: "a", field: "document.data.schemaVersion", base: 1, ours: 2, theirs: 3 }),
    ]);
  });

  it("reports a document without block keys as one page conflict instead of guessing", async () => {
    const { store } = setup();
    const unkeyed = { object: "document", data: {}, nodes: [{ object: "block", type: "paragraph", nodes: [text("x")] }] } as JSONDocument;
    const base = content([page("p", { documentHash: store.put(unkeyed) })]);
    const ours = clone(base);
    editPage(store, ours, "p", (d) => void ((d.nodes[0] as any).nodes = [text("ours")]));
    const theirs = clone(base);
    editPage(store, theirs, "p", (d) => void ((d.nodes[0] as any).nodes = [text("theirs")]));
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([expect.objectContaining({ kind: "page", pageId: "p", field: "document" })]);
    expect(getPage(result.content.pages, "p").documentHash).toBe(getPage(ours.pages, "p").documentHash);
  });

  it("loads only the documents of pages whose hash changed on both sides", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    editPage(store, ours, "a", (d) => setText(d, "a2", "x"));
    editPage(store, ours, "b", (d) => setText(d, "b1", "x"));
    const theirs = clone(base);
    editPage(store, theirs, "a", (d) => setText(d, "a3", "y"));
    editPage(store, theirs, "c1", (d) => setText(d, "c1x", "y"));
    store.loads = 0;
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    expect(store.loads).toBe(3); // page a: base, ours, theirs
  });
});

describe("mergeContent: files, reusable contents, variables", () => {
  it("merges files by id: additions, a deletion, a rename against a content change", async () => {
    const { store, base } = setup();
    base.files.push({ id: "f2", name: "old.pdf", contentType: "application/pdf", size: 5, blobHash: "blob-2" });
    const ours = clone(base);
    ours.files[0]!.name = "brand.png";
    ours.files.push({ id: "fo", name: "o.png", contentType: "image/png", size: 1, blobHash: "o" });
    const theirs = clone(base);
    Object.assign(theirs.files[0]!, { blobHash: "blob-1b", size: 20, dimensions: { width: 4, height: 3 } });
    theirs.files.splice(1, 1);
    theirs.files.push({ id: "ft", name: "t.png", contentType: "image/png", size: 1, blobHash: "t" });
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    expect(result.content.files.map((f) => f.id)).toEqual(["f1", "fo", "ft"]);
    expect(result.content.files[0]).toEqual({ id: "f1", name: "brand.png", contentType: "image/png", size: 20, blobHash: "blob-1b", dimensions: { width: 4, height: 3 } });
  });

  it("reports a file replaced differently on both sides, and a file deleted against an edit", async () => {
    const { store, base } = setup();
    base.files.push({ id: "f2", name: "old.pdf", contentType: "application/pdf", size: 5, blobHash: "blob-2" });
    const ours = clone(base);
    Object.assign(ours.files[0]!, { blobHash: "ours", size: 1 });
    ours.files.splice(1, 1);
    const theirs = clone(base);
    Object.assign(theirs.files[0]!, { blobHash: "theirs", size: 2 });
    theirs.files[1]!.name = "new.pdf";
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([
      expect.objectContaining({ kind: "file", fileId: "f1", field: "blobHash" }),
      expect.objectContaining({ kind: "delete-edit", fileId: "f2", ours: undefined }),
    ]);
    expect(result.content.files).toEqual([ours.files[0]]);
  });

  it("merges variables by name and reports one changed differently or deleted against a change", async () => {
    const { store, base } = setup();
    const ours = clone(base);
    ours.variables = { version: "2.0", product: "Quire", edition: "community" };
    const theirs = clone(base);
    theirs.variables = { version: "1.0", product: "Quire Docs", year: "2026" };
    const clean = await merge(store, base, ours, theirs);
    expect(clean.conflicts).toEqual([]);
    expect(clean.content.variables).toEqual({ version: "2.0", product: "Quire Docs", edition: "community", year: "2026" });

    theirs.variables = { version: "3.0" };
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([
      expect.objectContaining({ kind: "variable", field: "version", base: "1.0", ours: "2.0", theirs: "3.0" }),
    ]);
    expect(result.content.variables).toEqual({ version: "2.0", edition: "community" });
    ours.variables.product = "Quire!";
    const deleteEdit = await merge(store, base, ours, theirs);
    expect(deleteEdit.conflicts.map((c) => c.field)).toEqual(["version", "product"]);
    expect(deleteEdit.conflicts[1]!.message).toContain("deleted on one side");
  });

  it("merges reusable contents by id, their documents by block, and reports delete against edit", async () => {
    const { store, base } = setup();
    base.reusableContents.push({ id: "r2", title: "Other" });
    const ours = clone(base);
    const r1 = ours.reusableContents[0]!;
    r1.documentHash = editDocument(store, r1.documentHash, (d) => setText(d, "r1a", "One (primary)"));
    ours.reusableContents[1]!.title = "Other, renamed";
    const theirs = clone(base);
    const t1 = theirs.reusableContents[0]!;
    t1.title = "Snippet, renamed";
    t1.documentHash = editDocument(store, t1.documentHash, (d) => setText(d, "r1b", "Two (change request)"));
    theirs.reusableContents.splice(1, 1);
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([expect.objectContaining({ kind: "delete-edit", reusableContentId: "r2" })]);
    const merged = result.content.reusableContents[0]!;
    expect(merged.title).toBe("Snippet, renamed");
    const blocks = blocksByKey(store.get(merged.documentHash!));
    expect([textOf(blocks.get("r1a")), textOf(blocks.get("r1b"))]).toEqual(["One (primary)", "Two (change request)"]);

    const t2 = clone(theirs);
    t2.reusableContents[0]!.documentHash = editDocument(store, t1.documentHash, (d) => setText(d, "r1a", "One (change request)"));
    const blockConflict = await merge(store, base, ours, t2);
    expect(blockConflict.conflicts).toContainEqual(expect.objectContaining({ kind: "block", reusableContentId: "r1", blockKey: "r1a" }));
  });
});

describe("mergeContent: change requests in sequence", () => {
  it("merges two change requests one after the other, and an update brings the first into the second", async () => {
    const { store, base } = setup();
    const cr1 = clone(base);
    editPage(store, cr1, "a", (d) => setText(d, "a2", "First (CR1)"));
    getPage(cr1.pages, "b").title = "B by CR1";
    const cr2 = clone(base);
    editPage(store, cr2, "a", (d) => setText(d, "a4", "Third (CR2)"));
    cr2.pages.push(page("new-by-cr2"));
    move(cr2, "c2", null, 0);

    const primary1 = await merge(store, base, base, cr1);
    expect(primary1.conflicts).toEqual([]);
    expect(primary1.content).toEqual(cr1);

    const primary2 = await merge(store, base, primary1.content, cr2);
    expect(primary2.conflicts).toEqual([]);
    const pages = primary2.content.pages;
    expect(ids(pages)).toEqual(["c2", "a", "b", "c", "new-by-cr2"]);
    expect(getPage(pages, "b").title).toBe("B by CR1");
    const a = blocksByKey(pageDocument(store, primary2, "a"));
    expect([textOf(a.get("a2")), textOf(a.get("a4"))]).toEqual(["First (CR1)", "Third (CR2)"]);

    // Updating CR2 from the new primary, then merging it, lands on the same content.
    const updated = await merge(store, base, primary1.content, cr2);
    const merged = await merge(store, primary1.content, primary1.content, updated.content);
    expect(merged.conflicts).toEqual([]);
    expect(merged.content).toEqual(primary2.content);
  });
});

describe("mergeContent: semantic changes", () => {
  it("lists what the change request brings relative to its base", async () => {
    const { store, base } = setup();
    base.pages.push(page("d"));
    const theirs = clone(base);
    editPage(store, theirs, "a", (d) => setText(d, "a2", "x"));
    getPage(theirs.pages, "a").title = "A!";
    move(theirs, "b", "a", 0);
    move(theirs, "c2", "c", 0);
    remove(theirs, "d");
    theirs.pages.push(page("n"));
    theirs.files = [{ ...base.files[0]!, name: "renamed.png" }, { id: "f9", name: "new.png", contentType: "image/png", size: 1, blobHash: "z" }];
    theirs.variables = { version: "2.0", extra: "yes" };
    theirs.reusableContents = [{ ...base.reusableContents[0]!, title: "Snippet 2" }];
    const { changes } = await merge(store, base, base, theirs);
    const hashBefore = getPage(base.pages, "a").documentHash;
    const hashAfter = getPage(theirs.pages, "a").documentHash;
    const a = { id: "a", type: "document", title: "A!", path: "a" };
    const c = { id: "c", type: "group", title: "Page c", path: "c" };
    expect(changes).toEqual([
      { type: "page_edited", page: a, attributes: { title: { before: "Page a", after: "A!" }, document: { before: hashBefore, after: hashAfter } } },
      { type: "page_moved", page: { id: "b", type: "document", title: "Page b", path: "a/b" }, parent: { after: a } },
      { type: "page_moved", page: { id: "c2", type: "document", title: "Page c2", path: "c/c2" }, parent: { before: c, after: c } },
      { type: "page_created", page: { id: "n", type: "document", title: "Page n", path: "n" } },
      { type: "page_deleted", page: { id: "d", type: "document", title: "Page d", path: "d" } },
      { type: "file_edited", file: { id: "f1", name: "renamed.png", contentType: "image/png" }, attributes: { name: { before: "logo.png", after: "renamed.png" } } },
      { type: "file_created", file: { id: "f9", name: "new.png", contentType: "image/png" } },
      { type: "variables_edited", variables: { version: { before: "1.0", after: "2.0" }, product: { before: "Quire" }, extra: { after: "yes" } } },
      {
        type: "reusable_content_edited",
        reusableContent: { id: "r1", title: "Snippet 2", document: base.reusableContents[0]!.documentHash },
        attributes: { title: { before: "Snippet", after: "Snippet 2" } },
      },
    ]);
  });
});

function defaultLayout() {
  return {
    width: "default" as const,
    cover: true,
    coverSize: "hero" as const,
    title: true,
    description: true,
    tableOfContents: true,
    outline: true,
    pagination: true,
    metadata: true,
  };
}

describe("mergeContent: contract", () => {
  const spec = JSON.parse(readFileSync(createRequire(import.meta.url).resolve("@gitbook/api/spec/openapi.json"), "utf8"));
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addSchema(spec, "spec");
  const validateDocument = ajv.compile({ $ref: "spec#/components/schemas/JSONDocument" });

  it("takes the spec's documents and creates documents that validate against the spec's JSONDocument", async () => {
    const { store, base } = setup();
    const specDocument: SpecDocument = { object: "document", data: {}, nodes: [{ object: "block", type: "divider", key: "d", isVoid: true, data: {} }] };
    const accepted: JSONDocument = specDocument;
    expect(validateDocument(accepted)).toBe(true);
    const ours = clone(base);
    editPage(store, ours, "a", (d) => {
      setText(d, "a2", "x");
      (d.nodes as unknown[]).push(tabs("T", [tab("t1", "One", [paragraph("t1p", "1")])]));
    });
    const theirs = clone(base);
    editPage(store, theirs, "a", (d) => {
      (d.nodes as unknown[]).unshift(hint("H", [paragraph("hp", "careful")], "warning"));
      (d.nodes as unknown[]).push(list("L", [listItem("i1", "one")]));
    });
    const result = await merge(store, base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    expect(result.documents.size).toBe(1);
    for (const document of result.documents.values()) expect(validateDocument(document), JSON.stringify(validateDocument.errors)).toBe(true);
  });

  it("never modifies its inputs or the documents it loads", async () => {
    const freeze = <T>(value: T): T => {
      if (value && typeof value === "object") {
        for (const child of Object.values(value)) freeze(child);
        Object.freeze(value);
      }
      return value;
    };
    for (let seed = 1; seed <= 40; seed++) {
      const store = new DocumentStore();
      const random = new Random(seed);
      const base = randomContent(random, store);
      const [x, y] = [randomEdits(random, base, store, "o", { edits: 6 }), randomEdits(random, base, store, "t", { edits: 6 })];
      const snapshot = structuredClone([base, x, y]);
      const loadDocument = async (hash: string) => freeze(store.get(hash));
      await mergeContent({ base: freeze(base), ours: freeze(x), theirs: freeze(y), loadDocument });
      expect([base, x, y]).toEqual(snapshot);
    }
  });
});
