/**
 * GitBook-flavoured Markdown → GitBook's JSON document (`JSONDocument` of @gitbook/api 0.146).
 *
 * How it reads a page:
 * 1. Line ends become `\n`; the YAML front matter is split off (frontmatter.ts).
 * 2. remark (CommonMark + GFM + `$$` math) parses the body. Lines made only of `{% %}` tags, and the
 *    `<details>`/`<summary>`/`</details>` lines of expandables, are first given blank lines around
 *    them (outside code, math and raw HTML, which a first parse locates), so each becomes a
 *    paragraph or HTML node of its own at the nesting level where it was written: a `{% hint %}`
 *    inside a list item stays in that item, and a `{% %}` inside fenced, indented or inline code is
 *    code, never a tag.
 * 3. In every list of sibling nodes, tag paragraphs are paired (`{% hint %}` … `{% endhint %}`) and
 *    the nodes between them become the container's children.
 * 4. Each container accepts only the block types its 0.146 schema lists (a hint holds paragraphs,
 *    headings, lists and dividers; a tab no table ...). A child a container cannot hold is converted
 *    when that loses nothing (an image → an inline image, block math → inline math), otherwise the
 *    container is split around it and the child moves up to the nearest level that accepts it, with
 *    a warning. So the document always validates, and no content is dropped.
 *
 * Constructs without a place in the 0.146 schema: `{% if %}`, `{% columns %}`/`{% column %}` (their
 * nodes exist but are not allowed among a document's blocks), `{% updates %}`/`{% update %}`,
 * `{% prompt %}`, and `{% swagger %}` blocks defined inline (no `src`). Their tag lines become
 * paragraphs holding the tag text verbatim, with the content between converted as ordinary blocks
 * (so it stays searchable, mergeable and linkable); the serializer writes such a paragraph back as
 * the bare tag line, so they round-trip exactly. Unknown tags are kept the same way, with a warning;
 * a known tag that is unclosed or misplaced is kept as paragraph text (escaped on export, so it
 * cannot change meaning later).
 */

import { generateNKeysBetween } from "fractional-indexing";
import type {
  Blockquote,
  Code,
  Definition,
  FootnoteDefinition,
  Heading,
  Html,
  List,
  ListItem,
  Paragraph,
  PhrasingContent,
  Root,
  RootContent,
  Table,
} from "mdast";
import { toString as mdastToString } from "mdast-util-to-string";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { reconcileKeysInPlace } from "../document/keys.js";
import {
  type BlockContext,
  inlineText,
  isAllowedIn,
  leaf,
  normalizeInlines,
  paragraph,
  plainParagraph,
  textNode,
} from "../document/nodes.js";
import { canHoldParts, markPartOf, partOf } from "../document/parts.js";
import type {
  ContentRef,
  DocumentBlock,
  DocumentBlockCode,
  DocumentBlockHeading,
  DocumentBlockImage,
  DocumentBlockImages,
  DocumentBlockListItem,
  DocumentBlockListOrdered,
  DocumentBlockListUnordered,
  DocumentBlockParagraph,
  DocumentBlockStepperStep,
  DocumentBlockTable,
  DocumentBlockTabsItem,
  DocumentBlockTopLevel,
  DocumentFragment,
  DocumentInline,
  DocumentInlineAnnotation,
  DocumentMark,
  DocumentTableDefinition,
  DocumentTableRecord,
  HintStyle,
  ImageRef,
  InlineContent,
  JSONDocument,
  ListItemChild,
  TableRecordValue,
} from "../document/types.js";
import { appendAll } from "./arrays.js";
import { emojiCodeForShortcode, SHORTCODE_PATTERN } from "./emoji.js";
import { type PageFrontmatter, parseFrontmatter, splitFrontmatter } from "./frontmatter.js";
import { elementChildren, type HtmlElement, type HtmlNode, htmlText, isBlankHtml, parseHtml, tokenizeHtml } from "./html.js";
import {
  darkVariantSrc,
  type HtmlInlineContext,
  htmlToInlines,
  iconFromClass,
  inlineFallbackText,
  markForElement,
  normalizeLinkNodes,
} from "./html-content.js";
import "./micromark-linear.js"; // two of micromark's quadratic steps made linear (see there)
import { remarkInlinePieces, takeInlinePieceCounts } from "./inline-pieces.js";
import { remarkMathSyntax } from "./math-syntax.js";
import {
  type ContentReferenceFound,
  type ReferenceKind,
  type ReferenceResolver,
  resolveImageTarget,
  resolveLinkTarget,
} from "./references.js";
import { CONTAINER_TAGS, isKnownTagName, OPTIONAL_END_TAGS, PASS_THROUGH_TAGS, parseTag, splitTagLine, type Tag } from "./tags.js";

/** The tags that give a pipe-table cell its blocks (`cellFlow`): `<p>`, `<ul>`, `<ol>`, `<li>`, opening or closing. */
const CELL_BLOCK_TAG = /^<(\/?)(p|ul|ol|li)(\s[^>]*)?>$/i;
/** The elements that give an HTML table cell its blocks (`htmlCellFlow`). */
const CELL_FLOW_ELEMENTS = new Set(["p", "ul", "ol", "table", "pre"]);

export interface ParseMarkdownOptions {
  /** Turns link, image, file and include targets into refs of the revision (see references.ts). */
  resolve?: ReferenceResolver;
  /** The page's previous document: unchanged and edited-in-place blocks keep its keys. */
  previous?: JSONDocument;
}

export interface ParsedMarkdownPage {
  frontmatter: PageFrontmatter;
  /** Text of the page's `#` heading, when it has one. */
  title?: string;
  document: JSONDocument;
  references: ContentReferenceFound[];
  /** What was kept in another form, or could not be read, in the page's own words (with line numbers). */
  warnings: string[];
}

const MAX_WARNINGS = 200;

const processor = unified().use(remarkParse).use(remarkGfm).use(remarkMathSyntax, { singleDollarTextMath: false }).use(remarkInlinePieces);

/** Parses one Markdown page of a GitBook repository. Never throws on any input string. */
export function parseMarkdownPage(markdown: string, options: ParseMarkdownOptions = {}): ParsedMarkdownPage {
  const warnings: string[] = [];
  let suppressed = 0;
  const warn = (message: string) => {
    if (warnings.length < MAX_WARNINGS) warnings.push(message);
    else suppressed++;
  };

  const source = markdown.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const { yaml, body, bodyLineOffset } = splitFrontmatter(source);
  const frontmatter = yaml === undefined ? {} : parseFrontmatter(yaml, warnings);

  takeInlinePieceCounts();
  const prepared = prepareSource(limitNesting(body, warn));
  const { forcedCuts } = takeInlinePieceCounts();
  if (forcedCuts)
    warn(
      `${forcedCuts} times, emphasis or strikethrough markers of a very long paragraph were paired only within pieces of it (a marker left open was not paired with one far after it)`,
    );
  const converter = new Converter(prepared.text, prepared.lineMap, bodyLineOffset, options.resolve, warn);
  const { title, nodes } = converter.convertRoot(prepared.tree);
  // A body wholly in `<div data-full-width="true">`: a full-width page, unless front matter says otherwise.
  if (converter.wideBody && frontmatter.layout?.width === undefined) frontmatter.layout = { ...frontmatter.layout, width: "wide" };

  const document: JSONDocument = { object: "document", data: {}, nodes };
  reconcileKeysInPlace(options.previous, document);

  const references: ContentReferenceFound[] = [];
  if (frontmatter.cover !== undefined) references.push({ kind: "cover", target: frontmatter.cover });
  for (const reference of converter.collectReferences(document)) references.push(reference);
  if (suppressed) warnings.push(`${suppressed} more warnings not shown`);
  return { frontmatter, ...(title !== undefined ? { title } : {}), document, references, warnings };
}

// ---- nesting limit ---------------------------------------------------------------------------

/** Deepest list/quote nesting kept; remark's time grows steeply with depth (about 1 s per 1000 lines at 50). */
const MAX_INDENT = 100;
const MAX_CHAIN = 50;

/**
 * Containers kept one inside another in a document: quotes, list items, hints, tabs, steppers,
 * expandables and the other `{% %}` containers, tables (a table in a table cell) and lists in
 * table cells, in any mix. Content deeper than this is kept, flattened into the deepest container,
 * with a warning: past a few thousand levels, the parser and every reader of the document (HTML,
 * PDF, search, merge...) would overflow the stack. No hand-written page comes near it.
 */
export const MAX_NESTING = 50;

/** One container marker opening a line: a `>`, a list marker or a footnote definition's label, after optional whitespace. */
const CONTAINER_MARKER = /[ \t]*(?:>|(?:[*+-]|\d{1,9}[.)])(?=[ \t]|$)|\[\^[^\]\s]{1,999}\]:)/y;

const columns = (whitespace: string) => whitespace.replace(/\t/g, "    ").length;

/**
 * Hostile input guard, before remark parses the page: a line opens at most MAX_CHAIN containers
 * (`>`, list markers and footnote definitions in any mix: `> - > - ...`), and the whitespace before its markers (which
 * is what continues the list items of the lines above) counts at most MAX_INDENT columns, so no
 * line sits deeper than about MAX_CHAIN + MAX_INDENT / 2 containers. A line over either is
 * brought back (the markers past the limit dropped, the whitespace shortened); its text is kept,
 * as siblings at the deepest level. The converter then bounds the document itself (MAX_NESTING).
 */
function limitNesting(body: string, warn: (message: string) => void): string {
  let clamped = 0;
  const lines = body.split("\n");
  for (let l = 0; l < lines.length; l++) {
    const line = lines[l]!;
    const prefix = containerPrefix(line);
    if (!prefix) continue;
    let out = "";
    let budget = MAX_INDENT;
    for (const [i, { whitespace: space, marker }] of prefix.markers.slice(0, MAX_CHAIN).entries()) {
      // A list marker must stay followed by whitespace, or it would no longer be one.
      const follows = i > 0 && /^(?:[*+-]|\d{1,9}[.)])$/.test(prefix.markers[i - 1]!.marker);
      const width = Math.max(Math.min(columns(space), budget), follows ? 1 : 0);
      budget = Math.max(0, budget - width);
      out += " ".repeat(width) + marker;
    }
    const rest = line.slice(prefix.end).replace(/^[ \t]+/, "");
    lines[l] = rest ? `${out} ${rest}` : out;
    clamped++;
  }
  if (clamped === 0) return body;
  warn(`${clamped} lines nested deeper than GitBook can show were brought back to ${MAX_CHAIN} levels`);
  return lines.join("\n");
}

/**
 * The container markers opening `line` when they are over the bounds of limitNesting (more than
 * MAX_CHAIN, or more than MAX_INDENT columns of whitespace before them); undefined when within.
 */
function containerPrefix(line: string): { markers: { whitespace: string; marker: string }[]; end: number } | undefined {
  // Over either bound takes 51 markers, or a marker after 101 columns (26 tabs): most lines are shorter.
  if (line.length < 27) return undefined;
  const markers: { whitespace: string; marker: string }[] = [];
  let end = 0;
  let whitespace = 0;
  CONTAINER_MARKER.lastIndex = 0;
  for (let match = CONTAINER_MARKER.exec(line); match; match = CONTAINER_MARKER.exec(line)) {
    const space = /^[ \t]*/.exec(match[0])![0];
    markers.push({ whitespace: space, marker: match[0].slice(space.length) });
    whitespace += columns(space);
    end = CONTAINER_MARKER.lastIndex;
  }
  return markers.length > MAX_CHAIN || whitespace > MAX_INDENT ? { markers, end } : undefined;
}

/**
 * The first line (0-based) whose containers go past the bounds limitNesting brings pages back to,
 * for Markdown that must not be changed but refused (SUMMARY.md); undefined when there is none.
 */
export function firstTooDeepLine(text: string): number | undefined {
  const lines = text.split("\n");
  const index = lines.findIndex((line) => containerPrefix(line) !== undefined);
  return index < 0 ? undefined : index;
}

// ---- step 2: isolate tag lines ----------------------------------------------------------------

