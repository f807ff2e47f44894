/** The three-way comparison of a sync (Git, Quire, the last sync's base) and the merge a person resolves a conflict with. */
import { describe, expect, it } from "vitest";
import type { JSONDocument } from "../merge/types.js";
import type { PageNode } from "../revision/model.js";
import { type GitConflict, mergeConflict, reconcileImport, resolvedDocument } from "./conflicts.js";

const paragraph = (key: string, text: string) => ({
  object: "block",
  type: "paragraph",
  key,
  nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }],
});
const doc = (...blocks: object[]): JSONDocument => ({ object: "document", data: {}, nodes: blocks });

/** Documents by hash, as the store holds them. */
const store = new Map<string, JSONDocument>();
function put(hash: string, document: JSONDocument) {
  store.set(hash, document);
  return hash;
}
const documents = { load: async (hash: string) => store.get(hash) };

const page = (id: string, documentHash: string, extra: Partial<PageNode> = {}): PageNode => ({
  id,
  kind: "document",
  title: id,
  slug: id,
  documentHash,
  git: { oid: `oid-${documentHash}`, path: `${id}.md` },
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  children: [],
  ...extra,
});

put("base", doc(paragraph("a", "One."), paragraph("b", "Two.")));
put("quire", doc(paragraph("a", "One, Quire."), paragraph("b", "Two.")));
put("git", doc(paragraph("a", "One."), paragraph("b", "Two, Git.")));
put("git-same-as-quire", doc(paragraph("x", "One, Quire."), paragraph("y", "Two.")));
put("git-rekeyed-base", doc(paragraph("k1", "One."), paragraph("k2", "Two.")));
put("both", doc(paragraph("a", "One, Git."), paragraph("b", "Two.")));

async function reconcile(git: PageNode[], quire: PageNode[], base: PageNode[], open: GitConflict[] = []) {
  return reconcileImport({ git, quire, base, open, commit: "c1", now: "2026-02-01T00:00:00.000Z" }, documents);
}

describe("reconcileImport", () => {
  it("takes Git's page when only Git changed it, keeps Quire's when only Quire did", async () => {
    const gitOnly = await reconcile([page("p", "git")], [page("p", "base")], [page("p", "base")]);
    expect(gitOnly.pages[0]?.documentHash).toBe("git");
    expect(gitOnly.fromGit).toEqual(["p"]);
    expect(gitOnly.conflicts).toEqual([]);

    const quireOnly = await reconcile(
      [page("p", "git-rekeyed-base", { git: { oid: "new", path: "p.md" } })],
      [page("p", "quire")],
      [page("p", "base")],
    );
    // Git's file converted with other block keys is still the base's text: not a change of Git's.
    expect(quireOnly.pages[0]?.documentHash).toBe("quire");
    expect(quireOnly.keptFromQuire).toEqual(["p"]);
    expect(quireOnly.conflicts).toEqual([]);
  });

  it("a page both changed the same way is no conflict; changed differently, it keeps Quire's and is recorded", async () => {
    const same = await reconcile([page("p", "git-same-as-quire")], [page("p", "quire")], [page("p", "base")]);
    expect(same.conflicts).toEqual([]);
    expect(same.pages[0]?.documentHash).toBe("git-same-as-quire");

    const both = await reconcile([page("p", "both")], [page("p", "quire")], [page("p", "base")]);
    expect(both.pages[0]?.documentHash).toBe("quire");
    expect(both.conflicts).toEqual([
      expect.objectContaining({ pageId: "p", path: "p.md", base: "base", git: "both", quire: "quire", commit: "c1", direction: "import" }),
    ]);
  });

  it("an open conflict is found again with its own base, and closes when Git goes back to that base", async () => {
    const open: GitConflict = {
      pageId: "p",
      path: "p.md",
      title: "p",
      base: "base",
      git: "both",
      quire: "quire",
      commit: "c0",
      direction: "import",
      detectedAt: "2026-01-15T00:00:00.000Z",
    };
    // The sync's base revision holds Git's side of the conflicted page: its own base is the conflict's.
    const again = await reconcile([page("p", "both")], [page("p", "quire")], [page("p", "both")], [open]);
    expect(again.conflicts).toEqual([expect.objectContaining({ base: "base", git: "both", detectedAt: open.detectedAt })]);
    const back = await reconcile([page("p", "base")], [page("p", "quire")], [page("p", "both")], [open]);
    expect(back.conflicts).toEqual([]);
    expect(back.pages[0]?.documentHash).toBe("quire");
  });

  it("pages new on Git's side, and groups, are Git's", async () => {
    // p, which Git deleted and Quire did not edit, follows Git (edited in Quire, it is kept: below).
    const result = await reconcile([page("new", "git")], [page("p", "base")], [page("p", "base")]);
    expect(result.pages.map((p) => p.documentHash)).toEqual(["git"]);
    expect(result.conflicts).toEqual([]);
  });
});

