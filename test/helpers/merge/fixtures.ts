/**
 * Builders for merge tests and the merge benchmark: pages, documents and blocks as real edits
 * produce them, an in-memory document store, and a seeded generator of random trees and edits
 * (no dependency: a small PRNG, so every failing case replays from its seed).
 */

import type { JSONDocument } from "../../../src/content/merge/types.js";
import type { FileEntry, PageNode, ReusableContentEntry, RevisionContent } from "../../../src/content/revision/model.js";
import { documentHashOf } from "../../../src/content/revision/storage.js";

export type Block = Record<string, unknown> & { object: "block" | "fragment"; key: string };

const CREATED = "2026-01-01T00:00:00.000Z";

export function text(value: string): Record<string, unknown> {
  return { object: "text", leaves: [{ object: "leaf", text: value, marks: [] }] };
}

export function paragraph(key: string, value: string): Block {
  return { object: "block", type: "paragraph", key, nodes: [text(value)] };
}

export function heading(key: string, value: string): Block {
  return { object: "block", type: "heading-2", key, data: {}, nodes: [text(value)] };
}

export function listItem(key: string, value: string): Block {
  return { object: "block", type: "list-item", key, nodes: [paragraph(`${key}p`, value)] };
}

export function list(key: string, items: Block[]): Block {
  return { object: "block", type: "list-unordered", key, nodes: items };
}

export function tab(key: string, title: string, blocks: Block[]): Block {
  return { object: "block", type: "tabs-item", key, data: { title }, nodes: blocks };
}

export function tabs(key: string, items: Block[]): Block {
  return { object: "block", type: "tabs", key, data: {}, nodes: items };
}

export function hint(key: string, blocks: Block[], style = "info"): Block {
  return { object: "block", type: "hint", key, data: { style }, nodes: blocks };
}

export function doc(...nodes: Block[]): JSONDocument {
  return { object: "document", data: { schemaVersion: 1 }, nodes };
}

/** Documents by hash, as the storage layer addresses them; counts loads so tests can check laziness. */
export class DocumentStore {
  readonly documents = new Map<string, JSONDocument>();
  loads = 0;

  put(document: JSONDocument): string {
    const hash = documentHashOf(document);
    this.documents.set(hash, structuredClone(document));
    return hash;
  }

  get(hash: string): JSONDocument {
    const document = this.documents.get(hash);
    if (!document) throw new Error(`No document ${hash}`);
    return structuredClone(document);
  }

  readonly load = async (hash: string): Promise<JSONDocument> => {
    this.loads++;
    return this.get(hash);
  };

  /** Adds the documents a merge created, so a later merge can load them. */
  addAll(documents: Map<string, JSONDocument>): void {
    for (const [hash, document] of documents) this.documents.set(hash, document);
  }
}

export function page(id: string, extra: Partial<PageNode> = {}): PageNode {
  return { id, kind: "document", title: `Page ${id}`, slug: id, createdAt: CREATED, updatedAt: CREATED, children: [], ...extra };
}

export function content(pages: PageNode[], extra: Partial<RevisionContent> = {}): RevisionContent {
  return { pages, files: [], reusableContents: [], variables: {}, ...extra };
}

/** Finds a page and the sibling list holding it. */
export function findPage(pages: PageNode[], id: string): { page: PageNode; siblings: PageNode[]; index: number } | undefined {
  for (let i = 0; i < pages.length; i++) {
    const candidate = pages[i]!;
    if (candidate.id === id) return { page: candidate, siblings: pages, index: i };
    const found = findPage(candidate.children, id);
    if (found) return found;
  }
  return undefined;
}

export function getPage(pages: PageNode[], id: string): PageNode {
  const found = findPage(pages, id);
  if (!found) throw new Error(`No page ${id}`);
  return found.page;
}

export function allPages(pages: PageNode[]): PageNode[] {
  return pages.flatMap((p) => [p, ...allPages(p.children)]);
}

/** Applies an edit to a copy of a page's document and stores it; returns the new hash. */
export function editDocument(store: DocumentStore, hash: string | undefined, edit: (document: JSONDocument) => void): string {
  const document = hash ? store.get(hash) : doc();
  edit(document);
  return store.put(document);
}

