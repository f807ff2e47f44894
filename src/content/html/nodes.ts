/**
 * Loose reading of stored documents. Documents come from storage, imports and API clients, so the
 * renderer reads every field through these accessors: a malformed node degrades to its text
 * instead of throwing halfway through a page.
 */
import type { ContentRef } from "../document/types.js";

export interface Leaf {
  text?: unknown;
  marks?: unknown;
}

export interface Node {
  object?: unknown;
  type?: unknown;
  key?: unknown;
  data?: Record<string, unknown>;
  meta?: { id?: unknown };
  nodes?: unknown;
  leaves?: unknown;
  fragments?: unknown;
}

export interface Fragment {
  object: "fragment";
  fragment?: unknown;
  type?: unknown;
  nodes?: unknown;
}

export function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isText(node: Node): boolean {
  return node.object === "text";
}

export function typeOf(node: Node): string {
  return typeof node.type === "string" ? node.type : "";
}

export function children(node: { nodes?: unknown } | undefined): Node[] {
  return node && Array.isArray(node.nodes) ? (node.nodes.filter(isNode) as Node[]) : [];
}

export function leaves(node: Node): Leaf[] {
  return Array.isArray(node.leaves) ? (node.leaves.filter(isNode) as Leaf[]) : [];
}

export function fragments(node: Node): Fragment[] {
  return Array.isArray(node.fragments) ? (node.fragments.filter(isNode) as Fragment[]) : [];
}

/** The fragment named `name` (its `fragment` field), or the first of that `type`. */
export function fragmentNamed(node: Node, name: string): Fragment | undefined {
  const all = fragments(node);
  return all.find((f) => f.fragment === name) ?? all.find((f) => f.type === name);
}

export function str(node: Node, key: string): string | undefined {
  const value = node.data?.[key];
  return typeof value === "string" ? value : undefined;
}

export function num(node: Node, key: string): number | undefined {
  const value = node.data?.[key];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function bool(node: Node, key: string): boolean {
  return node.data?.[key] === true;
}

export function asRef(value: unknown): ContentRef | undefined {
  if (!isNode(value)) return undefined;
  const kind = (value as { kind?: unknown }).kind;
  return typeof kind === "string" ? (value as unknown as ContentRef) : undefined;
}

export function ref(node: Node, key = "ref"): ContentRef | undefined {
  return asRef(node.data?.[key]);
}

/**
 * Plain text of a subtree, walked with an explicit stack so that a pathologically deep document
 * cannot overflow the call stack (used past the renderer's depth bound, and for slugs and titles).
 */
export function textOf(root: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === "string") {
      out.push(node);
      continue;
    }
    if (!isNode(node)) continue;
    if (node.object === "text") {
      for (const leaf of leaves(node)) if (typeof leaf.text === "string") out.push(leaf.text);
      continue;
    }
    const type = typeOf(node);
    if (type === "emoji") out.push(emojiText(str(node, "code") ?? ""));
    else if (type === "inline-math" || type === "math") out.push(str(node, "formula") ?? "");
    else if (type === "button") out.push(str(node, "label") ?? "");
    if (node.object === "block") stack.push("\n");
    const nodes = Array.isArray(node.nodes) ? node.nodes : [];
    for (let i = nodes.length - 1; i >= 0; i--) stack.push(nodes[i]);
    // Annotation bodies are notes about the text, not part of it.
    if (type !== "annotation") {
      const frags = fragments(node);
      for (let i = frags.length - 1; i >= 0; i--) stack.push(frags[i]);
    }
  }
  return out.join("");
}

/** GitBook stores emoji as hex code points joined by "-" (e.g. "1f468-200d-1f469"). */
export function emojiText(code: string): string {
  const points = code
    .split("-")
    .map((part) => Number.parseInt(part, 16))
    .filter((cp) => Number.isInteger(cp) && cp > 0 && cp <= 0x10ffff);
  return points.length > 0 ? String.fromCodePoint(...points) : "";
}