describe("mergeConflict / resolvedDocument", () => {
  const base = doc(paragraph("a", "One."), paragraph("b", "Two."), paragraph("c", "Three."));
  const quire = doc(paragraph("a", "One, Quire."), paragraph("b", "Two, Quire."), paragraph("c", "Three."));
  const git = doc(paragraph("a", "One."), paragraph("b", "Two, Git."), paragraph("c", "Three, Git."));
  const texts = (d: JSONDocument | undefined) =>
    ((d?.nodes ?? []) as { nodes: { leaves: { text: string }[] }[] }[]).map((n) => n.nodes[0]!.leaves[0]!.text);

  it("takes each side's own edits and lists the blocks both changed", () => {
    const merged = mergeConflict(base, quire, git);
    expect(merged?.conflicts.map((c) => c.blockKey)).toEqual(["b"]);
    expect(texts(merged?.document)).toEqual(["One, Quire.", "Two, Quire.", "Three, Git."]);
  });

  it("a block both changed takes the side chosen", () => {
    expect(texts(resolvedDocument({ keep: "merge", blocks: { b: "git" } }, { base, quire, git }))).toEqual([
      "One, Quire.",
      "Two, Git.",
      "Three, Git.",
    ]);
    expect(texts(resolvedDocument({ keep: "git" }, { base, quire, git }))).toEqual(["One.", "Two, Git.", "Three, Git."]);
    expect(texts(resolvedDocument({ keep: "quire" }, { base, quire, git }))).toEqual(["One, Quire.", "Two, Quire.", "Three."]);
  });

  it("Git's deletion of a block Quire changed, chosen, removes it", () => {
    const gitDeleted = doc(paragraph("a", "One."), paragraph("c", "Three."));
    const merged = mergeConflict(base, quire, gitDeleted, { b: "git" });
    expect(texts(merged?.document)).toEqual(["One, Quire.", "Three."]);
  });
});

describe("reconcileImport: a page deleted or moved on one side and edited on the other", () => {
  it("keeps a page Git deleted that Quire edited, under its parent, as a conflict; one Quire did not edit follows Git", async () => {
    const parent = (children: PageNode[]) => page("guide", "base", { children });
    const r = await reconcile(
      [parent([])],
      [parent([page("p", "quire"), page("q", "base")])],
      [parent([page("p", "base"), page("q", "base")])],
    );
    expect(r.pages[0]!.children.map((c) => [c.id, c.documentHash])).toEqual([["p", "quire"]]);
    expect(r.conflicts).toMatchObject([{ pageId: "p", kind: "deleted-in-git", git: "", quire: "quire", base: "base", path: "p.md" }]);
    expect(r.conflicts[0]!.movedTo).toBeUndefined();
    // Found again while open, even once Quire's text is the base's again.
    const again = await reconcile([parent([])], [parent([page("p", "base")])], [parent([page("p", "base")])], r.conflicts);
    expect(again.conflicts).toMatchObject([{ pageId: "p", kind: "deleted-in-git", detectedAt: r.conflicts[0]!.detectedAt }]);
  });

  it("names the page Git moved the file to (a new page whose text is the base's)", async () => {
    const r = await reconcile(
      [page("moved", "git-rekeyed-base", { git: { oid: "o", path: "guides/p.md" } })],
      [page("p", "quire")],
      [page("p", "base")],
    );
    expect(r.pages.map((p) => p.id)).toEqual(["moved", "p"]);
    expect(r.conflicts).toMatchObject([{ pageId: "p", kind: "deleted-in-git", movedTo: { pageId: "moved", path: "guides/p.md" } }]);
  });

  it("brings back a page Quire deleted that Git edited, as a conflict; one Git did not edit only comes back", async () => {
    const r = await reconcile([page("p", "git"), page("q", "base")], [], [page("p", "base"), page("q", "base")]);
    expect(r.pages.map((p) => [p.id, p.documentHash])).toEqual([
      ["p", "git"],
      ["q", "base"],
    ]);
    expect(r.conflicts).toMatchObject([{ pageId: "p", kind: "deleted-in-quire", git: "git", quire: "" }]);
  });
});
