/**
 * Sibling order of collections and spaces: each row holds a fractional-index key and siblings sort
 * by it, so moving one item rewrites one row instead of renumbering its siblings.
 *
 * Keys use only 0-9 and a-z. Mixed-case keys (the library's default alphabet) would sort
 * differently under a PostgreSQL database created with a linguistic collation (en_US sorts "a"
 * before "B"); lower-case alphanumerics sort the same under C, en_US and SQLite's BINARY.
 */
import { generateKeyBetween, generateNKeysBetween } from "fractional-indexing";

const DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz";
const HEADS = "abcdefghijklmnopqrstuvwxyz";

/** A key strictly between `before` and `after` (null = open end). */
export function keyBetween(before: string | null, after: string | null): string {
  return generateKeyBetween(before, after, DIGITS, HEADS);
}

/** `n` increasing keys strictly between `before` and `after`. */
export function keysBetween(before: string | null, after: string | null, n: number): string[] {
  return generateNKeysBetween(before, after, n, DIGITS, HEADS);
}

export type ContentKind = "space" | "collection";

/** One child of a parent (a collection, or the top level of an organization). */
export interface Sibling {
  kind: ContentKind;
  id: string;
  position: string;
}

/** Siblings in display order: by key, then by id so that a (rare) duplicate key still orders totally. */
export function sortSiblings<T extends Sibling>(siblings: readonly T[]): T[] {
  return [...siblings].sort((a, b) =>
    a.position < b.position ? -1 : a.position > b.position ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
}

/** The key for a new last child. */
export function keyAtEnd(siblings: readonly Sibling[]): string {
  const last = sortSiblings(siblings).at(-1);
  return keyBetween(last?.position ?? null, null);
}

/**
 * New keys that put the items of `order` in that order. Only `moved` gets a new key when its
 * neighbours' keys leave room; otherwise (two neighbours share a key, which concurrent inserts can
 * produce) every item of the list is renumbered.
 */
export function positionsFor(order: readonly Sibling[], moved: { kind: ContentKind; id: string }): Sibling[] {
  const index = order.findIndex((s) => s.kind === moved.kind && s.id === moved.id);
  if (index < 0) throw new Error("positionsFor: the moved item is not in the order");
  const prev = order[index - 1]?.position ?? null;
  const next = order[index + 1]?.position ?? null;
  if (prev === null || next === null || prev < next) {
    return [{ kind: moved.kind, id: moved.id, position: keyBetween(prev, next) }];
  }
  const keys = keysBetween(null, null, order.length);
  return order.map((s, i) => ({ kind: s.kind, id: s.id, position: keys[i] as string }));
}
