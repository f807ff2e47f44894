/**
 * Plain text of a document for the search index: one entry per section, a section starting at
 * each heading (the text before the first heading has no `heading`). Tag lines the converter keeps
 * as paragraphs (`{% if … %}`, `{% columns %}` …) are markup, not content, and are left out.
 *
 * `documentSearchText` also says which text shows to whom: conditional blocks (`if`) show only to
 * the readers of a published site whose claims make their condition true, so a section holding one
 * gives, besides its whole text (what members see), the texts readers may see, each under its
 * conditions.
 */
import { evaluate, evaluateCondition, isDeterministic, parseExpression } from "../../expr/index.js";
import type { DocumentBlock, DocumentFragment, InlineContent, JSONDocument } from "./types.js";

export interface PlainTextSection {
  /** `id`: the anchor the heading pins (`data.id`), when it has one. */
  heading?: { key: string; text: string; level: 1 | 2 | 3; id?: string };
  text: string;
}

/** A text readers may see: every condition must hold for the reader. */
export interface ReaderText {
  conditions: string[];
  text: string;
}

export interface SearchTextSection extends PlainTextSection {
  /**
   * Present when the section has conditional blocks: its texts for readers, the section's text
   * outside every conditional block first (`conditions: []`). Each holds only text that shows
   * together, so whatever matches in one is shown to a reader for whom its conditions hold.
   */
  readers?: ReaderText[];
}

/** What conditions and expressions see at indexing: the space's and the page's variables. */
export interface SearchTextContext {
  space: { vars: Record<string, string> };
  page: { vars: Record<string, string> };
}

const TAG_LINE = /^\{%.*%\}$/s;

/**
 * Readers' texts of one section hold its unconditional text again for each conditional block
 * (so that a query matching words on both sides finds it). Past this many characters in all, a
 * block's text is indexed without the section's unconditional text.
 */
const READER_TEXTS_MAX_CHARS = 256 * 1024;

/** A conditional block met in the walk: its condition, and the block it sits in (-1: none). */
interface Unit {
  parent: number;
  /** Null: never shown to readers (no condition, or one that is false for every reader). */
  expression: string | null;
}

interface Piece {
  text: string;
  /** The innermost conditional block around the text, -1 for none. */
  unit: number;
}

/**
 * How the walk treats expressions and conditional blocks: as plain text does (`undefined`: every
 * block's text, expressions as written), or as the search index does (with the variables).
 */
type Mode = SearchTextContext | undefined;

interface Walk {
  mode: Mode;
  units: Unit[];
  pieces: Piece[];
  unit: number;
}

export function documentToPlainText(document: JSONDocument): PlainTextSection[] {
  return walkSections(document, undefined).map(({ heading, pieces }) => ({
    ...(heading ? { heading } : {}),
    text: joinText(pieces.map((p) => p.text)),
  }));
}

/** The sections of a document as the search index stores them (see the module's comment). */
export function documentSearchText(document: JSONDocument, context: SearchTextContext): SearchTextSection[] {
  const sections: SearchTextSection[] = [];
  for (const { heading, pieces, units } of walkSections(document, context)) {
    const text = joinText(pieces.map((p) => p.text));
    const section: SearchTextSection = { ...(heading ? { heading } : {}), text };
    if (pieces.some((p) => p.unit !== -1)) section.readers = readerTexts(pieces, units);
    sections.push(section);
  }
  return sections;
}

function readerTexts(pieces: readonly Piece[], units: readonly Unit[]): ReaderText[] {
  const chain = (unit: number): number[] => {
    const out: number[] = [];
    for (let u = unit; u !== -1; u = (units[u] as Unit).parent) out.push(u);
    return out.reverse();
  };
  const unconditional = pieces.filter((p) => p.unit === -1);
  const shared = unconditional.reduce((n, p) => n + p.text.length, 0);
  const used = [...new Set(pieces.filter((p) => p.unit !== -1).map((p) => p.unit))];
  const withShared = shared * used.length <= READER_TEXTS_MAX_CHARS;
  const out: ReaderText[] = [];
  const first = joinText(unconditional.map((p) => p.text));
  if (first) out.push({ conditions: [], text: first });
  for (const unit of used) {
    const path = chain(unit);
    const expressions = path.map((u) => (units[u] as Unit).expression);
    if (expressions.some((e) => e === null)) continue;
    const inPath = new Set(path);
    const text = joinText(pieces.filter((p) => inPath.has(p.unit) || (withShared && p.unit === -1)).map((p) => p.text));
    if (text) out.push({ conditions: expressions as string[], text });
  }
  return out;
}

function joinText(parts: readonly string[]): string {
  return parts
    .join("\n")
    .replace(/[ \t]+/g, " ")
    .replace(/\n{2,}/g, "\n")
    .trim();
}

interface WalkedSection {
  heading?: PlainTextSection["heading"];
  pieces: Piece[];
  units: Unit[];
}

function walkSections(document: JSONDocument, mode: Mode): WalkedSection[] {
  const sections: WalkedSection[] = [];
  let heading: PlainTextSection["heading"] | undefined;
  let walk: Walk = { mode, units: [], pieces: [], unit: -1 };
  const flush = () => {
    if (heading || walk.pieces.some((p) => p.text.trim() !== "")) {
      sections.push({ ...(heading ? { heading } : {}), pieces: walk.pieces, units: walk.units });
    }
  };
  for (const block of document.nodes) {
    if (block.type === "heading-1" || block.type === "heading-2" || block.type === "heading-3") {
      flush();
      const level = block.type === "heading-1" ? 1 : block.type === "heading-2" ? 2 : 3;
      heading = {
        key: block.key ?? "",
        text: inlinesText(block.nodes, mode).trim(),
        level,
        ...(block.data?.id ? { id: block.data.id } : {}),
      };
      walk = { mode, units: [], pieces: [], unit: -1 };
      continue;
    }
    blockText(block, walk);
  }
  flush();
  return sections;
}

