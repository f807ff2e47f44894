/**
 * Loose reading of stored documents, for the renderers (HTML and PDF). Documents come from storage,
 * imports and API clients, so a renderer reads every field through these accessors: a malformed
 * node degrades to its text instead of throwing halfway through a page. Each renderer types nodes
 * its own way; these accept any node with `data` or `fragments`.
 */
import type { ContentRef } from "./types.js";

/** A fragment (`nodes` of a named part of a block) as stored: nothing is assumed about its fields. */
export interface LooseFragment {
  object?: unknown;
  fragment?: unknown;
  type?: unknown;
  nodes?: unknown;
}

interface WithData {
  data?: Record<string, unknown> | undefined;
}

/** An object that is not an array (a node, a leaf, a fragment, a reference...). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function dataString(node: WithData, key: string): string | undefined {
  const value = node.data?.[key];
  return typeof value === "string" ? value : undefined;
}

export function dataNumber(node: WithData, key: string): number | undefined {
  const value = node.data?.[key];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A flag of `data`: set only when it is `true` itself. */
export function dataFlag(node: WithData, key: string): boolean {
  return node.data?.[key] === true;
}

/**
 * `value` when it looks like a content reference (an object with a string `kind`). Only `kind` is
 * checked: the renderer reading it types `R` as loosely as it reads the other fields.
 */
export function asContentRef<R extends { kind: string } = ContentRef>(value: unknown): R | undefined {
  return isObject(value) && typeof value.kind === "string" ? (value as unknown as R) : undefined;
}

export function dataRef<R extends { kind: string } = ContentRef>(node: WithData, key = "ref"): R | undefined {
  return asContentRef<R>(node.data?.[key]);
}

/** The fragments of a block, leaving out anything that is not an object. */
export function fragmentsOf<F extends LooseFragment = LooseFragment>(node: { fragments?: unknown }): F[] {
  return Array.isArray(node.fragments) ? (node.fragments.filter(isObject) as F[]) : [];
}

/** The fragment named `name` (its `fragment` field), or the first of that `type`. */
export function fragmentNamed<F extends LooseFragment = LooseFragment>(node: { fragments?: unknown }, name: string): F | undefined {
  const all = fragmentsOf<F>(node);
  return all.find((f) => f.fragment === name) ?? all.find((f) => f.type === name);
}

/** GitBook stores emoji as hex code points joined by "-" (e.g. "1f468-200d-1f469"). */
export function emojiText(code: string): string {
  const points = code
    .split("-")
    .map((part) => Number.parseInt(part, 16))
    .filter((cp) => Number.isInteger(cp) && cp > 0 && cp <= 0x10ffff);
  return points.length > 0 ? String.fromCodePoint(...points) : "";
}

/**
 * A page's, space's or favicon's emoji as shown: the API takes GitBook's hex code points ("1f4d8",
 * "1f469-200d-1f4bb") or the character itself; code points become the character, anything else
 * is shown as written (escaped by the caller).
 */
export function emojiCharacter(emoji: string): string {
  return /^[0-9a-f]{4,6}(-[0-9a-f]{4,6})*$/i.test(emoji) ? emojiText(emoji) || emoji : emoji;
}
