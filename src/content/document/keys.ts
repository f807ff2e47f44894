/**
 * Stable block keys. Every block, keyed inline and fragment of a document carries a `key`; change
 * requests merge at block level by key, so re-importing a page must give the blocks that did not
 * change (and the ones edited in place) the keys they had. `reconcileKeys` does that in three steps:
 *
 * 1. In each list of siblings, blocks whose content is identical are aligned in order (common
 *    prefix and suffix, then a longest common subsequence, or unique-content anchors on very long
 *    lists); an aligned block takes its previous key and so does everything inside it.
 * 2. Between two aligned blocks, a block of the same type at the same place (or, when the gaps have
 *    different lengths, the next one of that type whose text is similar enough) is an edit in place:
 *    it takes the previous key, and its children are reconciled the same way.
 * 3. What is left is looked up by content anywhere in the previous document (a moved block, or a
 *    paragraph moved out of a removed hint keeps its key); anything else gets a fresh random key.
 *
 * Keys stay unique within the document even when the previous one had duplicates.
 *
 * A JSON document given to the API or saved by the editor names its blocks itself: with `keepGiven`,
 * a node that carries a key not met earlier in the document keeps it (a moved block is the block
 * it was, whatever now stands where it stood), and only the nodes without one go through the steps
 * above. Markdown has no keys: there the steps decide everything.
 */
import { createHash } from "node:crypto";
import { randomBase62 } from "../../lib/ids.js";
import type { JSONDocument } from "./types.js";

interface AnyNode {
  object: string;
  type?: string;
  key?: string;
  nodes?: AnyNode[];
  fragments?: AnyNode[];
  leaves?: Array<{ text: string }>;
  [field: string]: unknown;
}

export const KEY_LENGTH = 12;

export function newKey(): string {
  return randomBase62(KEY_LENGTH);
}

function isKeyed(node: AnyNode): boolean {
  return node.object === "block" || node.object === "inline" || node.object === "fragment";
}

function childLists(node: AnyNode): AnyNode[][] {
  const lists: AnyNode[][] = [];
  if (Array.isArray(node.nodes)) lists.push(node.nodes);
  if (Array.isArray(node.fragments)) lists.push(node.fragments);
  return lists;
}

/** A deep copy of a document (or any node) without `key` fields, for comparing content. */
export function stripKeys<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (name, v: unknown) => (name === "key" ? undefined : v))) as T;
}

/**
 * Content hashes of nodes, keys excluded, object fields in sorted order; computed once per node,
 * children before parents with an explicit stack, so very deep documents cannot overflow the call stack.
 */
class Signatures {
  private readonly cache = new Map<AnyNode, string>();

  of(node: AnyNode): string {
    const cached = this.cache.get(node);
    if (cached !== undefined) return cached;
    const order: AnyNode[] = [];
    const stack: AnyNode[] = [node];
    while (stack.length) {
      const current = stack.pop()!;
      if (this.cache.has(current)) continue;
      order.push(current);
      for (const list of childLists(current)) for (const child of list) stack.push(child);
    }
    for (let i = order.length - 1; i >= 0; i--) {
      const current = order[i]!;
      if (this.cache.has(current)) continue;
      const hash = createHash("sha1");
      hash.update(stableJson(current, (child) => this.cache.get(child) ?? this.of(child)));
      this.cache.set(current, hash.digest("base64"));
    }
    return this.cache.get(node)!;
  }
}