/** An expression's text at indexing: its value when it reads only variables; nothing when it depends on the reader. */
function expressionText(expression: string, mode: Mode): string {
  if (!mode) return expression;
  try {
    const parsed = parseExpression(expression);
    if (!isDeterministic(parsed, ["space", "page"])) return "";
    const value = evaluate(parsed, mode as unknown as Record<string, unknown>);
    if (value === undefined || value === null) return "";
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  } catch {
    return "";
  }
}

/**
 * A conditional block's condition at indexing: true or false when it reads only variables (the
 * same for every reader), "reader" when it depends on the reader. A malformed or failing condition
 * hides its block, as it does for readers.
 */
function conditionAtIndexing(expression: unknown, mode: SearchTextContext): boolean | "reader" {
  if (typeof expression !== "string") return false;
  if (expression.trim() === "") return true;
  try {
    const parsed = parseExpression(expression);
    if (!isDeterministic(parsed, ["space", "page"])) return "reader";
    return evaluateCondition(parsed, mode as unknown as Record<string, unknown>);
  } catch {
    return false;
  }
}

function inlinesText(nodes: readonly InlineContent[], mode: Mode): string {
  let out = "";
  for (const node of nodes) {
    if (node.object === "text") {
      for (const leaf of node.leaves) out += leaf.text;
      continue;
    }
    switch (node.type) {
      case "link":
        out += inlinesText(node.nodes, mode);
        break;
      case "annotation": {
        out += inlinesText(node.nodes, mode);
        // An annotation's body is inline text here: a conditional block inside it cannot be told
        // apart from the text around it, so (for search) it is left out unless it always shows.
        const inner: Walk = { mode, units: [], pieces: [], unit: -1 };
        for (const f of node.fragments) for (const b of f.nodes) blockText(b, inner);
        const shown = inner.pieces.filter((p) => !mode || p.unit === -1).map((p) => p.text);
        if (shown.length > 0) out += ` ${shown.join(" ")}`;
        break;
      }
      case "inline-math":
        out += node.data.formula;
        break;
      case "expression":
        out += expressionText(node.data.expression, mode);
        break;
      case "button":
        out += node.data.label;
        break;
      case "inline-image":
        if (node.data.alt) out += node.data.alt;
        if (node.data.caption) out += ` ${node.data.caption}`;
        break;
      default:
        break;
    }
  }
  return out;
}

function blockText(block: DocumentBlock | DocumentFragment, walk: Walk): void {
  const { mode } = walk;
  const push = (text: string) => walk.pieces.push({ text, unit: walk.unit });
  if (block.object === "block") {
    switch (block.type) {
      case "paragraph": {
        const text = inlinesText(block.nodes, mode);
        if (!TAG_LINE.test(text.trim())) push(text);
        return;
      }
      case "heading-1":
      case "heading-2":
      case "heading-3":
        push(inlinesText(block.nodes, mode));
        return;
      case "code":
        push(block.nodes.map((line) => inlinesText(line.nodes as InlineContent[], mode)).join("\n"));
        return;
      case "math":
        push(block.data.formula);
        return;
      case "image":
        if (block.data.alt) push(block.data.alt);
        break;
      case "tabs-item":
        if (block.data.title) push(block.data.title);
        break;
      case "table":
        push(
          Object.values(block.data.definition)
            .map((d) => d.title)
            .join(" "),
        );
        break;
      case "embed":
        push(block.data.url);
        return;
      case "if": {
        if (!mode) break;
        const expression = (block.data as { expression?: unknown } | undefined)?.expression;
        const holds = conditionAtIndexing(expression, mode);
        // Shown to every reader: its text is the section's own.
        if (holds === true) break;
        const outer = walk.unit;
        walk.units.push({ parent: outer, expression: holds === "reader" ? (expression as string) : null });
        walk.unit = walk.units.length - 1;
        for (const child of block.nodes as DocumentBlock[]) blockText(child, walk);
        walk.unit = outer;
        return;
      }
      default:
        break;
    }
  }
  const children = [
    ...("nodes" in block && Array.isArray(block.nodes) ? block.nodes : []),
    ...("fragments" in block && Array.isArray(block.fragments) ? block.fragments : []),
  ];
  for (const child of children as Array<DocumentBlock | DocumentFragment>) blockText(child, walk);
}

/**
 * All the text of a document-like value, blocks separated by newlines. Tolerant of any shape (it
 * reads the `text` of leaves wherever they are), for documents stored loosely checked, such as a
 * change request's description.
 */
export function documentText(value: unknown): string {
  const parts: string[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (depth > 64 || typeof node !== "object" || node === null) return;
    if (Array.isArray(node)) {
      for (const child of node) walk(child, depth + 1);
      return;
    }
    const record = node as Record<string, unknown>;
    if (record.object === "leaf" && typeof record.text === "string") {
      parts.push(record.text);
      return;
    }
    if (record.object === "block" && parts.length > 0) parts.push("\n");
    for (const key of ["nodes", "leaves", "fragments"]) if (key in record) walk(record[key], depth + 1);
  };
  walk(value, 0);
  return parts.join("").trim();
}