/** Every keyed block of a document by key (depth first). */
export function blocksByKey(document: JSONDocument): Map<string, Block> {
  const out = new Map<string, Block>();
  const walk = (nodes: unknown) => {
    if (!Array.isArray(nodes)) return;
    for (const node of nodes as Block[]) {
      if ((node.object === "block" || node.object === "fragment") && typeof node.key === "string") out.set(node.key, node);
      walk(node.nodes);
      walk(node.fragments);
    }
  };
  walk(document.nodes);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Seeded random trees and edits.

/** mulberry32: a tiny, well-distributed 32-bit PRNG. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** A random document: paragraphs, a list, a tabs block, a hint. */
export function randomDocument(random: Random, prefix: string): JSONDocument {
  const blocks: Block[] = [];
  const count = 2 + random.int(5);
  for (let i = 0; i < count; i++) {
    const key = `${prefix}b${i}`;
    const kind = random.int(6);
    if (kind === 0)
      blocks.push(
        list(
          key,
          [0, 1, 2].map((j) => listItem(`${key}i${j}`, `item ${j}`)),
        ),
      );
    else if (kind === 1)
      blocks.push(
        tabs(
          key,
          [0, 1].map((j) => tab(`${key}t${j}`, `Tab ${j}`, [paragraph(`${key}t${j}p`, `tab ${j} text`)])),
        ),
      );
    else if (kind === 2) blocks.push(hint(key, [paragraph(`${key}h`, "hint text")]));
    else blocks.push(paragraph(key, `text ${prefix} ${i}`));
  }
  return doc(...blocks);
}

export function randomContent(random: Random, store: DocumentStore, size = 12): RevisionContent {
  const pages: PageNode[] = [];
  const placed: PageNode[] = [];
  for (let i = 0; i < size; i++) {
    const id = `p${i}`;
    const node = page(id, { documentHash: store.put(randomDocument(random, id)) });
    const parent = placed.length > 0 && random.chance(0.5) ? random.pick(placed) : undefined;
    (parent ? parent.children : pages).push(node);
    placed.push(node);
  }
  const files: FileEntry[] = [0, 1, 2].map((i) => ({
    id: `f${i}`,
    name: `file${i}.png`,
    contentType: "image/png",
    size: 10 + i,
    blobHash: `blob${i}`,
  }));
  const reusableContents: ReusableContentEntry[] = [0, 1].map((i) => ({
    id: `r${i}`,
    title: `Snippet ${i}`,
    documentHash: store.put(randomDocument(random, `r${i}`)),
  }));
  return { pages, files, reusableContents, variables: { version: "1.0", product: "Quire" } };
}

/** Keyed child lists of a document (the top level and every container's children), for block edits. */
function keyedLists(document: JSONDocument): Block[][] {
  const lists: Block[][] = [document.nodes as Block[]];
  const walk = (nodes: Block[]) => {
    for (const node of nodes) {
      if (node.type === "paragraph" || node.type === "heading-2") continue;
      if (Array.isArray(node.nodes)) {
        lists.push(node.nodes as Block[]);
        walk(node.nodes as Block[]);
      }
    }
  };
  walk(document.nodes as Block[]);
  return lists;
}

function paragraphs(document: JSONDocument): Block[] {
  return [...blocksByKey(document).values()].filter((b) => b.type === "paragraph");
}

/** One random block edit: insert, delete, edit text, reorder, or change a tab title. */
function randomBlockEdit(random: Random, document: JSONDocument, newKey: () => string): void {
  const lists = keyedLists(document);
  const op = random.int(6);
  if (op === 5) {
    const tabItems = [...blocksByKey(document).values()].filter((b) => b.type === "tabs-item");
    if (tabItems.length > 0) random.pick(tabItems).data = { title: `Tab ${newKey()}` };
    return;
  }
  if (op === 0) {
    const target = random.pick(lists);
    const isItems = target.length > 0 && target[0]!.type === "list-item";
    const isTabs = target.length > 0 && target[0]!.type === "tabs-item";
    const key = newKey();
    const block = isItems
      ? listItem(key, `new ${key}`)
      : isTabs
        ? tab(key, `Tab ${key}`, [paragraph(`${key}p`, "new tab")])
        : paragraph(key, `new ${key}`);
    target.splice(random.int(target.length + 1), 0, block);
  } else if (op === 1) {
    const target = random.pick(lists.filter((l) => l.length > 1).concat([document.nodes as Block[]]));
    if (target.length > 0) target.splice(random.int(target.length), 1);
  } else if (op === 2 || op === 3) {
    const candidates = paragraphs(document);
    if (candidates.length > 0) {
      const block = random.pick(candidates);
      block.nodes = [text(`edited ${newKey()}`)];
    }
  } else {
    const target = random.pick(lists);
    if (target.length > 1) {
      const [moved] = target.splice(random.int(target.length), 1);
      target.splice(random.int(target.length + 1), 0, moved!);
    }
  }
}

function descendants(node: PageNode): Set<string> {
  return new Set(allPages([node]).map((p) => p.id));
}

/**
 * Applies a few random edits to a copy of `base`, as one side of a merge would: pages added,
 * deleted, moved, reordered, renamed, re-described and edited block by block; files, reusable
 * contents and variables added, changed and deleted. `tag` keeps new ids and texts distinct per side.
 */
export function randomEdits(
  random: Random,
  base: RevisionContent,
  store: DocumentStore,
  tag: string,
  options: { edits?: number; only?: "structure" | "documents" } = {},
): RevisionContent {
  const out = structuredClone(base);
  let counter = 0;
  const fresh = () => `${tag}${counter++}`;
  const later = `2026-02-0${1 + random.int(9)}T00:00:00.000Z`;
  const edits = options.edits ?? 1 + random.int(6);
  // Structure: add, delete, move, reorder (ops 0-3). Documents: block edits (ops 6-11).
  const choose = () => (options.only === "structure" ? random.int(4) : options.only === "documents" ? 6 + random.int(6) : random.int(16));
  for (let e = 0; e < edits; e++) {
    const everyPage = allPages(out.pages);
    // Half the time, edits go to a few "hot" pages, so both sides often touch the same page.
    const hot = everyPage.filter((p) => ["p0", "p1", "p2"].includes(p.id));
    const pages = hot.length > 0 && random.chance(0.5) ? hot : everyPage;
    const op = choose();
    if (op === 0 || pages.length === 0) {
      const id = fresh();
      const parent = pages.length > 0 && random.chance(0.6) ? random.pick(pages) : undefined;
      const siblings = parent ? parent.children : out.pages;
      siblings.splice(random.int(siblings.length + 1), 0, page(id, { documentHash: store.put(randomDocument(random, id)) }));
    } else if (op === 1) {
      const victim = random.pick(pages);
      const found = findPage(out.pages, victim.id)!;
      found.siblings.splice(found.index, 1);
    } else if (op === 2 || op === 3) {
      const moving = random.pick(pages);
      const excluded = descendants(moving);
      const parents = everyPage.filter((p) => !excluded.has(p.id));
      const found = findPage(out.pages, moving.id)!;
      found.siblings.splice(found.index, 1);
      const parent = op === 2 && parents.length > 0 && random.chance(0.7) ? random.pick(parents) : undefined;
      const siblings = op === 3 ? found.siblings : parent ? parent.children : out.pages;
      siblings.splice(random.int(siblings.length + 1), 0, moving);
    } else if (op === 4) {
      const target = random.pick(pages);
      if (random.chance(0.5)) target.title = `${target.title} ${fresh()}`;
      else target.slug = `${target.slug}-${fresh()}`;
      target.updatedAt = later;
    } else if (op === 5) {
      const target = random.pick(pages);
      if (random.chance(0.5)) target.emoji = random.pick(["1f600", "1f680", "2705"]);
      else target.description = `about ${fresh()}`;
      target.updatedAt = later;
    } else if (op <= 11) {
      const target = random.pick(pages);
      target.documentHash = editDocument(store, target.documentHash, (document) => {
        const n = 1 + random.int(3);
        for (let i = 0; i < n; i++) randomBlockEdit(random, document, fresh);
      });
      target.updatedAt = later;
    } else if (op === 12) {
      const choice = random.int(3);
      if (choice === 0) out.files.push({ id: fresh(), name: `${fresh()}.png`, contentType: "image/png", size: 1, blobHash: fresh() });
      else if (choice === 1 && out.files.length > 0) out.files.splice(random.int(out.files.length), 1);
      else if (out.files.length > 0) {
        const file = random.pick(out.files);
        Object.assign(file, { blobHash: fresh(), size: 100 + random.int(100) });
      }
    } else if (op === 13) {
      const name = random.pick(["version", "product", `v${tag}`]);
      if (random.chance(0.3)) delete out.variables[name];
      else out.variables[name] = fresh();
    } else {
      const choice = random.int(3);
      if (choice === 0)
        out.reusableContents.push({ id: fresh(), title: "New snippet", documentHash: store.put(randomDocument(random, fresh())) });
      else if (choice === 1 && out.reusableContents.length > 0) out.reusableContents.splice(random.int(out.reusableContents.length), 1);
      else if (out.reusableContents.length > 0) {
        const entry = random.pick(out.reusableContents);
        entry.documentHash = editDocument(store, entry.documentHash, (document) => randomBlockEdit(random, document, fresh));
      }
    }
  }
  return out;
}
