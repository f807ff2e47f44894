/**
 * What a translation translates, and what it leaves alone. A document is walked once: every piece
 * of prose (a text leaf, a button label, an image's alt text and caption, a tab's title, a table's
 * column titles and text cells) becomes
 * one or more *segments*; everything else stays exactly as it was: block types and keys, links'
 * targets, code blocks and inline code, math, expressions and variables (`{{ … }}`, `{% … %}`),
 * URLs written in the text, and the whitespace around each piece. Translating the segments and
 * putting them back (`apply`) gives a document with the same structure in another language.
 */
import type { JSONDocument } from "../document/types.js";

/** Pieces of text no translator may touch: template tags, variables, URLs, line breaks. */
const PROTECTED = /(\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}|https?:\/\/[^\s<>"'`)\]]+|\r?\n)/;
/** A paragraph that is only a tag line (`{% if … %}`, `{% endcolumns %}`): markup, not prose. */
const TAG_LINE = /^\s*\{%.*%\}\s*$/s;
const HAS_LETTER = /\p{L}/u;
const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

/** Block types whose content is not prose (or is data): never translated. */
const UNTRANSLATED_BLOCKS = new Set([
  "code",
  "code-line",
  "math",
  "embed",
  "integration",
  "swagger",
  "openapi-operation",
  "openapi-schemas",
  "openapi-webhook",
  "reusable-content",
  "content-ref",
  "file",
  "drawing",
  "divider",
]);

/** Inline types that are not prose: expressions, formulas, emoji, icons, mentions. */
const UNTRANSLATED_INLINES = new Set(["expression", "inline-math", "emoji", "icon", "mention"]);

/** Segments to translate, and how to put their translations back. */
export class SegmentCollector {
  readonly segments: string[] = [];
  private readonly writers: Array<(translated: readonly string[]) => void> = [];

  /**
   * Registers a text slot: its translatable pieces become segments; `write` receives the text
   * rebuilt with their translations (protected pieces and surrounding whitespace kept).
   */
  text(value: string, write: (text: string) => void): void {
    const parts: Array<{ keep: string } | { segment: number; before: string; after: string }> = [];
    // split() with a capturing group alternates prose (even indexes) and protected pieces (odd).
    value.split(PROTECTED).forEach((chunk, i) => {
      if (chunk === "") return;
      const core = chunk.trim();
      if (i % 2 === 1 || !HAS_LETTER.test(core)) {
        parts.push({ keep: chunk });
        return;
      }
      const start = chunk.indexOf(core);
      parts.push({ segment: this.segments.length, before: chunk.slice(0, start), after: chunk.slice(start + core.length) });
      this.segments.push(core);
    });
    if (!parts.some((p) => "segment" in p)) return;
    this.writers.push((translated) => {
      write(parts.map((p) => ("keep" in p ? p.keep : `${p.before}${translated[p.segment] ?? ""}${p.after}`)).join(""));
    });
  }

  /** Writes every translation back (`translated[i]` is the translation of `segments[i]`). */
  apply(translated: readonly string[]): void {
    if (translated.length !== this.segments.length) {
      throw new Error(`Expected ${this.segments.length} translated segments, got ${translated.length}.`);
    }
    for (const write of this.writers) write(translated);
  }

  /** Words in the segments (letters or digits, with inner apostrophes and hyphens). */
  words(): number {
    let count = 0;
    for (const segment of this.segments) count += segment.match(WORD)?.length ?? 0;
    return count;
  }
}

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A copy of `document` whose prose is registered with `collector`; after `collector.apply()`,
 * the copy holds the translation. The input is never modified.
 */
export function collectDocument(document: JSONDocument, collector: SegmentCollector): JSONDocument {
  const copy = structuredClone(document);
  for (const node of copy.nodes as unknown[]) walk(node, collector, 0);
  return copy;
}

function walkChildren(node: Node, collector: SegmentCollector, depth: number): void {
  for (const key of ["nodes", "fragments"]) {
    const children = node[key];
    if (Array.isArray(children)) for (const child of children) walk(child, collector, depth + 1);
  }
}

function dataText(node: Node, field: string, collector: SegmentCollector): void {
  const data = node.data;
  if (!isNode(data)) return;
  const value = data[field];
  if (typeof value === "string" && value) collector.text(value, (text) => (data[field] = text));
}

function walk(node: unknown, collector: SegmentCollector, depth: number): void {
  if (!isNode(node) || depth > 200) return;
  switch (node.object) {
    case "text": {
      const leaves = node.leaves;
      if (!Array.isArray(leaves)) return;
      for (const leaf of leaves) {
        if (!isNode(leaf) || typeof leaf.text !== "string") continue;
        const marks = Array.isArray(leaf.marks) ? leaf.marks : [];
        // Inline code stays as written.
        if (marks.some((m) => isNode(m) && m.type === "code")) continue;
        collector.text(leaf.text, (text) => (leaf.text = text));
      }
      return;
    }
    case "inline": {
      const type = String(node.type);
      if (UNTRANSLATED_INLINES.has(type)) return;
      if (type === "button") dataText(node, "label", collector);
      if (type === "inline-image") {
        dataText(node, "alt", collector);
        dataText(node, "caption", collector);
      }
      walkChildren(node, collector, depth);
      return;
    }
    case "block": {
      const type = String(node.type);
      if (UNTRANSLATED_BLOCKS.has(type)) return;
      if (type === "paragraph" && TAG_LINE.test(inlineText(node))) return;
      if (type === "image") dataText(node, "alt", collector);
      if (type === "tabs-item") dataText(node, "title", collector);
      if (type === "table") tableTitles(node, collector);
      // A table's text cells are its fragments (records point at them by key): walked like any child.
      walkChildren(node, collector, depth);
      return;
    }
    case "fragment":
      walkChildren(node, collector, depth);
      return;
    default:
      return;
  }
}

/** A table's column titles (ids, types and the records' values stay as they are). */
function tableTitles(table: Node, collector: SegmentCollector): void {
  const definition = isNode(table.data) ? table.data.definition : undefined;
  if (!isNode(definition)) return;
  for (const column of Object.values(definition)) {
    if (isNode(column) && typeof column.title === "string" && column.title) {
      collector.text(column.title, (text) => (column.title = text));
    }
  }
}

/** The text of a block's direct text nodes (to recognise tag lines). */
function inlineText(block: Node): string {
  const nodes = Array.isArray(block.nodes) ? block.nodes : [];
  let text = "";
  for (const node of nodes) {
    if (isNode(node) && node.object === "text" && Array.isArray(node.leaves)) {
      for (const leaf of node.leaves) if (isNode(leaf) && typeof leaf.text === "string") text += leaf.text;
    } else return "";
  }
  return text;
}
