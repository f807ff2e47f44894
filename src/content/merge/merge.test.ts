import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { JSONDocument as SpecDocument } from "@gitbook/api";
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import {
  blocksByKey,
  DocumentStore,
  editDocument,
  getPage,
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
} from "../../../test/helpers/merge/fixtures.js";
import { clone, editPage, ids, merge, move, pageDocument, remove, setText, setup, textOf } from "../../../test/helpers/merge/scenario.js";
import { mergeContent } from "./merge.js";
import type { JSONDocument } from "./types.js";

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
    expect(result.content.files[0]).toEqual({
      id: "f1",
      name: "brand.png",
      contentType: "image/png",
      size: 20,
      blobHash: "blob-1b",
      dimensions: { width: 4, height: 3 },
    });
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
    theirs.files = [
      { ...base.files[0]!, name: "renamed.png" },
      { id: "f9", name: "new.png", contentType: "image/png", size: 1, blobHash: "z" },
    ];
    theirs.variables = { version: "2.0", extra: "yes" };
    theirs.reusableContents = [{ ...base.reusableContents[0]!, title: "Snippet 2" }];
    const { changes } = await merge(store, base, base, theirs);
    const hashBefore = getPage(base.pages, "a").documentHash;
    const hashAfter = getPage(theirs.pages, "a").documentHash;
    const a = { id: "a", type: "document", title: "A!", path: "a" };
    const c = { id: "c", type: "group", title: "Page c", path: "c" };
    expect(changes).toEqual([
      {
        type: "page_edited",
        page: a,
        attributes: { title: { before: "Page a", after: "A!" }, document: { before: hashBefore, after: hashAfter } },
      },
      { type: "page_moved", page: { id: "b", type: "document", title: "Page b", path: "a/b" }, parent: { after: a } },
      { type: "page_moved", page: { id: "c2", type: "document", title: "Page c2", path: "c/c2" }, parent: { before: c, after: c } },
      { type: "page_created", page: { id: "n", type: "document", title: "Page n", path: "n" } },
      { type: "page_deleted", page: { id: "d", type: "document", title: "Page d", path: "d" } },
      {
        type: "file_edited",
        file: { id: "f1", name: "renamed.png", contentType: "image/png" },
        attributes: { name: { before: "logo.png", after: "renamed.png" } },
      },
      { type: "file_created", file: { id: "f9", name: "new.png", contentType: "image/png" } },
      {
        type: "variables_edited",
        variables: { version: { before: "1.0", after: "2.0" }, product: { before: "Quire" }, extra: { after: "yes" } },
      },
      {
        type: "reusable_content_edited",
        reusableContent: { id: "r1", title: "Snippet 2", document: base.reusableContents[0]!.documentHash },
        attributes: { title: { before: "Snippet", after: "Snippet 2" } },
      },
    ]);
  });
});

describe("mergeContent: contract", () => {
  const spec = JSON.parse(readFileSync(createRequire(import.meta.url).resolve("@gitbook/api/spec/openapi.json"), "utf8"));
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addSchema(spec, "spec");
  const validateDocument = ajv.compile({ $ref: "spec#/components/schemas/JSONDocument" });

  it("takes the spec's documents and creates documents that validate against the spec's JSONDocument", async () => {
    const { store, base } = setup();
    const specDocument: SpecDocument = {
      object: "document",
      data: {},
      nodes: [{ object: "block", type: "divider", key: "d", isVoid: true, data: {} }],
    };
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
    for (const document of result.documents.values())
      expect(validateDocument(document), JSON.stringify(validateDocument.errors)).toBe(true);
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
