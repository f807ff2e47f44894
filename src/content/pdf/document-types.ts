/**
 * The slice of GitBook's document model (`JSONDocument` in the OpenAPI spec) that the PDF renderer reads.
 *
 * Kept deliberately loose: documents come from storage and from clients, so every field the renderer
 * touches is optional here and read through the helpers below. A malformed node degrades to its text
 * content instead of throwing halfway through a 1,000-page export.
 */

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

export function fragmentsOf(node: DocumentElement): DocumentFragment[] {
  return Array.isArray(node.fragments) ? node.fragments.filter((f) => typeof f === "object" && f !== null) : [];
}

/** The fragment named `name` (`fragment` field), or the first with that `type`. */
export function fragmentNamed(node: DocumentElement, name: string): DocumentFragment | undefined {
  const all = fragmentsOf(node);
  return all.find((f) => f.fragment === name) ?? all.find((f) => f.type === name);
}

export function dataString(node: DocumentElement, key: string): string | undefined {
  const value = node.data?.[key];
  return typeof value === "string" ? value : undefined;
}

export function dataNumber(node: DocumentElement, key: string): number | undefined {
  const value = node.data?.[key];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function dataBoolean(node: DocumentElement, key: string): boolean | undefined {
  const value = node.data?.[key];
  return typeof value === "boolean" ? value : undefined;
}

export function dataRef(node: DocumentElement, key = "ref"): ContentRef | undefined {
  const value = node.data?.[key];
  return asContentRef(value);
}

export function asContentRef(value: unknown): ContentRef | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const kind = (value as { kind?: unknown }).kind;
  return typeof kind === "string" ? (value as ContentRef) : undefined;
}

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

/** GitBook stores emoji as hex code points joined by "-" (e.g. "1f468-200d-1f469"). */
export function emojiText(code: string): string {
  const points = code
    .split("-")
    .map((part) => Number.parseInt(part, 16))
    .filter((cp) => Number.isInteger(cp) && cp > 0 && cp <= 0x10ffff);
  return points.length > 0 ? String.fromCodePoint(...points) : "";
}
