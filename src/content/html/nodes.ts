/**
 * The HTML renderer's loose view of stored documents: its node types and walkers, and the
 * accessors it shares with the PDF renderer (content/document/loose.ts). Documents come from
 * storage, imports and API clients, so a malformed node degrades to its text instead of throwing
 * halfway through a page.
 */
import { dataString, emojiText, fragmentsOf, isObject, type LooseFragment } from "../document/loose.js";

export {
  asContentRef,
  dataFlag,
  dataNumber,
  dataRef,
  dataString,
  emojiText,
  fragmentNamed,
  fragmentsOf,
} from "../document/loose.js";

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

export type Fragment = LooseFragment;

export const isNode = isObject as (value: unknown) => value is Node;

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
    if (type === "emoji") out.push(emojiText(dataString(node, "code") ?? ""));
    else if (type === "inline-math" || type === "math") out.push(dataString(node, "formula") ?? "");
    else if (type === "button") out.push(dataString(node, "label") ?? "");
    if (node.object === "block") stack.push("\n");
    const nodes = Array.isArray(node.nodes) ? node.nodes : [];
    for (let i = nodes.length - 1; i >= 0; i--) stack.push(nodes[i]);
    // Annotation bodies are notes about the text, not part of it.
    if (type !== "annotation") {
      const frags = fragmentsOf(node);
      for (let i = frags.length - 1; i >= 0; i--) stack.push(frags[i]);
    }
  }
  return out.join("");
}
