/**
 * Property tests over seeded random spaces and random edits on each side (see `fixtures.ts`). A
 * failure names its seed; `randomEdits` with that seed replays the exact case.
 */
import { describe, expect, it } from "vitest";
import { allPages, blocksByKey, DocumentStore, Random, randomContent, randomEdits } from "../../../test/helpers/merge/fixtures.js";
import type { PageNode, RevisionContent } from "../revision/model.js";
import { mergeContent } from "./merge.js";
import type { JSONDocument, MergeResult } from "./types.js";
import { jsonEqual } from "./values.js";

const SEEDS = 300;

interface Case {
  seed: number;
  store: DocumentStore;
  base: RevisionContent;
  x: RevisionContent;
  y: RevisionContent;
}

/** Which edits the sides make: any kind, only page-tree changes (adds, deletes, moves), or only block edits. */
type Flavor = "mixed" | "structure" | "documents";

function makeCase(seed: number, flavor: Flavor = "mixed"): Case {
  const store = new DocumentStore();
  const random = new Random(seed);
  const base = randomContent(random, store, 6 + random.int(10));
  const only = flavor === "mixed" ? undefined : flavor;
  const x = randomEdits(random, base, store, "o", { only });
  const y = randomEdits(random, base, store, "t", { only });
  return { seed, store, base, x, y };
}

async function merge(c: Case, base: RevisionContent, ours: RevisionContent, theirs: RevisionContent): Promise<MergeResult> {
  return mergeContent({ base, ours, theirs, loadDocument: c.store.load });
}

function pagesById(content: RevisionContent): Map<string, PageNode> {
  return new Map(allPages(content.pages).map((p) => [p.id, p]));
}

/** A merged page's document, from what the merge created or what the sides stored. */
function documentOf(c: Case, result: MergeResult, hash: string | undefined): JSONDocument | undefined {
  if (hash === undefined) return undefined;
  return result.documents.get(hash) ?? c.store.get(hash);
}

function blockKeys(document: JSONDocument | undefined): Set<string> {
  return new Set(document ? blocksByKey(document).keys() : []);
}

/** Invariants of every result, clean or not: a tree with unique ids, keys unique per document, every document resolvable. */
function checkWellFormed(c: Case, result: MergeResult): void {
  const ids = allPages(result.content.pages).map((p) => p.id);
  expect(new Set(ids).size, `seed ${c.seed}: duplicate page ids`).toBe(ids.length);
  for (const p of allPages(result.content.pages)) {
    const document = documentOf(c, result, p.documentHash);
    if (!document) continue;
    const keys: string[] = [];
    const walk = (nodes: unknown) => {
      for (const node of (nodes as { key?: string; nodes?: unknown; fragments?: unknown; object: string }[]) ?? []) {
        if (node.object === "block" || node.object === "fragment") keys.push(node.key!);
        if (Array.isArray(node.nodes)) walk(node.nodes);
        if (Array.isArray(node.fragments)) walk(node.fragments);
      }
    };
    walk(document.nodes);
    expect(new Set(keys).size, `seed ${c.seed}: duplicate block keys in page ${p.id}`).toBe(keys.length);
  }
  for (const list of [result.content.files, result.content.reusableContents]) {
    expect(new Set(list.map((e) => e.id)).size, `seed ${c.seed}: duplicate entry ids`).toBe(list.length);
  }
}

function text(block: unknown): string {
  return JSON.stringify((block as { nodes?: unknown }).nodes);
}

/**
 * Nothing lost in a clean merge: every page, block, file, reusable content and variable present on
 * either side and not deleted by a side is in the result, nothing else is, and an edit made on
 * one side only (page metadata, paragraph text) is the result's.
 */
