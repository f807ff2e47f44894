/**
 * The slice of GitBook's document model (`JSONDocument` in the OpenAPI spec) that the PDF renderer reads.
 *
 * Kept deliberately loose: documents come from storage and from clients, so every field the renderer
 * touches is optional here and read through the accessors shared with the HTML renderer
 * (content/document/loose.ts) and the helpers below. A malformed node degrades to its text content
 * instead of throwing halfway through a 1,000-page export.
 */
import * as loose from "../document/loose.js";
import { dataString, emojiText } from "../document/loose.js";

export { dataFlag, dataNumber, dataString, emojiText } from "../document/loose.js";

/** A content reference (`ContentRef`): url, file, page, anchor, user, space, reusable-content, openapi… */
export interface ContentRef {
  kind: string;
  url?: string;
  file?: string;
  page?: string;
  anchor?: string;
  space?: string;
  user?: string;
  collection?: string;
  reusableContent?: string;
  spec?: string;
}

export interface DocumentMark {
  object?: "mark";
  type: string;
  data?: { text?: string; background?: string };
}

export interface DocumentTextLeaf {
  object?: "leaf";
  text: string;
  marks?: DocumentMark[];
}

export interface DocumentText {
  object: "text";
  leaves: DocumentTextLeaf[];
}

export interface DocumentFragment {
  object: "fragment";
  fragment?: string;
  type?: string;
  nodes: DocumentNode[];
}

/** A block or inline node. `data` varies by `type`; readers narrow it with the accessors below. */
export interface DocumentElement {
  object: "block" | "inline";
  type: string;
  key?: string;
  isVoid?: boolean;
  data?: Record<string, unknown>;
  meta?: { id?: string };
  nodes?: DocumentNode[];
  fragments?: DocumentFragment[];
}

export type DocumentNode = DocumentElement | DocumentText;

export interface JSONDocument {
  object: "document";
  data?: Record<string, unknown>;
  nodes: DocumentNode[];
}

/** Table definitions (`DocumentTableDefinition*`): only what a cell needs to be printed. */
export interface TableDefinition {
  id?: string;
  title?: string;
  type: string;
  textAlignment?: "left" | "center" | "right";
  max?: number;
  options?: { value: string; label: string }[];
}

export interface TableRecord {
  orderIndex?: string;
  values?: Record<string, unknown>;
}

export function isText(node: unknown): node is DocumentText {
  return typeof node === "object" && node !== null && (node as { object?: unknown }).object === "text";
}

export function isElement(node: unknown): node is DocumentElement {
  if (typeof node !== "object" || node === null) return false;
  const object = (node as { object?: unknown }).object;
  return (object === "block" || object === "inline") && typeof (node as { type?: unknown }).type === "string";
}

/** Child nodes, tolerating absent or malformed arrays. */
export function childNodes(node: { nodes?: unknown }): DocumentNode[] {
  return Array.isArray(node.nodes) ? (node.nodes as DocumentNode[]) : [];
}

// The shared accessors, typed with this file's (loose) references and fragments.
export const asContentRef: (value: unknown) => ContentRef | undefined = loose.asContentRef;
export const dataRef: (node: DocumentElement, key?: string) => ContentRef | undefined = loose.dataRef;
export const fragmentsOf: (node: DocumentElement) => DocumentFragment[] = loose.fragmentsOf;
export const fragmentNamed: (node: DocumentElement, name: string) => DocumentFragment | undefined = loose.fragmentNamed;

/**
 * Plain text of any node, walked with an explicit stack so a pathologically deep document cannot
 * overflow the call stack. Blocks are separated by newlines, inline content is concatenated.
 */
export function plainText(root: DocumentNode | DocumentFragment | JSONDocument): string {
  const out: string[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === "string") {
      out.push(node);
      continue;
    }
    if (typeof node !== "object" || node === null) continue;
    if (isText(node)) {
      for (const leaf of Array.isArray(node.leaves) ? node.leaves : []) {
        if (typeof leaf?.text === "string") out.push(leaf.text);
      }
      continue;
    }
    const element = node as DocumentElement;
    const inlineText = isElement(element) ? voidText(element) : undefined;
    if (inlineText !== undefined) {
      out.push(inlineText);
      continue;
    }
    // Blocks end with a newline so that paragraphs of the same container don't run together.
    if (isElement(element) && element.object === "block") stack.push("\n");
    // Children are pushed last-first so they pop in document order (fragments before nodes).
    const nodes = childNodes(element);
    for (let i = nodes.length - 1; i >= 0; i--) stack.push(nodes[i]);
    if (isElement(element)) {
      const fragments = fragmentsOf(element);
      for (let i = fragments.length - 1; i >= 0; i--) stack.push(fragments[i]);
    }
  }
  return out
    .join("")
    .replace(/[ \t]*\n[\s]*/g, "\n")
    .trim();
}

/** Text that a void node stands for (emoji, math, expressions…), or undefined for containers. */
function voidText(node: DocumentElement): string | undefined {
  switch (node.type) {
    case "emoji":
      return emojiText(dataString(node, "code") ?? "");
    case "inline-math":
    case "math":
      return dataString(node, "formula") ?? "";
    case "expression":
      return dataString(node, "expression") ?? "";
    case "button":
      return dataString(node, "label") ?? "";
    case "embed":
      return dataString(node, "url") ?? "";
    default:
      return undefined;
  }
}