/** JSON with sorted object fields, `key` left out, and child nodes replaced by their signatures. */
function stableJson(value: unknown, child: (node: AnyNode) => string, depth = 0): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => stableJson(v, child, depth + 1)).join(",")}]`;
  const record = value as Record<string, unknown>;
  if (depth > 0 && typeof record.object === "string" && record.object !== "leaf" && record.object !== "mark")
    return `#${child(record as AnyNode)}`;
  const fields = Object.keys(record)
    .filter((k) => k !== "key" && record[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(record[k], child, depth + 1)}`);
  return `{${fields.join(",")}}`;
}

function plainText(node: AnyNode, budget = { left: 2000 }): string {
  if (budget.left <= 0) return "";
  let out = "";
  if (node.leaves) for (const l of node.leaves) out += l.text;
  for (const list of childLists(node)) for (const c of list) out += ` ${plainText(c, budget)}`;
  budget.left -= out.length;
  return out;
}

function similarity(a: AnyNode, b: AnyNode): number {
  const wordsA = new Set(plainText(a).toLowerCase().split(/\s+/).filter(Boolean).slice(0, 300));
  const wordsB = new Set(plainText(b).toLowerCase().split(/\s+/).filter(Boolean).slice(0, 300));
  if (wordsA.size === 0 && wordsB.size === 0) return 1;
  let common = 0;
  for (const w of wordsA) if (wordsB.has(w)) common++;
  return common / Math.max(wordsA.size, wordsB.size);
}

/** Pairs of indexes of equal items, increasing in both sequences. */
function alignEqual(prev: string[], next: string[]): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  let start = 0;
  while (start < prev.length && start < next.length && prev[start] === next[start]) {
    pairs.push([start, start]);
    start++;
  }
  let endPrev = prev.length;
  let endNext = next.length;
  const suffix: Array<[number, number]> = [];
  while (endPrev > start && endNext > start && prev[endPrev - 1] === next[endNext - 1]) {
    endPrev--;
    endNext--;
    suffix.push([endPrev, endNext]);
  }
  const n = endPrev - start;
  const m = endNext - start;
  if (n > 0 && m > 0) {
    const middle = n * m <= 1_000_000 ? lcs(prev, next, start, endPrev, endNext) : uniqueAnchors(prev, next, start, endPrev, endNext);
    for (const pair of middle) pairs.push(pair);
  }
  // Loops, not spreads: these lists can be longer than a call's argument limit.
  for (let i = suffix.length - 1; i >= 0; i--) pairs.push(suffix[i]!);
  return pairs;
}

function lcs(prev: string[], next: string[], start: number, endPrev: number, endNext: number): Array<[number, number]> {
  const n = endPrev - start;
  const m = endNext - start;
  const table = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * (m + 1) + j] =
        prev[start + i] === next[start + j]
          ? table[(i + 1) * (m + 1) + j + 1]! + 1
          : Math.max(table[(i + 1) * (m + 1) + j]!, table[i * (m + 1) + j + 1]!);
    }
  }
  const pairs: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (prev[start + i] === next[start + j]) {
      pairs.push([start + i, start + j]);
      i++;
      j++;
    } else if (table[(i + 1) * (m + 1) + j]! >= table[i * (m + 1) + j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/** Patience-style alignment for long lists: signatures unique on both sides, longest increasing run. */
function uniqueAnchors(prev: string[], next: string[], start: number, endPrev: number, endNext: number): Array<[number, number]> {
  const count = (list: string[], end: number) => {
    const map = new Map<string, { n: number; index: number }>();
    for (let i = start; i < end; i++) {
      const entry = map.get(list[i]!);
      if (entry) entry.n++;
      else map.set(list[i]!, { n: 1, index: i });
    }
    return map;
  };
  const inPrev = count(prev, endPrev);
  const inNext = count(next, endNext);
  const candidates: Array<[number, number]> = [];
  for (let j = start; j < endNext; j++) {
    const a = inPrev.get(next[j]!);
    const b = inNext.get(next[j]!);
    if (a?.n === 1 && b?.n === 1) candidates.push([a.index, j]);
  }
  // Longest increasing subsequence on the previous index (patience sorting), O(k log k).
  const tails: number[] = [];
  const parent = new Array<number>(candidates.length).fill(-1);
  for (let c = 0; c < candidates.length; c++) {
    const value = candidates[c]![0];
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (candidates[tails[mid]!]![0] < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) parent[c] = tails[lo - 1]!;
    tails[lo] = c;
  }
  const out: Array<[number, number]> = [];
  for (let c = tails.length ? tails[tails.length - 1]! : -1; c >= 0; c = parent[c]!) out.push(candidates[c]!);
  return out.reverse();
}

class Reconciler {
  private readonly used = new Set<string>();
  private readonly sigs = new Signatures();
  private readonly pending: AnyNode[] = [];

  /** Nodes of the new document that keep the key they came with; their keys are taken already. */
  private readonly kept = new Set<AnyNode>();

  constructor(private readonly previous: JSONDocument | undefined) {}

  /** `node` keeps its key: nothing else may be given it. */
  keep(node: AnyNode): void {
    this.kept.add(node);
    this.used.add(node.key!);
  }

  has(key: string): boolean {
    return this.used.has(key);
  }

  get keepsAll(): boolean {
    return this.pendingKeys === 0;
  }

  /** Keyed nodes of the new document that have no key yet. */
  pendingKeys = 0;

  run(next: JSONDocument): void {
    const nextRoot = next as unknown as AnyNode;
    if (this.previous) this.reconcileChildren(this.previous as unknown as AnyNode, nextRoot);
    else for (const list of childLists(nextRoot)) for (const node of list) this.pending.push(node);
    const pool = this.previous ? this.leftovers(this.previous as unknown as AnyNode) : new Map<string, AnyNode[]>();
    for (const node of this.pending) this.placeUnmatched(node, pool);
  }

  private take(key: string | undefined): string | undefined {
    if (key === undefined || this.used.has(key)) return undefined;
    this.used.add(key);
    return key;
  }

  private fresh(): string {
    for (;;) {
      const key = newKey();
      if (!this.used.has(key)) {
        this.used.add(key);
        return key;
      }
    }
  }

  private setKey(node: AnyNode, key: string | undefined): void {
    if (!isKeyed(node)) {
      delete node.key;
      return;
    }
    node.key = key ?? this.fresh();
  }

  /** Identical subtrees: every node takes the key of its counterpart (a node that came with one keeps it). */
  private copyKeys(prev: AnyNode, next: AnyNode): void {
    if (!this.kept.has(next)) this.setKey(next, this.take(prev.key));
    const prevLists = childLists(prev);
    const nextLists = childLists(next);
    nextLists.forEach((list, l) => {
      list.forEach((child, i) => {
        const counterpart = prevLists[l]?.[i];
        if (counterpart) this.copyKeys(counterpart, child);
        else this.assignFresh(child);
      });
    });
  }

  private assignFresh(node: AnyNode): void {
    if (!this.kept.has(node)) this.setKey(node, undefined);
    for (const list of childLists(node)) for (const child of list) this.assignFresh(child);
  }

  private reconcileChildren(prev: AnyNode, next: AnyNode): void {
    const prevLists = childLists(prev);
    const nextLists = childLists(next);
    nextLists.forEach((list, l) => {
      this.reconcileList(prevLists[l] ?? [], list);
    });
  }

  private reconcileList(prev: AnyNode[], next: AnyNode[]): void {
    const prevSigs = prev.map((n) => this.sigs.of(n));
    const nextSigs = next.map((n) => this.sigs.of(n));
    const pairs = alignEqual(prevSigs, nextSigs);
    let lastPrev = 0;
    let lastNext = 0;
    const gaps: Array<[number, number, number, number]> = [];
    for (const [p, n] of pairs) {
      gaps.push([lastPrev, p, lastNext, n]);
      this.copyKeys(prev[p]!, next[n]!);
      lastPrev = p + 1;
      lastNext = n + 1;
    }
    gaps.push([lastPrev, prev.length, lastNext, next.length]);
    for (const [p0, p1, n0, n1] of gaps) this.reconcileGap(prev.slice(p0, p1), next.slice(n0, n1));
  }

  private reconcileGap(prev: AnyNode[], next: AnyNode[]): void {
    if (next.length === 0) return;
    const sameShape = (a: AnyNode, b: AnyNode) => a.object === b.object && a.type === b.type && a.object !== "text";
    if (prev.length === next.length) {
      next.forEach((node, i) => {
        const counterpart = prev[i]!;
        if (sameShape(counterpart, node)) this.editedInPlace(counterpart, node);
        else this.pending.push(node);
      });
      return;
    }
    let cursor = 0;
    for (const node of next) {
      let found = -1;
      for (let i = cursor; i < prev.length; i++) {
        if (sameShape(prev[i]!, node) && similarity(prev[i]!, node) >= 0.5) {
          found = i;
          break;
        }
      }
      if (found >= 0) {
        this.editedInPlace(prev[found]!, node);
        cursor = found + 1;
      } else this.pending.push(node);
    }
  }

  private editedInPlace(prev: AnyNode, next: AnyNode): void {
    if (this.kept.has(next)) {
      this.reconcileChildren(prev, next);
      return;
    }
    const key = this.take(prev.key);
    if (key === undefined && isKeyed(next)) {
      this.pending.push(next);
      return;
    }
    this.setKey(next, key);
    this.reconcileChildren(prev, next);
  }

  /** Previous nodes whose key nobody took, by signature, in document order. */
  private leftovers(root: AnyNode): Map<string, AnyNode[]> {
    const pool = new Map<string, AnyNode[]>();
    const visit = (node: AnyNode) => {
      if (isKeyed(node) && node.key !== undefined && !this.used.has(node.key)) {
        const sig = this.sigs.of(node);
        const list = pool.get(sig);
        if (list) list.push(node);
        else pool.set(sig, [node]);
      }
      for (const list of childLists(node)) for (const child of list) visit(child);
    };
    for (const list of childLists(root)) for (const child of list) visit(child);
    return pool;
  }

  private placeUnmatched(node: AnyNode, pool: Map<string, AnyNode[]>): void {
    if (this.kept.has(node)) {
      for (const list of childLists(node)) for (const child of list) this.placeUnmatched(child, pool);
      return;
    }
    // Without leftovers (a new page: no previous document) no signature can match; skipping them
    // saved ~10% of a first import's conversion CPU (a SHA-1 of every subtree).
    const candidates = pool.size > 0 ? pool.get(this.sigs.of(node)) : undefined;
    while (candidates?.length) {
      const candidate = candidates.shift()!;
      if (this.subtreeKeysFree(candidate, node)) {
        this.copyKeys(candidate, node);
        return;
      }
    }
    this.setKey(node, undefined);
    for (const list of childLists(node)) for (const child of list) this.placeUnmatched(child, pool);
  }

  /** Whether `prev`'s keys are free for `next` (the same content): a node of `next` that keeps its own key needs none. */
  private subtreeKeysFree(prev: AnyNode, next: AnyNode | undefined): boolean {
    if (!(next && this.kept.has(next)) && prev.key !== undefined && this.used.has(prev.key)) return false;
    const nextLists = next ? childLists(next) : [];
    return childLists(prev).every((list, l) => list.every((child, i) => this.subtreeKeysFree(child, nextLists[l]?.[i])));
  }
}

/**
 * Keys for `next`, carried over from `previous` where blocks are unchanged, moved, or edited in place
 * (see the header). Returns a new document; `next` is not modified. Without `previous`, every keyed
 * node gets a fresh key.
 */
export function reconcileKeys(previous: JSONDocument | undefined, next: JSONDocument): JSONDocument {
  const copy = structuredClone(next);
  reconcileKeysInPlace(previous, copy);
  return copy;
}

export interface ReconcileOptions {
  /** Keyed nodes that carry a key not met earlier in `next` keep it (see the header). */
  keepGiven?: boolean;
}

/** `reconcileKeys` writing into `next` itself (the parser uses it on documents it just built). */
export function reconcileKeysInPlace(previous: JSONDocument | undefined, next: JSONDocument, options: ReconcileOptions = {}): void {
  const reconciler = new Reconciler(previous);
  const visit = (node: AnyNode) => {
    if (options.keepGiven && isKeyed(node) && typeof node.key === "string" && node.key !== "" && !reconciler.has(node.key))
      reconciler.keep(node);
    else {
      delete node.key;
      if (isKeyed(node)) reconciler.pendingKeys++;
    }
    for (const list of childLists(node)) for (const child of list) visit(child);
  };
  for (const list of childLists(next as unknown as AnyNode)) for (const node of list) visit(node);
  // Every node named itself (the editor's saves): nothing to look up.
  if (reconciler.keepsAll) return;
  reconciler.run(next);
}

/** Every key in a document, in document order (for tests and merge code). */
export function collectKeys(document: JSONDocument): string[] {
  const keys: string[] = [];
  const visit = (node: AnyNode) => {
    if (node.key !== undefined) keys.push(node.key);
    for (const list of childLists(node)) for (const child of list) visit(child);
  };
  for (const list of childLists(document as unknown as AnyNode)) for (const node of list) visit(node);
  return keys;
}

/**
 * Gives every keyed node a key derived from `seed` and its place in document order, in place: a
 * document made anew from the same text on each read (an Ask answer kept as Markdown) then reads
 * back with the same keys every time.
 */
export function seedKeys(document: JSONDocument, seed: string): void {
  let index = 0;
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  const keyOf = (n: number) => {
    const digest = createHash("sha256").update(`${seed}\n${n}`).digest();
    let key = "";
    for (let i = 0; i < KEY_LENGTH; i++) key += alphabet[(digest[i] ?? 0) % alphabet.length];
    return key;
  };
  const stack: AnyNode[] = [];
  for (const list of childLists(document as unknown as AnyNode)) for (let i = list.length - 1; i >= 0; i--) stack.push(list[i] as AnyNode);
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (isKeyed(node)) node.key = keyOf(index++);
    const lists = childLists(node);
    for (let l = lists.length - 1; l >= 0; l--) {
      const list = lists[l] as AnyNode[];
      for (let i = list.length - 1; i >= 0; i--) stack.push(list[i] as AnyNode);
    }
  }
}