const DETAILS_LINE = /^(<details(\s+open(="[^"]*")?)?\s*>\s*(<summary>.*<\/summary>)?|<summary>.*<\/summary>|<\/details>)$/i;
const LINE_PREFIX = /^[ \t]*(?:>[ \t]?)*/;

interface PreparedSource {
  text: string;
  tree: Root;
  /** prepared line index (0-based) → line index in the body */
  lineMap: number[];
}

function prepareSource(body: string): PreparedSource {
  const lines = body.split("\n");
  const candidates = new Set<number>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const rest = line.slice(LINE_PREFIX.exec(line)![0].length);
    if ((rest.startsWith("{%") && splitTagLine(rest)) || (rest.startsWith("<") && DETAILS_LINE.test(rest.trim()))) candidates.add(i);
  }
  const identity = () => lines.map((_, i) => i);
  if (candidates.size === 0) return { text: body, tree: parseChunked(body), lineMap: identity() };

  // Code, math and raw HTML are found by a line scanner; only when a tag line is indented like
  // indented code (4+ columns, which needs list context to judge) is a first full parse needed.
  const needsParse = [...candidates].some((i) => /^(?: {4}|\t)/.test(lines[i]!.replace(/^[ \t]*(?:>[ \t]?)+/, "")));
  let first: Root | undefined;
  const protectedLines = needsParse ? new Set<number>() : scanProtectedLines(lines);
  const protect = (node: { position?: { start: { line: number }; end: { line: number } } }) => {
    if (!node.position) return;
    for (let l = node.position.start.line; l <= node.position.end.line; l++) protectedLines.add(l - 1);
  };
  const visit = (node: RootContent | Root) => {
    if (node.type === "code" || node.type === "math" || node.type === "inlineCode" || node.type === "inlineMath") protect(node);
    else if (node.type === "html" && /^\s*<(pre|script|style|textarea|!--)/i.test(node.value)) protect(node);
    else if ("children" in node) for (const child of node.children) visit(child);
  };
  if (needsParse) {
    first = processor.parse(body) as Root;
    visit(first);
  }

  const out: string[] = [];
  const lineMap: number[] = [];
  let changed = false;
  const push = (line: string, origin: number) => {
    out.push(line);
    lineMap.push(origin);
  };
  const isBlank = (line: string | undefined) => line === undefined || line.slice(LINE_PREFIX.exec(line)![0].length).trim() === "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!candidates.has(i) || protectedLines.has(i)) {
      push(line, i);
      continue;
    }
    const prefix = LINE_PREFIX.exec(line)![0];
    const blank = prefix.replace(/[ \t]+$/, "");
    const rest = line.slice(prefix.length).trim();
    const pieces = rest.startsWith("{%") ? splitTagLine(rest)! : splitDetailsLine(rest);
    if (!isBlank(out[out.length - 1])) {
      push(blank, i);
      changed = true;
    }
    pieces.forEach((piece, k) => {
      if (k > 0) push(blank, i);
      push(prefix + piece, i);
    });
    if (pieces.length > 1) changed = true;
    if (!isBlank(lines[i + 1]) && i + 1 < lines.length) {
      push(blank, i);
      changed = true;
    }
  }
  if (!changed) return { text: body, tree: first ?? parseChunked(body), lineMap: identity() };
  const text = out.join("\n");
  return { text, tree: parseChunked(text), lineMap };
}

const CHUNK_SIZE = 32 * 1024;

/**
 * micromark's time grows faster than linearly with document length (its edit map), so long pages
 * are parsed in pieces of about CHUNK_SIZE cut at top-level paragraph boundaries: a blank line
 * followed by an unindented line that cannot continue the block before it (not a list item, not
 * inside code, math or raw HTML). The pieces' root children are concatenated, and their positions
 * shifted, so the result equals a single parse. Pages with link or footnote definitions, which
 * must be in the same parse as their uses, are parsed whole.
 */
export function parseChunked(text: string): Root {
  if (text.length <= CHUNK_SIZE * 2 || /^ {0,3}\[[^\]\n]+\]:/m.test(text)) return processor.parse(text) as Root;
  const lines = text.split("\n");
  const protectedLines = scanProtectedLines(lines);
  const root: Root = { type: "root", children: [] };
  let chunkStartLine = 0;
  let chunkStartOffset = 0;
  let offset = 0;
  const flush = (endLine: number, endOffset: number) => {
    const chunk = text.slice(chunkStartOffset, endOffset);
    const tree = processor.parse(chunk) as Root;
    for (const child of tree.children) {
      shiftPositions(child, chunkStartOffset, chunkStartLine);
      root.children.push(child);
    }
    const end = tree.position?.end;
    if (end)
      root.position = {
        start: { line: 1, column: 1, offset: 0 },
        end: { line: end.line + chunkStartLine, column: end.column, offset: (end.offset ?? 0) + chunkStartOffset },
      };
    chunkStartLine = endLine;
    chunkStartOffset = endOffset;
  };
  for (let i = 0; i < lines.length; i++) {
    const lineStart = offset;
    offset += lines[i]!.length + 1;
    if (lineStart - chunkStartOffset < CHUNK_SIZE || i === 0) continue;
    const previous = lines[i - 1]!;
    const line = lines[i]!;
    if (previous.trim() !== "" || line === "" || /^[ \t]/.test(line) || protectedLines.has(i) || protectedLines.has(i - 1)) continue;
    if (/^(?:[*+-]|\d{1,9}[.)])(?:[ \t]|$)/.test(line) || /^(?:[=-]+[ \t]*$|\|)/.test(line)) continue;
    flush(i, lineStart);
  }
  flush(lines.length, text.length);
  return root;
}

function shiftPositions(node: RootContent, offset: number, line: number): void {
  const stack: Array<RootContent> = [node];
  while (stack.length) {
    const current = stack.pop()!;
    const position = current.position;
    if (position) {
      if (position.start.offset !== undefined) position.start.offset += offset;
      if (position.end.offset !== undefined) position.end.offset += offset;
      position.start.line += line;
      position.end.line += line;
    }
    if ("children" in current) for (const child of current.children as RootContent[]) stack.push(child);
  }
}

/**
 * Lines inside fenced code, `$$` math, HTML comments and `<pre>`/`<script>`/`<style>`/`<textarea>`
 * blocks (0-based), found line by line the way CommonMark opens and closes them.
 */
function scanProtectedLines(lines: string[]): Set<number> {
  const out = new Set<number>();
  let fence: { char: string; length: number } | undefined;
  let math = false;
  let rawEnd: RegExp | undefined;
  lines.forEach((line, i) => {
    const rest = line.replace(/^(?:[ \t]*(?:>|[*+-]|\d{1,9}[.)])(?=[ \t]|$)[ \t]?)*[ \t]*/, "");
    if (fence) {
      out.add(i);
      const close = /^(`{3,}|~{3,})[ \t]*$/.exec(rest);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) fence = undefined;
      return;
    }
    if (math) {
      out.add(i);
      if (/^\$\$[ \t]*$/.test(rest)) math = false;
      return;
    }
    if (rawEnd) {
      out.add(i);
      if (rawEnd.test(line)) rawEnd = undefined;
      return;
    }
    const open = /^(`{3,}|~{3,})(.*)$/.exec(rest);
    if (open && !(open[1]![0] === "`" && open[2]!.includes("`"))) {
      fence = { char: open[1]![0]!, length: open[1]!.length };
      out.add(i);
      return;
    }
    if (/^\$\$[^$]*$/.test(rest)) {
      math = true;
      out.add(i);
      return;
    }
    const raw = /^<(!--|pre\b|script\b|style\b|textarea\b)/i.exec(rest);
    if (raw) {
      out.add(i);
      const end = raw[1] === "!--" ? /-->/ : new RegExp(`</${raw[1]}>`, "i");
      if (!end.test(rest.slice(raw[0].length))) rawEnd = end;
    }
  });
  return out;
}

/** `<details><summary>T</summary>` on one line → two pieces, so both are seen as markers. */
function splitDetailsLine(rest: string): string[] {
  const match = /^(<details[^>]*>)\s*(<summary>.*<\/summary>)$/i.exec(rest);
  return match ? [match[1]!, match[2]!] : [rest];
}

// ---- step 3: tokens of a sibling list ----------------------------------------------------------

type Token =
  | { kind: "node"; node: RootContent }
  | { kind: "tag"; tag: Tag; node: RootContent }
  | { kind: "details-open"; summary?: string; node: RootContent }
  | { kind: "summary"; html: string; node: RootContent }
  | { kind: "details-close"; node: RootContent }
  | { kind: "div-open"; attrs: Record<string, string>; node: RootContent }
  | { kind: "div-close"; node: RootContent };

/**
 * A `<div>` alone on its line with only the attributes GitBook gives its wrappers (of an images
 * block: `<div align="center">`, `<div data-full-width="true">`, `<div>` around several images).
 */
