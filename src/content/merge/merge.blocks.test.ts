import { describe, expect, it } from "vitest";
import {
  blocksByKey,
  content,
  doc,
  getPage,
  hint,
  list,
  listItem,
  page,
  paragraph,
  tab,
  tabs,
  text,
} from "../../../test/helpers/merge/fixtures.js";
import { clone, editPage, keys, merge, pageDocument, setText, setup, textOf } from "../../../test/helpers/merge/scenario.js";
import { documentHashOf } from "../revision/storage.js";
import { mergeContent } from "./merge.js";
import type { JSONDocument } from "./types.js";

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
    expect([textOf(conflict.base), textOf(conflict.ours), textOf(conflict.theirs)]).toEqual([
      "Second",
      "Second (primary)",
      "Second (change request)",
    ]);
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
    const block = tabs("T", [
      tab("t1", "macOS", [paragraph("t1p", "brew install")]),
      tab("t2", "Linux", [paragraph("t2p", "apt install")]),
    ]);
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
    editPage(store, ours, "p", (d) => void ((blocksByKey(d).get("tbl")!.data as any).records.r1.values.c2 = "1.0"));
    const theirs = clone(base);
    editPage(store, theirs, "p", (d) => void ((blocksByKey(d).get("tbl")!.data as any).records.r2.values.c1 = "deux"));
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
