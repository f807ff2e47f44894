/**
 * Node constructors, inline normalization, and the 0.146 schema's nesting rules (which block types
 * each container accepts). The converter builds every node through these so that documents come out
 * in one canonical shape: equal content gives deep-equal JSON, which the round-trip tests and the
 * key reconciliation rely on.
 */
import type {
  DocumentBlock,
  DocumentBlockParagraph,
  DocumentMark,
  DocumentText,
  DocumentTextLeaf,
  InlineContent,
  TextColor,
} from "./types.js";

const MARK_ORDER: Record<DocumentMark["type"], number> = {
  bold: 0,
  italic: 1,
  strikethrough: 2,
  code: 3,
  keyboard: 4,
  superscript: 5,
  subscript: 6,
  color: 7,
};

/** Marks sorted in one fixed order, without duplicates of a type (the last color wins). */
export function canonicalMarks(marks: readonly DocumentMark[]): DocumentMark[] {
  const byType = new Map<string, DocumentMark>();
  for (const mark of marks) byType.set(mark.type, mark);
  return [...byType.values()].sort((a, b) => MARK_ORDER[a.type] - MARK_ORDER[b.type]);
}

export function sameMarks(a: readonly DocumentMark[], b: readonly DocumentMark[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.type !== y.type) return false;
    if (x.type === "color" && y.type === "color" && (x.data.text !== y.data.text || x.data.background !== y.data.background)) return false;
  }
  return true;
}

/** A leaf; line breaks alone carry no marks (formatting on them is invisible and has no Markdown form). */
export function leaf(text: string, marks: readonly DocumentMark[] = []): DocumentTextLeaf {
  return { object: "leaf", text, marks: /^\n+$/.test(text) ? [] : canonicalMarks(marks) };
}

export function textNode(leaves: DocumentTextLeaf[]): DocumentText {
  return { object: "text", leaves: normalizeLeaves(leaves) };
}

/** Merges neighbouring leaves with the same marks and drops empty ones (keeping one if all are empty). */
export function normalizeLeaves(leaves: readonly DocumentTextLeaf[]): DocumentTextLeaf[] {
  const out: DocumentTextLeaf[] = [];
  for (let l of leaves) {
    if (l.text === "") continue;
    const marks = /^\n+$/.test(l.text) ? [] : l.marks;
    if (marks !== l.marks) l = { object: "leaf", text: l.text, marks };
    const last = out[out.length - 1];
    if (last && sameMarks(last.marks, l.marks)) out[out.length - 1] = { object: "leaf", text: last.text + l.text, marks: last.marks };
    else out.push({ object: "leaf", text: l.text, marks: canonicalMarks(l.marks) });
  }
  if (out.length === 0) out.push(leaf(""));
  return out;
}

/**
 * Slate's normal form, which GitBook documents follow: texts are merged, and every inline sits
 * between two texts (empty ones where needed), so a block's `nodes` start and end with a text.
 */
export function normalizeInlines(nodes: readonly InlineContent[]): InlineContent[] {
  const out: InlineContent[] = [];
  // Leaves are appended in place: copying the pending list for each text made a paragraph of many
  // marked words quadratic in its length.
  let pending: DocumentTextLeaf[] = [];
  for (const node of nodes) {
    if (node.object === "text") {
      for (const l of node.leaves) pending.push(l);
      continue;
    }
    out.push(textNode(pending));
    pending = [];
    out.push(node);
  }
  out.push(textNode(pending));
  return out;
}

export function paragraph(nodes: readonly InlineContent[]): DocumentBlockParagraph {
  return { object: "block", type: "paragraph", nodes: normalizeInlines(nodes) };
}

export function plainParagraph(text: string): DocumentBlockParagraph {
  return paragraph([textNode([leaf(text)])]);
}

/** The text of inline content, ignoring marks and void inlines other than emoji and math. */
export function inlineText(nodes: readonly InlineContent[]): string {
  let out = "";
  for (const node of nodes) {
    if (node.object === "text") for (const l of node.leaves) out += l.text;
    else if (node.type === "link" || node.type === "annotation") out += inlineText(node.nodes);
    else if (node.type === "inline-math") out += node.data.formula;
    else if (node.type === "expression") out += node.data.expression;
    else if (node.type === "button") out += node.data.label;
  }
  return out;
}

/** The schema's colours (`TextColor`): text and background of the color mark, icons. */
const TEXT_COLORS: Record<TextColor, true> = {
  default: true,
  green: true,
  blue: true,
  red: true,
  orange: true,
  yellow: true,
  purple: true,
  $primary: true,
  $info: true,
  $success: true,
  $warning: true,
  $danger: true,
};

export function isTextColor(value: unknown): value is TextColor {
  return typeof value === "string" && Object.hasOwn(TEXT_COLORS, value);
}

// ---- nesting rules of the 0.146 schema ---------------------------------------------------------

const ESSENTIALS = ["paragraph", "heading-1", "heading-2", "heading-3", "list-ordered", "list-unordered", "list-tasks", "divider"] as const;
const TAB_CHILDREN = [
  ...ESSENTIALS,
  "content-ref",
  "code",
  "embed",
  "file",
  "images",
  "drawing",
  "hint",
  "blockquote",
  "math",
  "integration",
] as const;
/** The blocks a document may hold at its top level (`DocumentBlocksTopLevels` of @gitbook/api). */
export const TOP_LEVEL_BLOCK_TYPES = [
  ...ESSENTIALS,
  "blockquote",
  "hint",
  "images",
  "file",
  "drawing",
  "embed",
  "code",
  "math",
  "expandable",
  "tabs",
  "table",
  "swagger",
  "openapi-operation",
  "openapi-schemas",
  "openapi-webhook",
  "content-ref",
  "integration",
  "reusable-content",
  "stepper",
] as const;

/** Where a list of blocks lives; each context accepts the block types its schema lists. */
export type BlockContext =
  | "document"
  | "hint"
  | "blockquote"
  | "list-item"
  | "tabs-item"
  | "stepper-step"
  | "expandable-body"
  | "annotation-body"
  | "column";

const ALLOWED: Record<BlockContext, ReadonlySet<string>> = {
  document: new Set(TOP_LEVEL_BLOCK_TYPES),
  hint: new Set(ESSENTIALS),
  blockquote: new Set([...ESSENTIALS, "blockquote"]),
  "list-item": new Set([...ESSENTIALS, "code", "hint", "blockquote", "math", "table"]),
  "tabs-item": new Set(TAB_CHILDREN),
  "stepper-step": new Set(TAB_CHILDREN),
  "expandable-body": new Set([...ESSENTIALS, "images", "code", "table", "hint", "blockquote", "reusable-content"]),
  "annotation-body": new Set([...ESSENTIALS, "code"]),
  column: new Set([
    ...ESSENTIALS,
    "images",
    "code",
    "hint",
    "content-ref",
    "drawing",
    "embed",
    "file",
    "integration",
    "math",
    "blockquote",
    "table",
  ]),
};

export function isAllowedIn(context: BlockContext, block: DocumentBlock): boolean {
  return ALLOWED[context].has(block.type);
}

/** The block types a context accepts (the editor's schema builds its content rules from these). */
export function blockTypesAllowedIn(context: BlockContext): ReadonlySet<string> {
  return ALLOWED[context];
}