const DIV_OPEN_LINE = /^<div((?:\s+(?:align|data-full-width|data-with-frame)\s*=\s*"[^"<>]*")*)\s*>$/i;

type InlineWithImage = Extract<InlineContent, { object: "text" } | { type: "inline-image" }>;

class Converter {
  private readonly definitions = new Map<string, Definition>();
  private readonly usedDefinitions = new Set<string>();
  private readonly footnotes = new Map<string, FootnoteDefinition>();
  private readonly usedFootnotes = new Set<string>();
  private readonly targets = new WeakMap<object, Array<{ kind: ReferenceKind; target: string }>>();
  /** Raw targets of refs made while reading inline HTML, found again by `collectTargets`. */
  private readonly refTargets = new WeakMap<object, { kind: ReferenceKind; target: string }>();
  private readonly expanding = new Set<string>();
  /** No `#` heading opened the page: the first one below is told apart in its warning. */
  private untitled = false;
  /** The tokens of the page's body (the first sibling list converted). */
  private bodyTokens: Token[] | undefined;
  /** The whole body was in `<div data-full-width="true">`: the page is full width. */
  wideBody = false;
  /** Containers open around what is being converted (MAX_NESTING). */
  private nesting = 0;
  private flattened = false;

  constructor(
    private readonly source: string,
    private readonly lineMap: number[],
    private readonly lineOffset: number,
    private readonly resolver: ReferenceResolver | undefined,
    private readonly warnSink: (message: string) => void,
  ) {}

  // -- helpers --

  /** True when one more container fits (MAX_NESTING); when not, says once that content was flattened. */
  private fitsDeeper(node: { position?: { start: { line: number } } } | undefined): boolean {
    if (this.nesting < MAX_NESTING) return true;
    if (!this.flattened) {
      this.flattened = true;
      this.warn(
        node,
        `content nested more than ${MAX_NESTING} levels deep (quotes, lists, hints, tabs, expandables, tables) was kept at the ${MAX_NESTING}th level`,
      );
    }
    return false;
  }

  /** `fitsDeeper` with `extra` containers open besides those counted. */
  private nestingFits(extra: number, node: { position?: { start: { line: number } } } | undefined): boolean {
    this.nesting += extra;
    try {
      return this.fitsDeeper(node);
    } finally {
      this.nesting -= extra;
    }
  }

  /** Runs `convert` one container deeper. */
  private deeper<T>(convert: () => T): T {
    this.nesting++;
    try {
      return convert();
    } finally {
      this.nesting--;
    }
  }

  private warn(node: { position?: { start: { line: number } } } | undefined, message: string): void {
    const line = node?.position
      ? (this.lineMap[node.position.start.line - 1] ?? node.position.start.line - 1) + 1 + this.lineOffset
      : undefined;
    this.warnSink(line !== undefined ? `line ${line}: ${message}` : message);
  }

  private raw(node: RootContent): string {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return mdastToString(node);
    return this.source.slice(start, end);
  }

  private record<T extends object>(node: T, kind: ReferenceKind, target: string): T {
    const list = this.targets.get(node);
    if (list) list.push({ kind, target });
    else this.targets.set(node, [{ kind, target }]);
    return node;
  }

  private linkRef(target: string, kind: ReferenceKind): ContentRef {
    return resolveLinkTarget(target, kind, this.resolver);
  }

  private imageRef(target: string, kind: ReferenceKind = "image"): ImageRef {
    return resolveImageTarget(target, kind, this.resolver);
  }

  // -- root --

  convertRoot(root: Root): { title?: string; nodes: DocumentBlockTopLevel[] } {
    const children = [...root.children];
    this.collectDefinitions(root);
    let title: string | undefined;
    // The title is a `#` heading that opens the page (link definitions and HTML comments aside).
    // A `#` heading below other content is a section of the page: in GitBook-synced repositories
    // it is a banner first and then a section ("# Summary of the attack") under a page whose
    // title SUMMARY.md gives; taking it as the title would rename the page and move content.
    const titleIndex = children.findIndex((c) => c.type !== "definition" && c.type !== "footnoteDefinition" && !isHtmlComment(c));
    const opening = children[titleIndex];
    if (opening?.type === "heading" && opening.depth === 1) {
      // An empty `#` line is no title: the serializer writes none, so none is read.
      title = mdastToString(opening).trim() || undefined;
      if (opening.children.some((c) => c.type !== "text"))
        this.warn(opening, "the page title's formatting was dropped (a title is plain text)");
      children.splice(titleIndex, 1);
    } else this.untitled = true;
    const nodes = this.flow(children, "document") as DocumentBlockTopLevel[];
    for (const [id, def] of this.footnotes) {
      if (this.usedFootnotes.has(id)) continue;
      this.warn(def, `footnote [^${def.label ?? id}] is never referenced; its text is kept at the end of the page`);
      appendAll(nodes, this.flow(def.children, "document") as DocumentBlockTopLevel[]);
    }
    for (const [id, def] of this.definitions) {
      if (!this.usedDefinitions.has(id)) this.warn(def, `link definition [${def.label ?? id}] is never used; it was dropped`);
    }
    return { ...(title !== undefined ? { title } : {}), nodes };
  }

  private collectDefinitions(root: Root): void {
    const visit = (node: Root | RootContent) => {
      if (node.type === "definition" && !this.definitions.has(node.identifier)) this.definitions.set(node.identifier, node);
      else if (node.type === "footnoteDefinition" && !this.footnotes.has(node.identifier)) this.footnotes.set(node.identifier, node);
      if ("children" in node) for (const child of node.children as RootContent[]) visit(child);
    };
    visit(root);
  }

  // -- sibling lists --

  private tokenize(nodes: readonly RootContent[]): Token[] {
    const tokens: Token[] = [];
    for (const node of nodes) {
      if (node.type === "definition" || node.type === "footnoteDefinition") continue;
      if (node.type === "paragraph") {
        const raw = this.raw(node).trim();
        if (raw.startsWith("{%") && raw.endsWith("%}") && !raw.includes("\n")) {
          const tag = parseTag(raw);
          if (tag) {
            tokens.push({ kind: "tag", tag, node });
            continue;
          }
        }
      }
      if (node.type === "html") {
        const value = node.value.trim();
        const open = /^<details(\s+open(="[^"]*")?)?\s*>\s*(?:<summary>([\s\S]*)<\/summary>)?$/i.exec(value);
        if (open) {
          tokens.push({ kind: "details-open", ...(open[3] !== undefined ? { summary: open[3] } : {}), node });
          continue;
        }
        const summary = /^<summary>([\s\S]*)<\/summary>$/i.exec(value);
        if (summary) {
          tokens.push({ kind: "summary", html: summary[1]!, node });
          continue;
        }
        if (/^<\/details>$/i.test(value)) {
          tokens.push({ kind: "details-close", node });
          continue;
        }
        if (DIV_OPEN_LINE.test(value)) {
          const open = tokenizeHtml(value)[0];
          tokens.push({ kind: "div-open", attrs: open?.type === "open" ? open.attrs : {}, node });
          continue;
        }
        if (/^<\/div\s*>$/i.test(value)) {
          tokens.push({ kind: "div-close", node });
          continue;
        }
      }
      tokens.push({ kind: "node", node });
    }
    return tokens;
  }

  /** Index of each opening token's closing token (containers and details), -1 when unclosed. */
  private pair(tokens: Token[]): Map<number, number> {
    const pairs = new Map<number, number>();
    const stack: Array<{ name: string; index: number }> = [];
    tokens.forEach((token, index) => {
      let name: string | undefined;
      let closing = false;
      if (token.kind === "tag") {
        const n = token.tag.name;
        if (n.startsWith("end") && (CONTAINER_TAGS.has(n.slice(3)) || OPTIONAL_END_TAGS.has(n.slice(3)))) {
          name = n.slice(3);
          closing = true;
        } else if (CONTAINER_TAGS.has(n) || OPTIONAL_END_TAGS.has(n)) name = n;
      } else if (token.kind === "details-open") name = "<details>";
      else if (token.kind === "details-close") {
        name = "<details>";
        closing = true;
      }
      if (name === undefined) return;
      if (name === "swagger" && token.kind === "tag" && !closing && token.tag.attrs.src === undefined) return;
      if (!closing) {
        stack.push({ name, index });
        return;
      }
      let at = stack.length - 1;
      while (at >= 0 && stack[at]!.name !== name) at--;
      if (at < 0) return;
      pairs.set(stack[at]!.index, index);
      stack.length = at;
    });
    // `<div>` wrappers pair among themselves, and only where they do not cross a container (a
    // `</div>` inside a hint opened after its `<div>` leaves both as they were). Container pairs
    // nest properly, so a `<div>` and its `</div>` cross none when the innermost container around
    // each is the same.
    const around: number[] = [];
    const openContainers: number[] = [];
    tokens.forEach((_, index) => {
      while (openContainers.length > 0 && pairs.get(openContainers.at(-1)!)! < index) openContainers.pop();
      around.push(openContainers.at(-1) ?? -1);
      if (pairs.has(index)) openContainers.push(index);
    });
    const divs: number[] = [];
    tokens.forEach((token, index) => {
      if (token.kind === "div-open") divs.push(index);
      else if (token.kind === "div-close" && divs.length > 0) {
        const open = divs.pop()!;
        if (around[open] === around[index]) pairs.set(open, index);
      }
    });
    return pairs;
  }

  /** Blocks for a list of sibling nodes, fitted to `context` (see the header, step 4). */
  flow(nodes: readonly RootContent[], context: BlockContext): DocumentBlock[] {
    const tokens = this.tokenize(nodes);
    this.bodyTokens ??= tokens;
    const pairs = this.pair(tokens);
    return this.fit(this.range(tokens, pairs, 0, tokens.length, context), context, undefined);
  }

  private range(tokens: Token[], pairs: Map<number, number>, from: number, to: number, context: BlockContext): DocumentBlock[] {
    const out: DocumentBlock[] = [];
    /** Closing tokens of containers kept as text for being too deep. */
    const flattenedCloses = new Set<number>();
    for (let i = from; i < to; i++) {
      const token = tokens[i]!;
      if (token.kind === "node") {
        appendAll(out, this.block(token.node, context));
        continue;
      }
      const close = pairs.get(i);
      if (token.kind === "div-open" || token.kind === "div-close") {
        // Counted as a container (it holds content) though it leaves none in the document.
        if (token.kind === "div-open" && close !== undefined && close < to && this.fitsDeeper(token.node)) {
          const whole = tokens === this.bodyTokens && i === 0 && close === tokens.length - 1;
          appendAll(
            out,
            this.deeper(() => this.divWrapper(token, tokens, pairs, i + 1, close, context, whole)),
          );
          i = close;
        } else appendAll(out, this.block(token.node, context)); // alone, read as any other HTML
        continue;
      }
      // Too deep, a container's tags stay as text (its <details> lines as HTML code) and what
      // they enclose is read at this level.
      const tooDeep = (close !== undefined && close < to && !this.fitsDeeper(token.node)) || flattenedCloses.has(i);
      if (tooDeep) {
        if (close !== undefined) flattenedCloses.add(close);
        appendAll(out, token.kind === "tag" ? [this.tagParagraph(token.tag.raw)] : this.unknownHtml(token.node as Html));
        continue;
      }
      if (token.kind === "tag") {
        if (close !== undefined && close < to) {
          appendAll(
            out,
            this.deeper(() => this.container(token.tag, token.node, tokens, pairs, i + 1, close, context)),
          );
          i = close;
        } else if (this.reopened(tokens, pairs, i, to)) {
          // `{% tabs %}` written twice and closed once (GitBook's own Git Sync writes it): the
          // extra opener holds nothing, so it is left out rather than shown as text.
          this.warn(token.node, `{% ${token.tag.name} %} is opened again before it is closed; the extra opener was ignored`);
        } else appendAll(out, this.singleTag(token.tag, token.node));
        continue;
      }
      if (token.kind === "details-open" && close !== undefined && close < to) {
        appendAll(
          out,
          this.deeper(() => this.expandable(token, tokens, pairs, i + 1, close)),
        );
        i = close;
        continue;
      }
      this.warn(token.node, `unmatched ${this.raw(token.node).trim()} kept as HTML code`);
      appendAll(out, this.unknownHtml(token.node as Html));
    }
    return out;
  }

  /**
   * A `<div>` wrapper on lines of its own. Around images only (`<figure>`, `<img>`, `<picture>`,
   * one or several, each on its own lines) it is GitBook's images block, its attributes the
   * block's alignment, full width and frame. Around other content, the content is read as blocks
   * of their own, and the attributes go to those that take them: a paragraph or heading its
   * alignment, a code block, table, embed or images block its full width; a body wholly in
   * `<div data-full-width="true">` makes the page full width (front matter `layout.width: wide`).
   */
  private divWrapper(
    token: Extract<Token, { kind: "div-open" }>,
    tokens: Token[],
    pairs: Map<number, number>,
    from: number,
    to: number,
    context: BlockContext,
    whole: boolean,
  ): DocumentBlock[] {
    const inner = tokens.slice(from, to);
    if (inner.length > 0 && inner.every((t) => t.kind === "node" && (t.node.type === "html" || t.node.type === "paragraph"))) {
      const html = `<div>${inner.map((t) => this.raw(t.node).trim()).join("")}</div>`;
      const tree = parseHtml(html);
      const wrapper = tree.length === 1 && tree[0]!.type === "element" ? tree[0] : undefined;
      if (wrapper) {
        wrapper.attrs = token.attrs;
        const images = this.figures([wrapper], token.node as Html);
        if (images) return [images];
      }
    }
    const blocks = this.range(tokens, pairs, from, to, context);
    const { attrs } = token;
    const align = attrs.align?.trim().toLowerCase();
    const fullWidth = attrs["data-full-width"] === "true";
    const withFrame = attrs["data-with-frame"] === "true";
    if (fullWidth && whole) this.wideBody = true;
    const dropped = new Set<string>();
    for (const block of blocks) {
      const data = block.data as Record<string, unknown> | undefined;
      if (align === "center" || align === "right") {
        if (block.type === "paragraph" || block.type === "heading-1" || block.type === "heading-2" || block.type === "heading-3")
          block.data = { ...data, align: align === "center" ? "center" : "end" };
        else if (block.type === "images") block.data.align = align;
        else dropped.add(`align="${attrs.align}"`);
      } else if (align !== undefined && align !== "" && align !== "left") dropped.add(`align="${attrs.align}"`);
      if (fullWidth && !whole) {
        if (block.type === "code" || block.type === "table" || block.type === "images" || block.type === "embed")
          block.data.fullWidth = true;
        else dropped.add('data-full-width="true"');
      }
      if (withFrame) {
        if (block.type === "images") block.data.withFrame = true;
        else dropped.add('data-with-frame="true"');
      }
    }
    if (dropped.size > 0)
      this.warn(
        token.node,
        `${[...dropped].join(" and ")} of a <div> around other content than images was dropped for the blocks inside it that cannot take it`,
      );
    return blocks;
  }

  /**
   * Whether the unclosed container opener at `index` is followed, with nothing but blank content
   * between, by an opener of the same container that is closed: the first one is redundant.
   */
  private reopened(tokens: Token[], pairs: Map<number, number>, index: number, to: number): boolean {
    const token = tokens[index]!;
    if (token.kind !== "tag" || !CONTAINER_TAGS.has(token.tag.name) || Object.keys(token.tag.attrs).length > 0) return false;
    const next = tokens[index + 1];
    if (index + 1 >= to || next?.kind !== "tag" || next.tag.name !== token.tag.name) return false;
    const close = pairs.get(index + 1);
    return close !== undefined && close < to;
  }

  /** A child list fitted to its container: converted where lossless, otherwise lifted out. */
  private fit(blocks: DocumentBlock[], context: BlockContext, containerName: string | undefined): DocumentBlock[] {
    const out: DocumentBlock[] = [];
    for (const block of blocks) {
      if (isAllowedIn(context, block)) {
        out.push(block);
        continue;
      }
      if (block.type === "tabs-item" || block.type === "stepper-step") {
        // A {% tab %} or {% step %} outside its {% tabs %}/{% stepper %}: give it one.
        const kind = block.type === "tabs-item" ? "tabs" : "stepper";
        this.warnSink(`{% ${kind === "tabs" ? "tab" : "step"} %} outside {% ${kind} %} was put in one`);
        const previous = out[out.length - 1];
        if (previous?.type === kind) (previous.nodes as DocumentBlock[]).push(block);
        else out.push({ object: "block", type: kind, nodes: [block] } as DocumentBlock);
        continue;
      }
      const converted = this.convertForContext(block, context);
      if (converted) {
        out.push(converted);
        continue;
      }
      // Moved out of a container that marks its parts, the block is written back and shown inside it.
      if (containerName !== undefined && !canHoldParts(context))
        this.warnSink(
          `a ${block.type} block cannot be inside ${containerName} in GitBook's document model; the ${containerName.replace(/^an? /, "")} was split and the block moved out of it`,
        );
      out.push(block);
    }
    return out;
  }

  /** Lossless conversions into a container that does not accept a block type. */
  private convertForContext(block: DocumentBlock, context: BlockContext): DocumentBlock | undefined {
    if (!isAllowedIn(context, paragraph([]))) return undefined;
    if (block.type === "images") {
      const inlines: InlineContent[] = [];
      for (const image of block.nodes) {
        if (
          image.data.width !== undefined ||
          image.data.height !== undefined ||
          block.data.align ||
          block.data.fullWidth ||
          block.data.withFrame
        )
          return undefined;
        const caption = image.fragments[0] ? inlineText(image.fragments[0].nodes.flatMap((p) => p.nodes)) : undefined;
        if (
          caption &&
          image.fragments[0]!.nodes.some((p) => p.nodes.some((n) => n.object !== "text" || n.leaves.some((l) => l.marks.length)))
        )
          return undefined;
        const data: Extract<DocumentInline, { type: "inline-image" }>["data"] = { ref: image.data.ref };
        if (image.data.refDark) data.refDark = image.data.refDark;
        if (image.data.alt) data.alt = image.data.alt;
        if (caption) data.caption = caption;
        const inline: DocumentInline = { object: "inline", type: "inline-image", isVoid: true, data };
        this.moveTargets(image, inline);
        inlines.push(inline);
      }
      return paragraph(inlines);
    }
    if (block.type === "math")
      return paragraph([{ object: "inline", type: "inline-math", isVoid: true, data: { formula: block.data.formula } }]);
    return undefined;
  }

  private moveTargets(from: object, to: object): void {
    const list = this.targets.get(from);
    if (list) this.targets.set(to, list);
  }

  /**
   * Splits a container around children it cannot hold: the pieces before and after keep the
   * container's data, and the lifted child sits between them. `make` builds one piece.
   */
  private split<T extends DocumentBlock>(
    children: DocumentBlock[],
    context: BlockContext,
    name: string,
    make: (nodes: DocumentBlock[]) => T,
  ): DocumentBlock[] {
    const fitted = this.fit(children, context, name);
    // Containers holding `nodes` mark what was moved out of them, and their later pieces, so that
    // the Markdown writer and the published page fold them back (see document/parts.ts).
    const marks = canHoldParts(context);
    const out: DocumentBlock[] = [];
    let run: DocumentBlock[] = [];
    let madeAny = false;
    const piece = (nodes: DocumentBlock[]) => {
      const made = make(nodes);
      if (marks && madeAny) markPartOf(made, context);
      madeAny = true;
      return made;
    };
    for (const block of fitted) {
      if (isAllowedIn(context, block)) run.push(block);
      else {
        // A block moved out before any content still follows its container (an empty piece).
        if (run.length || (marks && !madeAny)) out.push(piece(run));
        run = [];
        out.push(marks ? markPartOf(block, context) : block);
      }
    }
    if (run.length || !madeAny) {
      const last = piece(run);
      if (run.length || out.length === 0) out.push(last);
      else out.unshift(last);
    }
    return out;
  }

  // -- containers --

  private container(
    tag: Tag,
    node: RootContent,
    tokens: Token[],
    pairs: Map<number, number>,
    from: number,
    to: number,
    context: BlockContext,
  ): DocumentBlock[] {
    const inner = (ctx: BlockContext) => this.range(tokens, pairs, from, to, ctx);
    const innerNodes = () => tokens.slice(from, to).map((t) => t.node);
    switch (tag.name) {
      case "hint": {
        const style = (["info", "warning", "danger", "success"] as const).find((s) => s === tag.attrs.style);
        if (!style) this.warn(node, `hint style "${tag.attrs.style ?? ""}" is not one of info, success, warning, danger; using info`);
        const data: { style: HintStyle; icon?: string } = { style: style ?? "info" };
        if (tag.attrs.icon) data.icon = tag.attrs.icon;
        return this.split(inner("hint"), "hint", "a hint", (nodes) => ({
          object: "block",
          type: "hint",
          data: { ...data },
          nodes: nodes as never,
        }));
      }
      case "tabs":
      case "stepper": {
        const itemName = tag.name === "tabs" ? "tab" : "step";
        const items = inner(context);
        const pieces: DocumentBlock[] = [];
        let run: Array<DocumentBlockTabsItem | DocumentBlockStepperStep> = [];
        const flush = () => {
          if (!run.length) return;
          const made: DocumentBlock =
            tag.name === "tabs"
              ? { object: "block", type: "tabs", nodes: run as DocumentBlockTabsItem[] }
              : { object: "block", type: "stepper", nodes: run as DocumentBlockStepperStep[] };
          // A later piece continues the first (a block moved out of a tab sits between them).
          pieces.push(pieces.some((p) => p.type === tag.name) ? markPartOf(made, tag.name) : made);
          run = [];
        };
        for (const item of items) {
          if ((tag.name === "tabs" && item.type === "tabs-item") || (tag.name === "stepper" && item.type === "stepper-step"))
            run.push(item as DocumentBlockTabsItem);
          else {
            // A block moved out of one of the tabs (marked) is written back and shown inside it.
            if (partOf(item) === undefined)
              this.warn(node, `content inside {% ${tag.name} %} but outside any {% ${itemName} %} was moved out`);
            flush();
            pieces.push(item);
          }
        }
        flush();
        if (!pieces.some((p) => p.type === tag.name)) this.warn(node, `{% ${tag.name} %} has no {% ${itemName} %}; it was dropped`);
        return pieces;
      }
      case "tab": {
        const title = tag.attrs.title ?? tag.positional[0] ?? "";
        // `icon` is not in 0.146's tabs-item schema, which leaves `data` open; kept so it round-trips.
        const data: DocumentBlockTabsItem["data"] & { icon?: string } = { title };
        if (tag.attrs.icon) data.icon = tag.attrs.icon;
        return this.split(inner("tabs-item"), "tabs-item", "a tab", (nodes) => ({
          object: "block",
          type: "tabs-item",
          data: { ...data },
          nodes: nodes as never,
        }));
      }
      case "step": {
        const data: { icon?: string } = {};
        if (tag.attrs.icon) data.icon = tag.attrs.icon;
        return this.split(inner("stepper-step"), "stepper-step", "a step", (nodes) => ({
          object: "block",
          type: "stepper-step",
          data: { ...data },
          nodes: nodes as never,
        }));
      }
      case "code": {
        const blocks = inner(context);
        const codeIndex = blocks.findIndex((b) => b.type === "code");
        if (codeIndex < 0) {
          this.warn(node, "{% code %} without a fenced code block inside; its options were dropped");
          return blocks;
        }
        if (blocks.length > 1) this.warn(node, "{% code %} holds more than a code block; the rest was kept after it");
        const code = blocks[codeIndex] as DocumentBlockCode;
        const a = tag.attrs;
        if (a.title !== undefined) code.data.title = a.title;
        if (a.overflow === "wrap" || a.overflow === "scroll") code.data.overflow = a.overflow;
        for (const flag of ["lineNumbers", "fullWidth", "expandable"] as const) {
          if (a[flag] === "true") code.data[flag] = true;
          else if (a[flag] === "false") code.data[flag] = false;
        }
        return blocks;
      }
      case "content-ref": {
        const url = tag.attrs.url ?? tag.positional[0];
        if (url === undefined) return this.keepTagsAsText(tag, node, inner(context));
        const ref = this.linkRef(url, "content-ref");
        const block = this.record(
          { object: "block" as const, type: "content-ref" as const, isVoid: true as const, data: { ref } },
          "content-ref",
          url,
        );
        return [block, ...this.extraInside(innerNodes(), node, "content-ref", context)];
      }
      case "embed": {
        const url = tag.attrs.url ?? tag.positional[0];
        if (url === undefined) return this.keepTagsAsText(tag, node, inner(context));
        // Embeds and files have no caption in 0.146's model: the caption's blocks follow the block,
        // marked as its parts, and are written back inside its tag (document/parts.ts).
        const caption = inner(context).map((b) => markPartOf(b, "embed"));
        return [this.embed(url, tag), ...caption];
      }
      case "file": {
        const block = this.singleTag(tag, node);
        const caption = inner(context);
        if (block.length === 1 && block[0]!.type === "file") for (const b of caption) markPartOf(b, "file");
        return [...block, ...caption];
      }
      case "openapi":
      case "swagger": {
        const src = tag.attrs.src ?? tag.positional[0];
        const path = tag.attrs.path ?? tag.positional[1];
        const method = tag.attrs.method ?? tag.positional[2];
        if (!src || !path || !method) return this.keepTagsAsText(tag, node, inner(context));
        const ref = this.imageRef(src, "openapi");
        const data: Extract<DocumentBlock, { type: "swagger" }>["data"] = { ref, path, method: method.toLowerCase() };
        if (tag.attrs.expanded === "true") data.expanded = true;
        if (tag.attrs.fullWidth === "true") data.fullWidth = true;
        const block = this.record({ object: "block" as const, type: "swagger" as const, isVoid: true as const, data }, "openapi", src);
        return [block, ...this.extraInside(innerNodes(), node, tag.name, context)];
      }
      case "openapi-operation":
      case "openapi-schemas":
      case "openapi-webhook": {
        const block = this.openapiBlock(tag);
        if (!block) return this.keepTagsAsText(tag, node, inner(context));
        return [block, ...this.extraInside(innerNodes(), node, tag.name, context)];
      }
      default:
        return this.keepTagsAsText(tag, node, inner(context));
    }
  }

  private openapiBlock(tag: Tag): DocumentBlock | undefined {
    const spec = tag.attrs.spec;
    if (!spec) return undefined;
    const ref = { kind: "openapi" as const, spec };
    if (tag.name === "openapi-operation") {
      if (!tag.attrs.path || !tag.attrs.method) return undefined;
      return {
        object: "block",
        type: "openapi-operation",
        isVoid: true,
        data: { ref, path: tag.attrs.path, method: tag.attrs.method.toLowerCase() },
      };
    }
    if (tag.name === "openapi-schemas") {
      const schemas = (tag.attrs.schemas ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const data: Extract<DocumentBlock, { type: "openapi-schemas" }>["data"] = { ref, schemas };
      if (tag.attrs.grouped === "true") data.grouped = true;
      else if (tag.attrs.grouped === "false") data.grouped = false;
      return { object: "block", type: "openapi-schemas", isVoid: true, data };
    }
    if (!tag.attrs.name || !tag.attrs.method) return undefined;
    return {
      object: "block",
      type: "openapi-webhook",
      isVoid: true,
      data: { ref, name: tag.attrs.name, method: tag.attrs.method.toLowerCase() },
    };
  }

  /**
   * Content inside a void-like container (`content-ref`, `openapi` …): GitBook writes one link there,
   * which the block's own target replaces; anything else is kept after the block.
   */
  private extraInside(nodes: RootContent[], tagNode: RootContent, name: string, context: BlockContext): DocumentBlock[] {
    const meaningful = nodes.filter(
      (n) => !(n.type === "paragraph" && n.children.every((c) => c.type === "link" || (c.type === "text" && c.value.trim() === ""))),
    );
    if (!meaningful.length) return [];
    this.warn(tagNode, `content inside {% ${name} %} other than its link was kept after the block`);
    return this.flow(meaningful, context);
  }

  /** An open/close tag pair that cannot become a block: both tag lines as text, content in between. */
  private keepTagsAsText(tag: Tag, node: RootContent, inner: DocumentBlock[]): DocumentBlock[] {
    const closing = `{% end${tag.name} %}`;
    if (!PASS_THROUGH_TAGS.has(tag.name)) this.warn(node, `{% ${tag.name} %} is missing required arguments; kept as text`);
    return [this.tagParagraph(tag.raw), ...inner, this.tagParagraph(closing)];
  }

  private tagParagraph(raw: string): DocumentBlockParagraph {
    return plainParagraph(raw);
  }

  /** A tag that is not (or cannot be) paired. */
  private singleTag(tag: Tag, node: RootContent): DocumentBlock[] {
    const name = tag.name;
    if (name === "page-ref") {
      const target = tag.attrs.page ?? tag.attrs.url ?? tag.positional[0];
      if (target !== undefined)
        return [
          this.record(
            {
              object: "block" as const,
              type: "content-ref" as const,
              isVoid: true as const,
              data: { ref: this.linkRef(target, "content-ref") },
            },
            "content-ref",
            target,
          ),
        ];
    }
    if (name === "embed") {
      const url = tag.attrs.url ?? tag.positional[0];
      if (url !== undefined) return [this.embed(url, tag)];
    }
    if (name === "file") {
      const src = tag.attrs.src ?? tag.positional[0];
      if (src !== undefined) {
        const ref = this.resolver?.(src, "file");
        if (ref?.kind === "file")
          return [this.record({ object: "block" as const, type: "file" as const, isVoid: true as const, data: { ref } }, "file", src)];
        this.warn(node, `file "${src}" is not a file of this space; kept as a link`);
        const link: DocumentInline = this.record(
          {
            object: "inline",
            type: "link",
            nodes: [textNode([leaf(src.split("/").pop() || src)])],
            data: { ref: ref ?? { kind: "url", url: src } },
          },
          "file",
          src,
        );
        return [paragraph([link])];
      }
    }
    if (name === "include") {
      const target = tag.positional[0] ?? tag.attrs.src ?? tag.attrs.file;
      if (target !== undefined) {
        const ref = this.resolver?.(target, "include");
        if (ref?.kind === "reusable-content")
          return [
            this.record(
              { object: "block" as const, type: "reusable-content" as const, isVoid: true as const, data: { ref } },
              "include",
              target,
            ),
          ];
        this.warn(node, `included file "${target}" is not a reusable content of this space; the tag was kept as text`);
        return [this.record(this.tagParagraph(tag.raw), "include", target)];
      }
    }
    if (name.startsWith("@") && name.includes("/")) {
      // 0.146's PlainObject schema makes every scalar prop match two branches of a oneOf, so only
      // `props: {}` validates: the common `{% @integration/block url="…" %}` form maps to `data.url`,
      // anything with more attributes stays a verbatim tag line.
      const keys = Object.keys(tag.attrs);
      if (tag.positional.length === 0 && keys.length === 1 && keys[0] === "url") {
        const [integration, block] = [name.slice(1, name.indexOf("/")), name.slice(name.indexOf("/") + 1)];
        return [{ object: "block", type: "integration", isVoid: true, data: { integration, block, props: {}, url: tag.attrs.url! } }];
      }
      this.warn(node, `integration block ${tag.raw} kept as text (only the url="…" form has a valid 0.146 node)`);
      return [this.tagParagraph(tag.raw)];
    }
    if (name === "openapi-operation" || name === "openapi-schemas" || name === "openapi-webhook") {
      const block = this.openapiBlock(tag);
      if (block) return [block];
    }
    if (PASS_THROUGH_TAGS.has(name) && !(name === "swagger" && tag.attrs.src !== undefined)) return [this.tagParagraph(tag.raw)];
    if (isKnownTagName(name))
      this.warn(node, `${tag.raw} has no matching ${name.startsWith("end") ? "opening" : "closing"} tag; kept as text`);
    else this.warn(node, `unknown tag ${tag.raw} kept as text`);
    return [this.tagParagraph(tag.raw)];
  }

  private embed(url: string, tag: Tag): DocumentBlock {
    const data: { url: string; fullWidth?: boolean } = { url };
    if (tag.attrs.fullWidth === "true") data.fullWidth = true;
    return this.record({ object: "block" as const, type: "embed" as const, isVoid: true as const, data }, "embed", url);
  }

  private expandable(
    token: Extract<Token, { kind: "details-open" }>,
    tokens: Token[],
    pairs: Map<number, number>,
    from: number,
    to: number,
  ): DocumentBlock[] {
    let summaryHtml = token.summary;
    let start = from;
    if (summaryHtml === undefined && tokens[from]?.kind === "summary") {
      summaryHtml = (tokens[from] as Extract<Token, { kind: "summary" }>).html;
      start = from + 1;
    }
    if (summaryHtml === undefined) this.warn(token.node, "<details> without <summary>; the title is empty");
    if (/\sopen\b/i.test((token.node as Html).value))
      this.warn(
        token.node,
        "<details open> is written without `open` on export (expandables have no open state in GitBook's document model)",
      );
    const title = paragraph(htmlToInlines(parseHtml(summaryHtml ?? ""), this.htmlContext(token.node)));
    const body = this.range(tokens, pairs, start, to, "expandable-body");
    let made = 0;
    const pieces = this.split(body, "expandable-body", "an expandable", (nodes) => ({
      object: "block",
      type: "expandable",
      isVoid: true,
      data: {},
      fragments: [
        {
          object: "fragment",
          fragment: "expandable-title",
          type: "expandable-title",
          nodes: [made++ === 0 ? title : structuredClone(title)],
        },
        {
          object: "fragment",
          fragment: "expandable-body",
          type: "expandable-body",
          nodes: (nodes.length ? nodes : [paragraph([])]) as never,
        },
      ],
    }));
    return pieces;
  }

  // -- single blocks --

  private block(node: RootContent, context: BlockContext): DocumentBlock[] {
    switch (node.type) {
      case "paragraph": {
        const block = this.paragraphBlock(node);
        // A paragraph of nothing (`<sup></sup>`) has nothing to keep, and would not be written.
        if (block.type === "paragraph" && block.nodes.length === 1 && block.nodes[0]!.object === "text" && inlineText(block.nodes) === "")
          return [];
        return [block];
      }
      case "heading":
        return [this.heading(node)];
      case "thematicBreak":
        return [{ object: "block", type: "divider", isVoid: true, data: {} }];
      case "blockquote":
        return this.blockquote(node, context);
      case "list":
        return this.list(node, context);
      case "code":
        return [this.code(node)];
      case "math":
        return [{ object: "block", type: "math", isVoid: true, data: { formula: node.value } }];
      case "table":
        // Too deep for its cells, a table is kept as its text.
        return this.fitsDeeper(node) ? [this.deeper(() => this.table(node))] : [plainParagraph(this.raw(node))];
      case "html":
        return this.htmlBlock(node);
      case "definition":
      case "footnoteDefinition":
      case "yaml":
        return [];
      default: {
        const text = this.raw(node);
        this.warn(node, `unsupported Markdown (${node.type}) kept as text`);
        return [plainParagraph(text)];
      }
    }
  }

  private paragraphBlock(node: Paragraph): DocumentBlock {
    // Whitespace, breaks and bare formatting tags (`<sup>` with nothing in it) do not stop a
    // paragraph of images from being an images block; the serializer writes one as `![](…)`.
    const bareTag = /^<\/?(sup|sub|mark|kbd|strong|em|b|i|s|del|strike)(\s[^>]*)?>$/i;
    const significant = node.children.filter(
      (c) => !(c.type === "text" && c.value.trim() === "") && c.type !== "break" && !(c.type === "html" && bareTag.test(c.value.trim())),
    );
    if (
      significant.length > 0 &&
      significant.every((c) => c.type === "image" || (c.type === "imageReference" && this.definitions.has(c.identifier)))
    ) {
      return this.imagesBlock(
        significant.map((c) => this.markdownImage(c)),
        {},
      );
    }
    const raw = this.raw(node);
    if (raw.trimStart().startsWith("{%")) {
      if (!splitTagLine(raw.trim())) this.warn(node, "malformed {% %} tag kept as text");
    }
    return paragraph(this.phrasing(node.children, []));
  }

  private markdownImage(node: PhrasingContent): DocumentBlockImage {
    let url = "";
    let alt = "";
    let title: string | null | undefined;
    if (node.type === "image") {
      url = node.url;
      alt = node.alt ?? "";
      title = node.title;
    } else if (node.type === "imageReference") {
      const def = this.definitions.get(node.identifier)!;
      this.usedDefinitions.add(node.identifier);
      url = def.url;
      alt = node.alt ?? "";
      title = def.title;
    }
    const data: DocumentBlockImage["data"] = { ref: this.imageRef(url) };
    if (alt) data.alt = alt;
    const image: DocumentBlockImage = {
      object: "block",
      type: "image",
      isVoid: true,
      data,
      fragments: title ? [captionFragment([textNode([leaf(title)])])] : [],
    };
    return this.record(image, "image", url);
  }

  private imagesBlock(images: DocumentBlockImage[], data: DocumentBlockImages["data"]): DocumentBlockImages {
    return { object: "block", type: "images", isVoid: false, data, nodes: images };
  }

  private heading(node: Heading): DocumentBlock {
    const depth = node.depth;
    if (depth === 1 && this.untitled) {
      this.untitled = false;
      this.warn(node, "a # heading below other content is a section heading (##), not the page title (the title comes from SUMMARY.md)");
    } else if (depth === 1) this.warn(node, "a second # heading is kept as a first-level section heading (##)");
    if (depth > 4) this.warn(node, `a level-${depth} heading is kept as a third-level heading (####): GitBook has three levels`);
    const type = depth <= 2 ? "heading-1" : depth === 3 ? "heading-2" : "heading-3";
    const children = [...node.children];
    let id: string | undefined;
    // `## Title <a href="#id" id="id"></a>`: GitBook's way of pinning a heading's anchor.
    const last = children[children.length - 1];
    const beforeLast = children[children.length - 2];
    if (last?.type === "html" && /^<\/a>$/i.test(last.value.trim()) && beforeLast?.type === "html") {
      const open = tokenizeHtml(beforeLast.value)[0];
      if (open?.type === "open" && open.name === "a" && open.attrs.id && /^[-A-Za-z0-9.+_]+$/.test(open.attrs.id)) {
        // 0.146 allows lowercase anchors only (`^[-a-z0-9.+_]+$`); GitBook's older exports wrote
        // camel case ones (`<a id="lifecycleStart"></a>`).
        id = open.attrs.id.toLowerCase();
        if (id !== open.attrs.id)
          this.warn(node, `the heading anchor "${open.attrs.id}" was lowercased to "${id}" (GitBook's anchors are lowercase)`);
        children.splice(children.length - 2, 2);
        const tail = children[children.length - 1];
        if (tail?.type === "text") children[children.length - 1] = { ...tail, value: tail.value.replace(/\s+$/, "") };
      }
    }
    // A heading is one line: a `<br>` in it reads as a space, which is also how it is written.
    const inlines = this.phrasing(children, []).map((n) =>
      n.object === "text" ? textNode(n.leaves.map((l) => leaf(l.text.replace(/\n/g, " "), l.marks))) : n,
    );
    const block: DocumentBlockHeading = { object: "block", type, data: id ? { id } : {}, nodes: normalizeInlines(inlines) };
    return block;
  }

  private blockquote(node: Blockquote, context: BlockContext): DocumentBlock[] {
    if (!this.fitsDeeper(node)) return this.flow(node.children, context);
    return this.deeper(() =>
      this.split(this.flow(node.children, "blockquote"), "blockquote", "a quote", (nodes) => ({
        object: "block",
        type: "blockquote",
        nodes: nodes as never,
      })),
    );
  }

  private list(node: List, context: BlockContext): DocumentBlock[] {
    // Too deep, the items' blocks are read at this level, one after another.
    if (!this.fitsDeeper(node)) return node.children.flatMap((item) => this.flow(item.children, context));
    const tasks = node.children.some((item) => typeof item.checked === "boolean");
    const pieces: DocumentBlock[] = [];
    let run: DocumentBlockListItem[] = [];
    let start = node.start ?? 1;
    let startOfRun = start;
    let made = 0;
    const flush = () => {
      if (!run.length) return;
      let list: DocumentBlock;
      if (tasks) list = { object: "block", type: "list-tasks", nodes: run };
      else if (node.ordered)
        list = { object: "block", type: "list-ordered", data: startOfRun !== 1 ? { start: startOfRun } : {}, nodes: run };
      else list = { object: "block", type: "list-unordered", nodes: run };
      // A later piece continues the list (a block moved out of an item sits between them).
      pieces.push(made++ > 0 ? markPartOf(list, list.type) : list);
      run = [];
    };
    for (const item of node.children) {
      for (const piece of this.deeper(() => this.listItem(item))) {
        if (piece.type === "list-item") {
          if (!run.length) startOfRun = start;
          run.push(piece);
        } else {
          flush();
          pieces.push(piece);
        }
      }
      start++;
    }
    flush();
    return pieces;
  }

  private listItem(item: ListItem): DocumentBlock[] {
    const data: { checked?: boolean } = typeof item.checked === "boolean" ? { checked: item.checked } : {};
    return this.split(this.flow(item.children, "list-item"), "list-item", "a list item", (nodes) => ({
      object: "block",
      type: "list-item",
      data: { ...data },
      nodes: nodes as never,
    }));
  }

  private code(node: Code): DocumentBlockCode {
    const data: DocumentBlockCode["data"] = {};
    if (node.lang) data.syntax = node.lang;
    if (node.meta) this.warn(node, `code fence info "${node.meta}" after the language was dropped (use {% code title="…" %})`);
    return {
      object: "block",
      type: "code",
      data,
      nodes: node.value.split("\n").map((line) => ({ object: "block", type: "code-line", data: {}, nodes: [textNode([leaf(line)])] })),
    };
  }

  private table(node: Table): DocumentBlockTable {
    const [header, ...rows] = node.children;
    const width = Math.max(header?.children.length ?? 0, ...rows.map((r) => r.children.length));
    const ids = Array.from({ length: width }, (_, i) => `c${i + 1}`);
    const definition: Record<string, DocumentTableDefinition> = {};
    // Said once per table: `| **Name** | **Value** |` is one choice of the writer, not many.
    const formatted = header?.children.find((cell) => cell.children.some((c) => c.type !== "text"));
    if (formatted) this.warn(formatted, "formatting in a table header was dropped (column titles are plain text)");
    ids.forEach((id, i) => {
      const cell = header?.children[i];
      const align = node.align?.[i];
      definition[id] = {
        id,
        title: cell ? mdastToString(cell).trim() : "",
        type: "text",
        textAlignment: align === "center" ? "center" : align === "right" ? "right" : "left",
      };
    });
    const orderIndexes = rows.length ? generateNKeysBetween(null, null, rows.length) : [];
    const records: Record<string, DocumentTableRecord> = {};
    const fragments: DocumentFragment[] = [];
    rows.forEach((row, r) => {
      const recordId = `r${r + 1}`;
      const values: Record<string, TableRecordValue> = {};
      row.children.forEach((cell, c) => {
        const blocks = this.cellFlow(cell.children, cell);
        if (blocks.length === 0) return;
        const name = `${recordId}-${ids[c]}`;
        values[ids[c]!] = name;
        fragments.push({ object: "fragment", fragment: name, nodes: blocks });
      });
      records[recordId] = { orderIndex: orderIndexes[r]!, values };
    });
    const hideHeader = (header?.children ?? []).every((c) => mdastToString(c).trim() === "");
    return {
      object: "block",
      type: "table",
      isVoid: true,
      data: { view: { type: "grid", columns: ids, hideHeader }, records, definition },
      fragments,
    };
  }

  /**
   * The blocks of a pipe-table cell; none when it is empty. GitBook writes a cell holding several
   * blocks as HTML inside the cell (`<p>One</p><ul><li>Two <code>x</code></li></ul>`): its `<p>`,
   * `<ul>`, `<ol>` and `<li>` tags give the cell's paragraphs and lists, and what lies between them
   * is read as phrasing, with its Markdown and inline HTML.
   */
  private cellFlow(children: readonly PhrasingContent[], cell: Table["children"][number]["children"][number]): ListItemChild[] {
    const root: ListItemChild[] = [];
    let into = root;
    // Open lists, each with the blocks it was opened in (where its closing tag returns to).
    const lists: { list: DocumentBlockListOrdered | DocumentBlockListUnordered; outer: ListItemChild[] }[] = [];
    // Lists opened too deep (MAX_NESTING): their tags are ignored, their items join the list around.
    let ignored = 0;
    let run: PhrasingContent[] = [];
    const flush = () => {
      if (run.length === 0) return;
      const inlines = this.phrasing(run, []);
      run = [];
      if (inlineText(inlines).trim() === "" && inlines.every((n) => n.object === "text")) return;
      into.push(paragraph(inlines));
    };
    for (const child of children) {
      const tag = child.type === "html" ? CELL_BLOCK_TAG.exec(child.value.trim()) : null;
      if (!tag) {
        run.push(child);
        continue;
      }
      flush();
      const closing = tag[1] === "/";
      const name = tag[2]!.toLowerCase();
      if (name === "p") continue; // a paragraph's bounds: what lies between is flushed as one
      if (name === "ul" || name === "ol") {
        if (!closing && (ignored > 0 || !this.nestingFits(lists.length, cell))) {
          ignored++;
          continue;
        }
        if (closing && ignored > 0) {
          ignored--;
          continue;
        }
        if (!closing) {
          const start = Number(/\bstart\s*=\s*"?(\d+)/i.exec(tag[3] ?? "")?.[1] ?? 1);
          const list: DocumentBlockListOrdered | DocumentBlockListUnordered =
            name === "ol"
              ? { object: "block", type: "list-ordered", data: start !== 1 ? { start } : {}, nodes: [] }
              : { object: "block", type: "list-unordered", nodes: [] };
          into.push(list);
          lists.push({ list, outer: into });
        } else {
          const closed = lists.pop();
          if (closed) into = closed.outer;
          else this.warn(cell, `closing </${name}> without an opening tag in a table cell was dropped`);
        }
        continue;
      }
      // <li>: its blocks go into a new item of the innermost open list (a stray one, into a new list).
      if (closing) continue;
      let open = lists.at(-1);
      if (!open) {
        const list: DocumentBlockListUnordered = { object: "block", type: "list-unordered", nodes: [] };
        into.push(list);
        open = { list, outer: into };
        lists.push(open);
      }
      const item: DocumentBlockListItem = { object: "block", type: "list-item", data: {}, nodes: [] };
      open.list.nodes.push(item);
      into = item.nodes;
    }
    flush();
    if (lists.length > 0) this.warn(cell, "a list in a table cell was not closed; it ends with the cell");
    // An item left empty (`<li></li>`) still holds a paragraph; a list without items is dropped.
    const tidy = (blocks: ListItemChild[]): ListItemChild[] =>
      blocks.filter((block) => {
        if (block.type !== "list-ordered" && block.type !== "list-unordered") return true;
        for (const item of block.nodes) {
          item.nodes = tidy(item.nodes);
          if (item.nodes.length === 0) item.nodes.push(paragraph([textNode([leaf("")])]));
        }
        return block.nodes.length > 0;
      });
    return tidy(root);
  }

  // -- HTML blocks --

  private htmlContext(node: RootContent | undefined): HtmlInlineContext {
    return {
      link: (href, kind) => {
        const ref = this.linkRef(href, kind);
        this.refTargets.set(ref, { kind, target: href });
        return ref;
      },
      image: (src) => {
        const ref = this.imageRef(src);
        this.refTargets.set(ref, { kind: "image", target: src });
        return ref;
      },
      warn: (message) => this.warn(node, message),
      text: (value, marks) => this.text(value, marks, node),
    };
  }

  private htmlBlock(node: Html): DocumentBlock[] {
    const value = node.value.trim();
    const tree = parseHtml(value).filter((n) => !(n.type === "text" && n.value.trim() === ""));
    if (/^<br\s*\/?>$/i.test(value)) {
      this.warn(node, "a line break on its own line was dropped");
      return [];
    }
    // A commented-out passage is hidden from readers; as a code block it would show. No place in
    // GitBook's document model holds it, so it is dropped, and said so.
    if (tree.length > 0 && tree.every((n) => n.type === "comment")) {
      this.warn(node, "an HTML comment (hidden text) was dropped: GitBook's document model cannot hold it");
      return [];
    }
    const images = this.figures(tree, node);
    if (images) return [images];
    const only = tree.length === 1 ? tree[0]! : undefined;
    if (only?.type === "element" && only.name === "table" && this.fitsDeeper(node)) {
      const table = this.deeper(() => this.htmlTable(only, node));
      if (table) return [table];
    }
    if (
      tree.length === 1 &&
      tree[0]!.type === "element" &&
      (tree[0]!.name === "p" || tree[0]!.name === "div") &&
      Object.keys(tree[0]!.attrs).every((a) => a === "align") &&
      this.isInlineOnly(tree[0]!.children)
    ) {
      const el = tree[0]!;
      const block = paragraph(this.collectTargets(() => htmlToInlines(el.children, this.htmlContext(node))));
      const align = el.attrs.align?.toLowerCase();
      if (align === "center") block.data = { align: "center" };
      else if (align === "right") block.data = { align: "end" };
      else if (align !== undefined && align !== "left") this.warn(node, `paragraph alignment "${align}" was dropped`);
      return [block];
    }
    const code = this.htmlCode(tree, node);
    if (code) return [code];
    // GitBook writes an aligned heading as HTML: <h3 align="center">…</h3> (### is heading-2).
    const headingType = { h1: "heading-1", h2: "heading-1", h3: "heading-2", h4: "heading-3" } as const;
    if (
      tree.length === 1 &&
      tree[0]!.type === "element" &&
      tree[0]!.name in headingType &&
      Object.keys(tree[0]!.attrs).every((a) => a === "align" || a === "id") &&
      this.isInlineOnly(tree[0]!.children)
    ) {
      const el = tree[0]!;
      const data: { id?: string; align?: "center" | "end" } = {};
      const heading: DocumentBlock = {
        object: "block",
        type: headingType[el.name as keyof typeof headingType],
        data,
        nodes: this.collectTargets(() => htmlToInlines(el.children, this.htmlContext(node))),
      };
      const align = el.attrs.align?.toLowerCase();
      if (align === "center") data.align = "center";
      else if (align === "right") data.align = "end";
      else if (align !== undefined && align !== "left") this.warn(node, `heading alignment "${align}" was dropped`);
      if (el.attrs.id !== undefined && /^[-a-z0-9.+_]+$/.test(el.attrs.id)) data.id = el.attrs.id;
      else if (el.attrs.id !== undefined)
        this.warn(node, `heading anchor "${el.attrs.id}" was dropped: anchors are lower-case letters, digits and - . + _`);
      if (el.name === "h1") this.warn(node, "an <h1> inside the page became a heading-1 (the page title is its first # heading)");
      return [heading];
    }
    return this.unknownHtml(node);
  }

  /**
   * GitBook writes a code block with highlighted lines as `<pre class="language-x" data-title=…
   * data-overflow=… data-line-numbers><code>…<strong>a highlighted line\n</strong>…</code></pre>`:
   * a code block here, the lines `<strong>` (or `<b>`) covers highlighted; any other formatting is
   * dropped with a warning, its text kept.
   */
  private htmlCode(tree: HtmlNode[], node: Html): DocumentBlockCode | undefined {
    const pre = tree.length === 1 && tree[0]!.type === "element" && tree[0]!.name === "pre" ? tree[0]! : undefined;
    const code =
      pre && elementChildren(pre).length === 1 && elementChildren(pre)[0]!.name === "code" ? elementChildren(pre)[0]! : undefined;
    if (!pre || !code || !isBlankHtml(pre.children.filter((child) => child !== code))) return undefined;
    const data: DocumentBlockCode["data"] = {};
    const syntax = /(?:^|\s)lang(?:uage)?-(\S+)/.exec(`${pre.attrs.class ?? ""} ${code.attrs.class ?? ""}`)?.[1];
    if (syntax) data.syntax = syntax;
    if (pre.attrs["data-title"]) data.title = pre.attrs["data-title"];
    if (pre.attrs["data-overflow"] === "wrap" || pre.attrs["data-overflow"] === "scroll") data.overflow = pre.attrs["data-overflow"];
    if ("data-line-numbers" in pre.attrs && pre.attrs["data-line-numbers"] !== "false") data.lineNumbers = true;
    if (pre.attrs["data-full-width"] === "true") data.fullWidth = true;
    if (pre.attrs["data-expandable"] === "true") data.expandable = true;
    const lines: { text: string; highlighted: boolean }[] = [{ text: "", highlighted: false }];
    const append = (text: string, highlighted: boolean) => {
      const pieces = text.split("\n");
      pieces.forEach((piece, i) => {
        if (i > 0) lines.push({ text: "", highlighted: false });
        const line = lines.at(-1)!;
        line.text += piece;
        // The piece after a highlight's last newline is the next line's start, not part of it.
        if (highlighted && (i < pieces.length - 1 || piece !== "")) line.highlighted = true;
      });
    };
    let formatted = false;
    for (const child of code.children) {
      if (child.type === "text") append(child.value, false);
      else if (child.type !== "element") continue;
      else if (child.name === "br") append("\n", false);
      else {
        if (child.name !== "strong" && child.name !== "b") formatted = true;
        append(htmlText(child.children), child.name === "strong" || child.name === "b");
      }
    }
    if (formatted) this.warn(node, "formatting inside an HTML code block (<pre><code>) was dropped; its text is kept");
    const last = lines.at(-1)!;
    if (lines.length > 1 && last.text === "" && !last.highlighted) lines.pop();
    return {
      object: "block",
      type: "code",
      data,
      nodes: lines.map((line) => ({
        object: "block",
        type: "code-line",
        data: line.highlighted ? { highlighted: true } : {},
        nodes: [textNode([leaf(line.text)])],
      })),
    };
  }

  private unknownHtml(node: Html): DocumentBlock[] {
    const value = node.value;
    this.warn(node, `HTML that GitBook's document model cannot hold was kept as an html code block: ${value.split("\n")[0]!.slice(0, 60)}`);
    return [
      {
        object: "block",
        type: "code",
        data: { syntax: "html" },
        nodes: value.split("\n").map((line) => ({ object: "block", type: "code-line", data: {}, nodes: [textNode([leaf(line)])] })),
      },
    ];
  }

  private isInlineOnly(nodes: readonly HtmlNode[]): boolean {
    const inline = new Set(["a", "img", "br", "strong", "b", "em", "i", "code", "s", "del", "strike", "sup", "sub", "kbd", "mark"]);
    return nodes.every((n) => n.type === "text" || (n.type === "element" && inline.has(n.name) && this.isInlineOnly(n.children)));
  }

  /** Runs an inline-HTML conversion and records the link and image targets it produced. */
  private collectTargets(convert: () => InlineContent[]): InlineContent[] {
    const nodes = convert();
    const visit = (n: InlineContent) => {
      if (n.object === "text") return;
      if (n.type === "link" || n.type === "button" || n.type === "inline-image") {
        const found = this.refTargets.get(n.data.ref);
        if (found) this.record(n, found.kind, found.target);
      }
      if (n.type === "inline-image" && n.data.refDark) {
        const dark = this.refTargets.get(n.data.refDark);
        if (dark) this.record(n, dark.kind, dark.target);
      }
      if (n.type === "link") n.nodes.forEach(visit);
    };
    nodes.forEach(visit);
    return nodes;
  }

  /** `<figure>`, `<picture>`, `<img>` (optionally in `<div align>`/`<p align>`) → an images block. */
  private figures(tree: HtmlNode[], node: Html): DocumentBlockImages | undefined {
    let elements = tree;
    const data: DocumentBlockImages["data"] = {};
    if (elements.length === 1 && elements[0]!.type === "element" && (elements[0]!.name === "div" || elements[0]!.name === "p")) {
      const wrapper = elements[0] as HtmlElement;
      const inner = wrapper.children.filter((n) => !(n.type === "text" && n.value.trim() === ""));
      if (!inner.length || !inner.every((n) => n.type === "element" && ["figure", "picture", "img"].includes(n.name))) return undefined;
      const align = wrapper.attrs.align?.toLowerCase();
      if (align === "left" || align === "right" || align === "center") data.align = align;
      if (wrapper.attrs["data-full-width"] === "true") data.fullWidth = true;
      if (wrapper.attrs["data-with-frame"] === "true") data.withFrame = true;
      elements = inner;
    }
    if (!elements.length || !elements.every((n) => n.type === "element" && ["figure", "picture", "img"].includes(n.name))) return undefined;
    const images: DocumentBlockImage[] = [];
    for (const el of elements as HtmlElement[]) {
      const image = this.htmlImage(el, node);
      if (!image) return undefined;
      images.push(image);
    }
    return this.imagesBlock(images, data);
  }

  private htmlImage(el: HtmlElement, node: Html): DocumentBlockImage | undefined {
    let picture: HtmlElement | undefined;
    let img: HtmlElement | undefined;
    let caption: HtmlElement | undefined;
    if (el.name === "img") img = el;
    else if (el.name === "picture") picture = el;
    else {
      for (const child of elementChildren(el)) {
        if (child.name === "img" && !img) img = child;
        else if (child.name === "picture" && !picture) picture = child;
        else if (child.name === "figcaption" && !caption) caption = child;
        else return undefined;
      }
      if (el.children.some((c) => c.type === "text" && c.value.trim() !== "")) return undefined;
    }
    const darkSrc = picture ? darkVariantSrc(picture) : undefined;
    if (picture) {
      for (const child of elementChildren(picture)) {
        if (child.name === "img") img = child;
        else if (child.name === "source" && child.attrs.srcset?.trim().split(/\s+/)[0] !== darkSrc)
          this.warn(node, "a <source> that is not the dark-mode variant was dropped");
      }
    }
    if (!img?.attrs.src) return undefined;
    const src = img.attrs.src;
    const data: DocumentBlockImage["data"] = { ref: this.imageRef(src) };
    if (darkSrc) data.refDark = this.imageRef(darkSrc);
    if (img.attrs.alt) data.alt = img.attrs.alt;
    const width = parseLength(img.attrs.width);
    const height = parseLength(img.attrs.height);
    if (width !== undefined) data.width = width;
    if (height !== undefined) data.height = height;
    const fragments: DocumentBlockImage["fragments"] = [];
    if (caption && !isBlankHtml(caption.children)) {
      const paragraphs = elementChildren(caption).filter((c) => c.name === "p");
      const parts =
        paragraphs.length &&
        caption.children.every((c) => (c.type === "element" && c.name === "p") || (c.type === "text" && c.value.trim() === ""))
          ? paragraphs.map((p) => p.children)
          : [caption.children];
      const nodes = parts.map((p) => paragraph(this.collectTargets(() => htmlToInlines(p, this.htmlContext(node)))));
      fragments.push({ object: "fragment", fragment: "caption", nodes });
    }
    const image: DocumentBlockImage = { object: "block", type: "image", isVoid: true, data, fragments };
    this.record(image, "image", src);
    if (darkSrc) this.record(image, "image", darkSrc);
    return image;
  }

  /** `<table>`: cards (`data-view="cards"`) or a plain grid. */
  private htmlTable(table: HtmlElement, node: Html): DocumentBlockTable | undefined {
    const sections = elementChildren(table);
    const rowsOf = (name: string) =>
      sections.filter((s) => s.name === name).flatMap((s) => elementChildren(s).filter((r) => r.name === "tr"));
    const headRows = rowsOf("thead");
    const bodyRows = [...rowsOf("tbody"), ...sections.filter((s) => s.name === "tr")];
    const headCells = headRows[0] ? elementChildren(headRows[0]).filter((c) => c.name === "th" || c.name === "td") : [];
    const width = Math.max(headCells.length, ...bodyRows.map((r) => elementChildren(r).length));
    if (width === 0) return undefined;
    const cards = table.attrs["data-view"] === "cards";
    const ids = Array.from({ length: width }, (_, i) => `c${i + 1}`);
    const definition: Record<string, DocumentTableDefinition> = {};
    const visible: string[] = [];
    let target: string | undefined;
    let cover: string | undefined;
    let coverDark: string | undefined;
    const declared: Record<string, string> = {};
    const widths: Record<string, number> = {};
    ids.forEach((id, i) => {
      const th = headCells[i];
      const a = th?.attrs ?? {};
      const title = th ? htmlText(th.children).trim() : "";
      const type = a["data-type"] ?? "text";
      declared[id] = type;
      if (a["data-card-target"] !== undefined) target = id;
      if (a["data-card-cover"] !== undefined) cover = id;
      if (a["data-card-cover-dark"] !== undefined) coverDark = id;
      if (a["data-hidden"] === undefined) visible.push(id);
      const width = /^\s*(\d+(?:\.\d+)?)\s*(?:px)?\s*$/.exec(a.width ?? "")?.[1];
      if (width !== undefined && Number(width) > 0) widths[id] = Number(width);
      if (type === "content-ref") definition[id] = { id, title, type: "content-ref" };
      else if (type === "files" || type === "image" || type === "checkbox" || type === "number") definition[id] = { id, title, type };
      else {
        if (type !== "text") this.warn(node, `table column type "${type}" is kept as text`);
        const align = a.align === "center" ? "center" : a.align === "right" ? "right" : "left";
        definition[id] = { id, title, type: "text", textAlignment: align };
      }
    });
    const orderIndexes = bodyRows.length ? generateNKeysBetween(null, null, bodyRows.length) : [];
    const records: Record<string, DocumentTableRecord> = {};
    const fragments: DocumentFragment[] = [];
    const tableBlock: DocumentBlockTable = {
      object: "block",
      type: "table",
      isVoid: true,
      data: { view: { type: "grid", columns: ids, hideHeader: false }, records, definition },
      fragments,
    };
    const unresolvedFiles = new Set<string>();
    const targetCells: Array<{ values: Record<string, TableRecordValue>; id: string; name: string; cell: HtmlElement }> = [];
    bodyRows.forEach((row, r) => {
      const recordId = `r${r + 1}`;
      const values: Record<string, TableRecordValue> = {};
      elementChildren(row).forEach((cell, c) => {
        const id = ids[c]!;
        const def = definition[id]!;
        if (isBlankHtml(cell.children)) return;
        if (def.type === "content-ref") {
          const a = cell.children.find((n): n is HtmlElement => n.type === "element" && n.name === "a");
          const href = a?.attrs.href ?? htmlText(cell.children).trim();
          const ref = this.linkRef(href, "card-target");
          values[id] = ref;
          this.record(tableBlock, "card-target", href);
          targetCells.push({ values, id, name: `${recordId}-${id}`, cell });
          return;
        }
        if (def.type === "checkbox" || def.type === "number") {
          const text = htmlText(cell.children).trim();
          const lower = text.toLowerCase();
          const checkbox = lower === "true" ? true : lower === "false" ? false : undefined;
          const value = def.type === "checkbox" ? checkbox : text === "" ? undefined : Number(text);
          if (value === undefined || (typeof value === "number" && !Number.isFinite(value)))
            this.warn(
              node,
              `"${text.slice(0, 40)}" in the ${def.type} column "${def.title}" is not a ${def.type === "checkbox" ? "true or false" : "number"}; the cell was left empty`,
            );
          else values[id] = value;
          return;
        }
        if (def.type === "files" || def.type === "image") {
          const a = cell.children.find((n): n is HtmlElement => n.type === "element" && (n.name === "a" || n.name === "img"));
          const src = a?.attrs.href ?? a?.attrs.src ?? htmlText(cell.children).trim();
          const resolved = this.resolver?.(src, "card-cover");
          this.record(tableBlock, "card-cover", src);
          if (def.type === "files" && resolved?.kind === "file") values[id] = [resolved.file];
          else {
            if (def.type === "files") unresolvedFiles.add(id);
            values[id] = { ref: resolved?.kind === "file" || resolved?.kind === "url" ? resolved : { kind: "url", url: src } };
          }
          return;
        }
        const name = `${recordId}-${id}`;
        values[id] = name;
        const blocks = this.cellBlocks(cell, node);
        fragments.push({ object: "fragment", fragment: name, nodes: blocks });
      });
      records[recordId] = { orderIndex: orderIndexes[r]!, values };
    });
    // A files column holds file ids; when some covers are not files of the space it becomes an
    // image column, whose values may be URLs.
    for (const id of unresolvedFiles) {
      definition[id] = { id, title: definition[id]!.title, type: "image" };
      for (const record of Object.values(records)) {
        const v = record.values[id];
        if (Array.isArray(v)) record.values[id] = { ref: { kind: "file", file: v[0]! } };
      }
      this.warn(node, "a cards cover column refers to images that are not files of this space; it was kept as an image column");
    }
    // 0.146's record schema cannot hold a URL or file ref as a value (it matches two branches of
    // its oneOf), so a card target column with such targets becomes a text column of links; the
    // serializer writes it back as the content-ref column it was.
    const ambiguous = new Set(
      targetCells
        .filter((t) => {
          const v = t.values[t.id] as ContentRef;
          return v.kind === "url" || v.kind === "file";
        })
        .map((t) => t.id),
    );
    for (const id of ambiguous) {
      definition[id] = { id, title: definition[id]!.title, type: "text", textAlignment: "left" };
      for (const t of targetCells.filter((c) => c.id === id)) {
        t.values[id] = t.name;
        fragments.push({ object: "fragment", fragment: t.name, nodes: this.cellBlocks(t.cell, node) });
      }
    }
    if (cards) {
      const view: Extract<DocumentBlockTable["data"]["view"], { type: "cards" }> = {
        type: "cards",
        cardSize: table.attrs["data-card-size"] === "large" ? "large" : "medium",
        columns: visible,
      };
      if (target) view.targetDefinition = target;
      if (cover) view.coverDefinition = cover;
      if (coverDark) view.coverDefinitionDark = coverDark;
      if (table.attrs["data-column-title-hidden"] !== undefined) view.hideColumnTitle = true;
      tableBlock.data.view = view;
    } else {
      tableBlock.data.view = {
        type: "grid",
        columns: visible,
        hideHeader: table.attrs["data-header-hidden"] !== undefined || headCells.length === 0,
        // `<th width="220">`: the column's width in pixels, as GitBook writes it.
        ...(Object.keys(widths).length ? { columnWidths: widths } : {}),
      };
    }
    if (table.attrs["data-full-width"] === "true") tableBlock.data.fullWidth = true;
    return tableBlock;
  }

  /** A text cell of an HTML table: its blocks (`htmlCellFlow`), or one paragraph of its inline content. */
  private cellBlocks(cell: HtmlElement, node: Html): ListItemChild[] {
    const blocks = this.htmlCellFlow(cell.children, node);
    return blocks.length ? blocks : [paragraph(this.collectTargets(() => htmlToInlines(trimHtml(cell.children), this.htmlContext(node))))];
  }

  /**
   * The blocks of HTML inside a table cell, as GitBook writes them: `<p>` paragraphs, `<ul>` and
   * `<ol>` lists (their items' blocks read the same way), nested `<table>`s, `<pre><code>` code
   * blocks; what lies between them
   * is a paragraph of its inline content.
   */
  private htmlCellFlow(nodes: readonly HtmlNode[], node: Html): ListItemChild[] {
    const out: ListItemChild[] = [];
    const inline = (children: readonly HtmlNode[]) =>
      paragraph(this.collectTargets(() => htmlToInlines(trimHtml(children), this.htmlContext(node))));
    let run: HtmlNode[] = [];
    const flush = () => {
      if (!isBlankHtml(run)) out.push(inline(run));
      run = [];
    };
    for (const child of nodes) {
      if (child.type !== "element" || !CELL_FLOW_ELEMENTS.has(child.name)) {
        run.push(child);
        continue;
      }
      flush();
      if (child.name === "p") out.push(inline(child.children));
      else if (child.name === "pre") {
        const code = this.htmlCode([child], node);
        if (code) out.push(code);
        else out.push(inline(child.children));
      } else if (child.name === "table") {
        // Too deep, a table in a cell is read as the text of its cells.
        const table = this.fitsDeeper(node) ? this.deeper(() => this.htmlTable(child, node)) : undefined;
        if (table) out.push(table);
        else out.push(inline(child.children));
      } else if (!this.fitsDeeper(node)) {
        for (const li of elementChildren(child)) appendAll(out, this.htmlCellFlow(li.children, node));
      } else {
        const items = elementChildren(child)
          .filter((li) => li.name === "li")
          .map((li): DocumentBlockListItem => {
            const blocks = this.deeper(() => this.htmlCellFlow(li.children, node));
            return { object: "block", type: "list-item", data: {}, nodes: blocks.length ? blocks : [inline([])] };
          });
        const start = Number(child.attrs.start ?? 1);
        if (items.length === 0) continue;
        out.push(
          child.name === "ol"
            ? { object: "block", type: "list-ordered", data: Number.isInteger(start) && start !== 1 ? { start } : {}, nodes: items }
            : { object: "block", type: "list-unordered", nodes: items },
        );
      }
    }
    flush();
    return out;
  }

  // -- inline content --

  /**
   * Whether every `{%` in the source of a text node was written escaped (`\{%`, as GitBook and
   * the serializer write it): the writer meant text, and nothing is worth a warning.
   */
  private escapedTagText(node: { position?: object } | undefined): boolean {
    const position = node?.position as { start?: { offset?: number }; end?: { offset?: number } } | undefined;
    const start = position?.start?.offset;
    const end = position?.end?.offset;
    if (start === undefined || end === undefined) return false;
    const raw = this.source.slice(start, end);
    return raw.includes("\\{%") && !/(^|[^\\])\{%/.test(raw);
  }

  /** Splits `:shortcode:` emoji out of text and reports stray `{% %}`. */
  private text(value: string, marks: DocumentMark[], node: { position?: { start: { line: number } } } | undefined): InlineContent[] {
    if (value.includes("{%") && !marks.some((m) => m.type === "code") && !this.escapedTagText(node)) {
      const tagLike = /\{%-?\s*([A-Za-z@][\w@/-]*)/.exec(value);
      if (tagLike) this.warn(node, `{% ${tagLike[1]} … %} inside a paragraph is kept as text (GitBook blocks go on lines of their own)`);
    }
    if (!value.includes(":")) return [textNode([leaf(value, marks)])];
    const out: InlineContent[] = [];
    let last = 0;
    for (const match of value.matchAll(SHORTCODE_PATTERN)) {
      const code = emojiCodeForShortcode(match[1]!);
      if (!code) continue;
      if (match.index > last) out.push(textNode([leaf(value.slice(last, match.index), marks)]));
      out.push({ object: "inline", type: "emoji", isVoid: true, data: { code } });
      last = match.index + match[0].length;
    }
    if (last < value.length) out.push(textNode([leaf(value.slice(last), marks)]));
    return out;
  }

  private phrasing(nodes: readonly PhrasingContent[], marks: DocumentMark[]): InlineContent[] {
    const out: InlineContent[] = [];
    const htmlMarks: Array<{ name: string; mark: DocumentMark }> = [];
    const current = () => [...marks, ...htmlMarks.map((m) => m.mark)];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      switch (node.type) {
        case "text":
          // A soft line break renders as a space (CommonMark); "\n" in GitBook text is a hard break.
          appendAll(out, this.text(node.value.replace(/[ \t]*\n[ \t]*/g, " "), current(), node));
          break;
        case "emphasis":
          appendAll(out, this.phrasing(node.children, [...current(), { object: "mark", type: "italic" }]));
          break;
        case "strong":
          appendAll(out, this.phrasing(node.children, [...current(), { object: "mark", type: "bold" }]));
          break;
        case "delete":
          appendAll(out, this.phrasing(node.children, [...current(), { object: "mark", type: "strikethrough" }]));
          break;
        case "inlineCode":
          out.push(textNode([leaf(node.value, [...current(), { object: "mark", type: "code" }])]));
          break;
        case "break":
          out.push(textNode([leaf("\n", current())]));
          break;
        case "inlineMath":
          out.push({ object: "inline", type: "inline-math", isVoid: true, data: { formula: node.value } });
          break;
        case "link":
          out.push(this.link(node.url, node.title, node.children, current()));
          break;
        case "linkReference": {
          const def = this.definitions.get(node.identifier);
          if (def) {
            this.usedDefinitions.add(node.identifier);
            out.push(this.link(def.url, def.title, node.children, current()));
          } else appendAll(out, this.phrasing(node.children, current()));
          break;
        }
        case "image":
        case "imageReference": {
          const image = this.markdownImage(node);
          const data: Extract<DocumentInline, { type: "inline-image" }>["data"] = { ref: image.data.ref };
          if (image.data.alt) data.alt = image.data.alt;
          const caption = image.fragments[0] ? inlineText(image.fragments[0].nodes[0]!.nodes) : "";
          if (caption) data.caption = caption;
          const inline: DocumentInline = { object: "inline", type: "inline-image", isVoid: true, data };
          this.moveTargets(image, inline);
          out.push(inline);
          break;
        }
        case "footnoteReference":
          out.splice(0, out.length, ...this.annotate(out, node.identifier, node.label ?? node.identifier, node));
          break;
        case "html": {
          const consumed = this.inlineHtml(nodes, i, out, htmlMarks, marks);
          i = consumed;
          break;
        }
        default:
          out.push(textNode([leaf(mdastToString(node), current())]));
      }
    }
    return out;
  }

  private link(url: string, title: string | null | undefined, children: PhrasingContent[], marks: DocumentMark[]): DocumentInline {
    if (title === "mention") {
      return this.record({ object: "inline", type: "mention", isVoid: true, data: { ref: this.linkRef(url, "mention") } }, "mention", url);
    }
    if (title) this.warnSink(`the title "${title}" of the link to ${url} was dropped (links have no title in GitBook's document model)`);
    const inner = this.phrasing(children, marks).flatMap((n): InlineWithImage[] =>
      n.object === "text" || n.type === "inline-image" ? [n as InlineWithImage] : [textNode([leaf(inlineFallbackText(n), marks)])],
    );
    return this.record(
      { object: "inline", type: "link", nodes: normalizeLinkNodes(inner), data: { ref: this.linkRef(url, "link") } },
      "link",
      url,
    );
  }

  /**
   * A footnote reference → an annotation on the word just before it (GitBook annotates text; a
   * footnote marks a point, so the word it follows stands for the annotated text).
   */
  private annotate(out: InlineContent[], identifier: string, label: string, node: PhrasingContent): InlineContent[] {
    const def = this.footnotes.get(identifier);
    let annotated: InlineContent[] = [textNode([leaf("")])];
    let tail = out.length;
    while (tail > 0 && out[tail - 1]!.object === "text") tail--;
    if (tail < out.length - 1)
      out = [...out.slice(0, tail), textNode(out.slice(tail).flatMap((n) => (n.object === "text" ? n.leaves : [])))];
    const last = out[out.length - 1];
    if (last?.object === "text") {
      const leaves = [...last.leaves];
      const tail = leaves[leaves.length - 1];
      const word = tail ? /\S+$/.exec(tail.text) : null;
      if (tail && word) {
        leaves[leaves.length - 1] = leaf(tail.text.slice(0, word.index), tail.marks);
        annotated = [textNode([leaf(word[0], tail.marks)])];
        out = [...out.slice(0, -1), textNode(leaves)];
      }
    }
    if (this.expanding.has(identifier)) {
      // A footnote that refers to itself: the inner reference stays as its text.
      this.warn(node, `footnote [^${label}] refers to itself; the inner reference was kept as text`);
      return [...out, textNode([leaf(`[^${label}]`)])];
    }
    let body: DocumentBlock[] = [];
    if (def) {
      this.usedFootnotes.add(identifier);
      this.expanding.add(identifier);
      body = this.fit(this.flow(def.children, "annotation-body"), "annotation-body", undefined).flatMap((b) => {
        if (isAllowedIn("annotation-body", b)) return [b];
        this.warnSink(`a ${b.type} block inside footnote [^${label}] was kept as plain text`);
        return [plainParagraph(blockPlainText(b))];
      });
      this.expanding.delete(identifier);
    } else this.warn(node, `footnote [^${label}] has no definition`);
    if (!body.length) body = [paragraph([])];
    const annotation: DocumentInlineAnnotation = {
      object: "inline",
      type: "annotation",
      isVoid: false,
      nodes: annotated.filter((n): n is Extract<InlineContent, { object: "text" }> => n.object === "text"),
      fragments: [{ object: "fragment", type: "annotation-body", nodes: body as never }],
    };
    return [...out, annotation];
  }

  /**
   * Inline HTML inside Markdown text arrives as separate open/close tag nodes; this pairs them.
   * Returns the index of the last node consumed.
   */
  private inlineHtml(
    nodes: readonly PhrasingContent[],
    index: number,
    out: InlineContent[],
    htmlMarks: Array<{ name: string; mark: DocumentMark }>,
    marks: DocumentMark[],
  ): number {
    const node = nodes[index] as Extract<PhrasingContent, { type: "html" }>;
    const tokens = tokenizeHtml(node.value);
    const current = () => [...marks, ...htmlMarks.map((m) => m.mark)];
    const literal = (message: string) => {
      this.warn(node, message);
      out.push(textNode([leaf(node.value, current())]));
      return index;
    };
    if (tokens.length !== 1) return literal(`inline HTML ${node.value.slice(0, 40)} kept as text`);
    const token = tokens[0]!;
    if (token.type === "comment") return literal("an HTML comment was kept as text");
    if (token.type === "text") return literal("inline HTML kept as text");
    if (token.type === "close") {
      const at = htmlMarks.map((m) => m.name).lastIndexOf(token.name);
      if (at < 0) return literal(`closing </${token.name}> without an opening tag kept as text`);
      htmlMarks.splice(at, 1);
      return index;
    }
    const { name, attrs } = token;
    if (name === "br") {
      out.push(textNode([leaf("\n", current())]));
      return index;
    }
    if (name === "img") {
      const converted = this.collectTargets(() =>
        htmlToInlines([{ type: "element", name, attrs, children: [] }], this.htmlContext(node as unknown as RootContent)),
      );
      appendAll(out, converted);
      return index;
    }
    if (name === "picture") {
      const close = this.findClose(nodes, index, name);
      if (close < 0) return literal("<picture> without </picture> kept as text");
      const html = nodes
        .slice(index, close + 1)
        .map((n) => (n.type === "html" ? n.value : ""))
        .join("");
      appendAll(
        out,
        this.collectTargets(() => htmlToInlines(parseHtml(html), this.htmlContext(node as unknown as RootContent), current())),
      );
      return close;
    }
    const captureSpecial = name === "a" || name === "code" || (name === "i" && iconFromClass(attrs.class) !== undefined);
    if (captureSpecial) {
      const close = this.findClose(nodes, index, name);
      if (close < 0) return literal(`<${name}> without </${name}> kept as text`);
      const inner = nodes.slice(index + 1, close);
      if (name === "code") {
        const text = inner.map((n) => (n.type === "html" ? "" : mdastToString(n))).join("");
        if (attrs.class?.split(/\s+/).includes("expression"))
          out.push({ object: "inline", type: "expression", isVoid: true, data: { expression: text } });
        else out.push(textNode([leaf(text, [...current(), { object: "mark", type: "code" }])]));
      } else if (name === "i") {
        out.push({ object: "inline", type: "icon", isVoid: true, data: { icon: iconFromClass(attrs.class)! } });
      } else {
        const href = attrs.href;
        const classes = (attrs.class ?? "").split(/\s+/);
        if (href === undefined) {
          if (inner.length) appendAll(out, this.phrasing(inner, current()));
          else if (attrs.id === undefined && attrs.name === undefined) this.warn(node, "an empty <a> was dropped");
          else this.warn(node, `the anchor <a id="${attrs.id ?? attrs.name}"> is only kept at the end of a heading; it was dropped`);
        } else if (classes.includes("button")) {
          const data: Extract<DocumentInline, { type: "button" }>["data"] = {
            label: inner
              .map((n) => mdastToString(n))
              .join("")
              .trim(),
            kind: classes.includes("secondary") ? "secondary" : "primary",
            ref: this.linkRef(href, "button"),
          };
          if (attrs["data-icon"]) data.icon = attrs["data-icon"];
          out.push(this.record({ object: "inline", type: "button", isVoid: true, data }, "button", href));
        } else out.push(this.link(href, undefined, inner, current()));
      }
      return close;
    }
    const mark = markForElement(name, attrs);
    if (mark && !token.selfClosing) {
      htmlMarks.push({ name, mark });
      return index;
    }
    return literal(`unsupported inline HTML <${name}> kept as text`);
  }

  private findClose(nodes: readonly PhrasingContent[], index: number, name: string): number {
    let depth = 0;
    for (let j = index + 1; j < nodes.length; j++) {
      const n = nodes[j]!;
      if (n.type !== "html") continue;
      const t = tokenizeHtml(n.value)[0];
      if (t?.type === "open" && t.name === name && !t.selfClosing) depth++;
      if (t?.type === "close" && t.name === name) {
        if (depth === 0) return j;
        depth--;
      }
    }
    return -1;
  }

  // -- references --

  collectReferences(document: JSONDocument): ContentReferenceFound[] {
    const found: ContentReferenceFound[] = [];
    const visit = (
      node: { object?: string; key?: string; nodes?: unknown[]; fragments?: unknown[]; data?: { ref?: ContentRef } },
      blockKey: string | undefined,
    ) => {
      const isBlock = node.object === "block";
      const ownBlockKey = isBlock ? node.key : blockKey;
      const targets = this.targets.get(node);
      if (targets) {
        for (const { kind, target } of targets) {
          const entry: ContentReferenceFound = { kind, target };
          if (ownBlockKey !== undefined) entry.blockKey = ownBlockKey;
          if (node.object === "inline" && node.key !== undefined) entry.inlineKey = node.key;
          if (node.data?.ref && kind !== "card-target" && kind !== "card-cover") entry.ref = node.data.ref;
          found.push(entry);
        }
      }
      for (const child of [...(node.nodes ?? []), ...(node.fragments ?? [])]) visit(child as typeof node, ownBlockKey);
    };
    for (const node of document.nodes) visit(node as never, undefined);
    return found;
  }
}

function captionFragment(nodes: InlineContent[]): DocumentBlockImage["fragments"][number] {
  return { object: "fragment", fragment: "caption", nodes: [paragraph(nodes)] };
}

function parseLength(value: string | undefined): DocumentBlockImage["data"]["width"] {
  if (value === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(px|%)?\s*$/.exec(value);
  if (!match) return undefined;
  const number = Number(match[1]);
  return match[2] === "%" ? { unit: "%", value: number } : number;
}

function isHtmlComment(node: RootContent): boolean {
  return node.type === "html" && /^\s*<!--[\s\S]*-->\s*$/.test(node.value);
}

function trimHtml(nodes: readonly HtmlNode[]): HtmlNode[] {
  const copy = [...nodes];
  while (copy[0]?.type === "text" && copy[0].value.trim() === "") copy.shift();
  while (copy[copy.length - 1]?.type === "text" && (copy[copy.length - 1] as { value: string }).value.trim() === "") copy.pop();
  return copy;
}

/** Plain text of any block (used where a block must become text). */
export function blockPlainText(block: DocumentBlock | DocumentFragment): string {
  const parts: string[] = [];
  const visit = (node: { object: string; leaves?: Array<{ text: string }>; nodes?: unknown[]; fragments?: unknown[] }) => {
    if (node.leaves) parts.push(node.leaves.map((l) => l.text).join(""));
    for (const child of [...(node.nodes ?? []), ...(node.fragments ?? [])]) visit(child as typeof node);
  };
  visit(block as never);
  return parts.join(" ").trim();
}
