import { describe, expect, it } from "vitest";
import { DocumentStore, doc, paragraph } from "../../../test/helpers/merge/fixtures.js";
import { mergeContent } from "../../content/merge/index.js";
import type { PageMeta, RevisionContent } from "../../content/revision/model.js";
import { documentHashOf } from "../../content/revision/storage.js";
import { resolvedPageBase } from "./resolutions.model.js";

const at = "2026-01-01T00:00:00.000Z";
const meta = (extra: Partial<PageMeta> = {}): PageMeta => ({
  id: "p",
  kind: "document",
  title: "Page",
  slug: "page",
  createdAt: at,
  updatedAt: at,
  ...extra,
});

/** base, ours (primary) and theirs (change request) of one page; returns the merge and its conflicts. */
async function scenario(
  base: { meta: PageMeta; nodes: object[] },
  ours: { meta: PageMeta; nodes: object[] },
  theirs: { meta: PageMeta; nodes: object[] },
) {
  const store = new DocumentStore();
  const tree = (side: { meta: PageMeta; nodes: object[] }): RevisionContent => ({
    pages: [{ ...side.meta, documentHash: store.put(doc(...(side.nodes as never[]))), children: [] }],
    files: [],
    reusableContents: [],
    variables: {},
  });
  const [b, o, t] = [tree(base), tree(ours), tree(theirs)];
  const merge = async (pageBase?: (id: string) => PageMeta | undefined) => {
    const result = await mergeContent({ base: b, ours: o, theirs: t, loadDocument: store.load, ...(pageBase ? { pageBase } : {}) });
    store.addAll(result.documents);
    return result;
  };
  const version = (content: RevisionContent) => {
    const { children: _c, ...m } = content.pages[0]!;
    return { meta: m, document: store.get(m.documentHash!) };
  };
  return { store, merge, base: version(b), ours: version(o), theirs: version(t) };
}

describe("resolvedPageBase", () => {
  it("settles only the colliding block: the primary's other edits of the page still merge in", async () => {
    const s = await scenario(
      { meta: meta(), nodes: [paragraph("a", "A"), paragraph("b", "B"), paragraph("c", "C")] },
      { meta: meta(), nodes: [paragraph("a", "A (primary)"), paragraph("b", "B (primary)"), paragraph("c", "C")] },
      { meta: meta(), nodes: [paragraph("a", "A"), paragraph("b", "B (resolved)"), paragraph("c", "C")] },
    );
    const first = await s.merge();
    expect(first.conflicts.map((c) => [c.kind, c.blockKey])).toEqual([["block", "b"]]);
    const resolved = resolvedPageBase(s.base, s.ours, first.conflicts);
    expect(resolved.document).toBeDefined();
    s.store.put(resolved.document!);
    const bases = new Map([["p", { ...resolved.meta, documentHash: documentHashOf(resolved.document!) }]]);
    const second = await s.merge((id) => bases.get(id));
    expect(second.conflicts).toEqual([]);
    const merged = s.store.get(second.content.pages[0]!.documentHash!);
    expect(merged.nodes.map((n: any) => n.nodes[0].leaves[0].text)).toEqual(["A (primary)", "B (resolved)", "C"]);
  });

  it("settles colliding metadata fields, keeping the primary's other field changes", async () => {
    const s = await scenario(
      { meta: meta(), nodes: [paragraph("a", "A")] },
      { meta: meta({ title: "Primary", description: "Kept" }), nodes: [paragraph("a", "A")] },
      { meta: meta({ title: "Change request" }), nodes: [paragraph("a", "A")] },
    );
    const first = await s.merge();
    expect(first.conflicts.map((c) => c.field)).toEqual(["title"]);
    const resolved = resolvedPageBase(s.base, s.ours, first.conflicts);
    expect(resolved).toMatchObject({ meta: { title: "Primary" }, documentFromPrimary: false });
    expect(resolved.meta.description).toBeUndefined();
    const second = await s.merge((id) => (id === "p" ? resolved.meta : undefined));
    expect(second.conflicts).toEqual([]);
    expect(second.content.pages[0]).toMatchObject({ title: "Change request", description: "Kept" });
  });

  it("lets a block deleted on one side and edited on the other go the change request's way", async () => {
    const primaryDeleted = await scenario(
      { meta: meta(), nodes: [paragraph("a", "A"), paragraph("b", "B")] },
      { meta: meta(), nodes: [paragraph("a", "A")] },
      { meta: meta(), nodes: [paragraph("a", "A"), paragraph("b", "B (kept)")] },
    );
    let first = await primaryDeleted.merge();
    expect(first.conflicts.map((c) => c.kind)).toEqual(["delete-edit"]);
    let resolved = resolvedPageBase(primaryDeleted.base, primaryDeleted.ours, first.conflicts);
    primaryDeleted.store.put(resolved.document!);
    let base = { ...resolved.meta, documentHash: documentHashOf(resolved.document!) };
    let second = await primaryDeleted.merge(() => base);
    expect(second.conflicts).toEqual([]);
    expect(primaryDeleted.store.get(second.content.pages[0]!.documentHash!).nodes.map((n: any) => n.key)).toEqual(["a", "b"]);

    const changeRequestDeleted = await scenario(
      { meta: meta(), nodes: [paragraph("a", "A"), paragraph("b", "B")] },
      { meta: meta(), nodes: [paragraph("a", "A"), paragraph("b", "B (primary)")] },
      { meta: meta(), nodes: [paragraph("a", "A")] },
    );
    first = await changeRequestDeleted.merge();
    resolved = resolvedPageBase(changeRequestDeleted.base, changeRequestDeleted.ours, first.conflicts);
    changeRequestDeleted.store.put(resolved.document!);
    base = { ...resolved.meta, documentHash: documentHashOf(resolved.document!) };
    second = await changeRequestDeleted.merge(() => base);
    expect(second.conflicts).toEqual([]);
    expect(changeRequestDeleted.store.get(second.content.pages[0]!.documentHash!).nodes.map((n: any) => n.key)).toEqual(["a"]);
  });
});
