import { describe, expect, it } from "vitest";
import { allPages, content, findPage, getPage, page } from "../../../test/helpers/merge/fixtures.js";
import {
  clone,
  defaultLayout,
  editPage,
  ids,
  LATER,
  merge,
  move,
  pageDocument,
  remove,
  setText,
  setup,
  textOf,
} from "../../../test/helpers/merge/scenario.js";
import type { PageMeta } from "../revision/model.js";

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
      expect.objectContaining({
        kind: "move",
        pageId: "b",
        base: { parentId: null, index: 1 },
        ours: { parentId: "c", index: 0 },
        theirs: { parentId: "a", index: 0 },
      }),
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