function checkNothingLost(c: Case, result: MergeResult): void {
  const [b, x, y, r] = [pagesById(c.base), pagesById(c.x), pagesById(c.y), pagesById(result.content)];
  const expected = new Set([...x.keys(), ...y.keys()].filter((id) => !b.has(id) || (x.has(id) && y.has(id))));
  expect([...r.keys()].sort(), `seed ${c.seed}: pages`).toEqual([...expected].sort());

  for (const [id, merged] of r) {
    const [pb, px, py] = [b.get(id), x.get(id), y.get(id)];
    for (const field of ["title", "slug", "emoji", "description"] as const) {
      if (pb && px && py && jsonEqual(pb[field], py[field])) expect(merged[field], `seed ${c.seed}: ${id}.${field}`).toEqual(px[field]);
      if (pb && px && py && jsonEqual(pb[field], px[field])) expect(merged[field], `seed ${c.seed}: ${id}.${field}`).toEqual(py[field]);
    }
    const [db, dx, dy] = [pb?.documentHash, px?.documentHash, py?.documentHash].map((h) => documentOf(c, result, h));
    const [kb, kx, ky] = [blockKeys(db), blockKeys(dx), blockKeys(dy)];
    const deleted = new Set([...kb].filter((k) => (px && !kx.has(k)) || (py && !ky.has(k))));
    const wanted = [...new Set([...kx, ...ky])].filter((k) => !deleted.has(k)).sort();
    const mergedDocument = documentOf(c, result, merged.documentHash);
    expect([...blockKeys(mergedDocument)].sort(), `seed ${c.seed}: blocks of ${id}`).toEqual(wanted);
    if (!mergedDocument || !db || !dx || !dy) continue;
    const [bb, bx, by, bm] = [blocksByKey(db), blocksByKey(dx), blocksByKey(dy), blocksByKey(mergedDocument)];
    for (const [key, block] of bm) {
      if (block.type !== "paragraph" || !bb.has(key) || !bx.has(key) || !by.has(key)) continue;
      if (text(bb.get(key)) === text(by.get(key))) expect(text(block), `seed ${c.seed}: block ${key}`).toBe(text(bx.get(key)));
      if (text(bb.get(key)) === text(bx.get(key))) expect(text(block), `seed ${c.seed}: block ${key}`).toBe(text(by.get(key)));
    }
  }

  for (const key of ["files", "reusableContents"] as const) {
    const ids = (content: RevisionContent) => new Set(content[key].map((e) => e.id));
    const [ib, ix, iy] = [ids(c.base), ids(c.x), ids(c.y)];
    const wanted = [...new Set([...ix, ...iy])].filter((id) => !ib.has(id) || (ix.has(id) && iy.has(id))).sort();
    expect([...ids(result.content)].sort(), `seed ${c.seed}: ${key}`).toEqual(wanted);
  }
  const names = Object.keys(result.content.variables).sort();
  const wantedNames = [...new Set([...Object.keys(c.x.variables), ...Object.keys(c.y.variables)])]
    .filter((n) => !(n in c.base.variables) || (n in c.x.variables && n in c.y.variables))
    .sort();
  expect(names, `seed ${c.seed}: variables`).toEqual(wantedNames);
}

describe("mergeContent properties (seeded random spaces and edits)", () => {
  it("merge(base, X, base) = X and merge(base, base, Y) = Y, without loading a document", async () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const c = makeCase(seed);
      c.store.loads = 0;
      const left = await merge(c, c.base, c.x, c.base);
      expect(left.conflicts, `seed ${seed}`).toEqual([]);
      expect(left.content, `seed ${seed}`).toEqual(c.x);
      const right = await merge(c, c.base, c.base, c.y);
      expect(right.conflicts, `seed ${seed}`).toEqual([]);
      expect(right.content, `seed ${seed}`).toEqual(c.y);
      expect(left.documents.size + right.documents.size, `seed ${seed}`).toBe(0);
      expect(c.store.loads, `seed ${seed}`).toBe(0);
    }
  });

  it("merge(base, X, X) = X", async () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const c = makeCase(seed);
      const result = await merge(c, c.base, c.x, structuredClone(c.x));
      expect(result.conflicts, `seed ${seed}`).toEqual([]);
      expect(result.content, `seed ${seed}`).toEqual(c.x);
    }
  });

  it.each([
    ["mixed", 300],
    ["structure", 200],
    ["documents", 150],
  ] as const)(
    "%s edits: clean merges commute, lose nothing and keep one-sided edits; every merge is deterministic and well-formed",
    async (flavor, seeds) => {
      let clean = 0;
      let conflicting = 0;
      for (let seed = 1; seed <= seeds; seed++) {
        const c = makeCase(seed, flavor);
        const one = await merge(c, c.base, c.x, c.y);
        const other = await merge(c, c.base, c.y, c.x);
        checkWellFormed(c, one);
        checkWellFormed(c, other);
        expect(await merge(c, c.base, c.x, c.y), `seed ${seed}: deterministic`).toEqual(one);
        expect(one.conflicts.length > 0, `seed ${seed}: conflicts either way`).toBe(other.conflicts.length > 0);
        if (one.conflicts.length > 0) {
          conflicting++;
          continue;
        }
        clean++;
        expect(other.content, `seed ${seed}: commutes`).toEqual(one.content);
        checkNothingLost(c, one);
      }
      // The generator must exercise both outcomes, or the properties above prove little.
      expect(clean).toBeGreaterThan(seeds / 3);
      expect(conflicting).toBeGreaterThan(seeds / 20);
    },
  );

  it("each conflict names what collides and carries the versions involved", async () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const c = makeCase(seed);
      const result = await merge(c, c.base, c.x, c.y);
      for (const conflict of result.conflicts) {
        expect(conflict.message.length, `seed ${seed}`).toBeGreaterThan(0);
        const target =
          conflict.pageId ?? conflict.fileId ?? conflict.reusableContentId ?? (conflict.kind === "variable" ? conflict.field : undefined);
        expect(target, `seed ${seed}: ${conflict.message}`).toBeDefined();
        if (conflict.kind === "block") expect(conflict.blockKey, `seed ${seed}`).toBeDefined();
        expect(conflict.ours !== undefined || conflict.theirs !== undefined, `seed ${seed}: ${conflict.message}`).toBe(true);
      }
    }
  });
});
