/**
 * GitBook's JSON document → GitBook-flavoured Markdown, the inverse of parse.ts: for every document
 * the parser produces, parsing the output gives the same document again (keys aside).
 *
 * The document is turned into an mdast tree and written by remark-stringify (CommonMark + GFM +
 * math), which takes care of escaping. GitBook blocks become `{% %}` tag lines around their
 * children (a custom mdast node, so list items indent them like any other child), and HTML forms
 * (`<figure>`, `<details>`, cards tables, `<mark>` …) are written as raw HTML nodes. `{%` in text is
 * escaped as `{\%` so text can never turn into a tag; paragraphs the parser made from tag lines it
 * passed through (`{% if %}`, `{% columns %}`, unknown tags ...) are written back verbatim.
 */

import type { Html, List, ListItem, PhrasingContent, Root, RootContent, TableCell, TableRow } from "mdast";
import remarkGfm from "remark-gfm";
import remarkStringify, { type Options as StringifyOptions } from "remark-stringify";
import { unified } from "unified";
import { inlineText } from "../document/nodes.js";
import { partsOf, regroupParts } from "../document/parts.js";
import type {
  ContentRef,
  DocumentBlock,
  DocumentBlockCode,
  DocumentBlockImages,
  DocumentBlockParagraph,
  DocumentBlockTable,
  DocumentMark,
  DocumentTextLeaf,
  InlineContent,
  JSONDocument,
  TableRecordValue,
} from "../document/types.js";
import { appendAll } from "./arrays.js";
import { emojiCharacters, shortcodeForEmojiCode } from "./emoji.js";
import { type PageFrontmatter, serializeFrontmatter } from "./frontmatter.js";
import { escapeAttribute, escapeHtmlText } from "./html.js";
import { inlineFallbackText, inlinesToHtml, styleForColorMark } from "./html-content.js";
import { remarkMathSyntax } from "./math-syntax.js";
import { pathForRef, type ReferencePathResolver } from "./references.js";
import { CONTAINER_TAGS, formatTag, OPTIONAL_END_TAGS, PASS_THROUGH_TAGS, parseTag } from "./tags.js";

export interface SerializeMarkdownOptions {
  /** Ref → path relative to the page being written (pages, files, reusable contents). */
  pathFor?: ReferencePathResolver;
  /** Told about anything written in a lossy form (a drawing as an image ...). */
  onWarning?: (message: string) => void;
  /**
   * Pipe tables without padding to column width (still GFM: `| a | b |`, `| - | - |`): for readers
   * and machines rather than a repository (a GitBook table page grows ~50% from the padding).
   */
  compactTables?: boolean;
}

export interface MarkdownPage {
  title?: string;
  frontmatter?: PageFrontmatter;
  document: JSONDocument;
}

/** A `{% tag %}` … `{% endtag %}` block around flow children. */
interface TagBlock {
  type: "gitbookTagBlock";
  open: string;
  close: string;
  children: RootContent[];
}

const STRINGIFY_OPTIONS: StringifyOptions = {
  bullet: "*",
  emphasis: "*",
  strong: "*",
  rule: "*",
  fences: true,
  listItemIndent: "one",
  handlers: {
    gitbookTagBlock(node: TagBlock, _parent: unknown, state: { containerFlow: (parent: unknown, info: unknown) => string }, info: unknown) {
      const inner = node.children.length ? state.containerFlow(node, info) : "";
      return inner ? `${node.open}\n${inner}\n${node.close}` : `${node.open}\n${node.close}`;
    },
  } as never,
  // `{%` in text is escaped so it is never read back as a GitBook tag.
  unsafe: [{ character: "%", before: "\\{" }],
  // Pass-through tag lines sit directly against their content, as GitBook writes them.
  join: [
    (left: { type: string; value?: string }, right: { type: string; value?: string }) =>
      isOpeningTagLine(left) || isClosingTagLine(right) ? 0 : undefined,
  ] as never,
};

const processor = unified().use(remarkStringify, STRINGIFY_OPTIONS).use(remarkGfm).use(remarkMathSyntax, { singleDollarTextMath: false });

/** The same, writing pipe tables without padding cells to the column's width. */
const compactProcessor = unified()
  .use(remarkStringify, STRINGIFY_OPTIONS)
  .use(remarkGfm, { tablePipeAlign: false })
  .use(remarkMathSyntax, { singleDollarTextMath: false });

/**
 * Whether a table cell's blocks can be written in a pipe table: paragraphs and lists of such
 * blocks (GitBook's `<p>`/`<ul>` cell form, `pipeCellHtml`).
 */
function isPipeCellFlow(blocks: readonly DocumentBlock[]): boolean {
  return blocks.every(
    (block) =>
      block.type === "paragraph" ||
      ((block.type === "list-ordered" || block.type === "list-unordered") &&
        block.nodes.every((item) => item.nodes.length > 0 && isPipeCellFlow(item.nodes))),
  );
}

/**
 * A code block with highlighted lines, as GitBook writes it: `<pre>` with the block's settings
 * as attributes, each highlighted line (its newline included) in `<strong>`.
 */
function preCodeHtml(block: DocumentBlockCode): string {
  const d = block.data;
  const attrs = [
    d.syntax ? ` class="language-${escapeAttribute(d.syntax)}"` : "",
    d.title ? ` data-title="${escapeAttribute(d.title)}"` : "",
    d.overflow ? ` data-overflow="${d.overflow}"` : "",
    d.lineNumbers ? " data-line-numbers" : "",
    d.fullWidth ? ` data-full-width="true"` : "",
    d.expandable ? ` data-expandable="true"` : "",
  ].join("");
  const lines = block.nodes.map((line, i) => {
    const text = escapeHtmlText(line.nodes.map((n) => inlineFallbackText(n as InlineContent)).join(""));
    const end = i < block.nodes.length - 1 ? "\n" : "";
    return line.data?.highlighted ? `<strong>${text}${end}</strong>` : `${text}${end}`;
  });
  const codeClass = d.syntax ? ` class="lang-${escapeAttribute(d.syntax)}"` : "";
  return `<pre${attrs}><code${codeClass}>${lines.join("")}\n</code></pre>`;
}

/** A whole page file: front matter, `# title`, body. */
export function serializeMarkdownPage(page: MarkdownPage, options: SerializeMarkdownOptions = {}): string {
  const front = serializeFrontmatter(page.frontmatter ?? {});
  const writer = new Writer(options);
  const children: RootContent[] = [];
  if (page.title !== undefined && page.title !== "")
    children.push({ type: "heading", depth: 1, children: [{ type: "text", value: page.title.replace(/\s*\n\s*/g, " ") }] });
  for (const child of writer.body(page.document)) children.push(child);
  const body = children.length ? stringify(children) : "";
  if (!front) return body;
  return body ? `${front}\n${body}` : front;
}

/** The page body alone (no front matter, no title): the API's `format=markdown`. */
export function markdownFromDocument(document: JSONDocument, options: SerializeMarkdownOptions = {}): string {
  const children = new Writer(options).body(document);
  return children.length ? stringify(children, options.compactTables) : "";
}

function stringify(children: RootContent[], compactTables = false): string {
  const root: Root = { type: "root", children };
  return (compactTables ? compactProcessor : processor).stringify(root);
}

const html = (value: string): Html => ({ type: "html", value });

function isTagLine(node: { type: string; value?: string }): node is { type: "html"; value: string } {
  return node.type === "html" && typeof node.value === "string" && /^\{%[^\n]*%\}$/.test(node.value);
}

function passThroughName(node: { type: string; value?: string }): string | undefined {
  if (!isTagLine(node)) return undefined;
  const name = parseTag(node.value)?.name;
  return name !== undefined && PASS_THROUGH_TAGS.has(name) ? name : undefined;
}

/** `{% if … %}`, `{% column %}` …: the content that follows goes on the next line. */
function isOpeningTagLine(node: { type: string; value?: string }): boolean {
  const name = passThroughName(node);
  return name !== undefined && !/^(end|else$|elsif$)/.test(name);
}

/** `{% endif %}`, `{% else %}` …: they follow their content on the next line. */
function isClosingTagLine(node: { type: string; value?: string }): boolean {
  const name = passThroughName(node);
  return name !== undefined && /^(end|else$|elsif$)/.test(name);
}

function mdLinkDestination(url: string): string {
  if (url === "") return "<>";
  if (/[\s()<>]/.test(url) || /[\x00-\x1f]/.test(url)) return `<${url.replace(/[<>\\]/g, (c) => `\\${c}`)}>`;
  return url;
}

function mdLinkText(text: string): string {
  return text.replace(/[\\[\]*_`<>]/g, (c) => `\\${c}`);
}

/** True when a paragraph is a tag line the parser kept verbatim (see parse.ts header). */
function verbatimTagLine(block: DocumentBlockParagraph): string | undefined {
  if (block.data?.align) return undefined;
  const inlines = block.nodes;
  if (inlines.length !== 1 || inlines[0]!.object !== "text") return undefined;
  const leaves = inlines[0]!.leaves;
  if (leaves.length !== 1 || leaves[0]!.marks.length) return undefined;
  const text = leaves[0]!.text;
  if (text !== text.trim() || text.includes("\n")) return undefined;
  const tag = parseTag(text);
  if (!tag || tag.raw !== text) return undefined;
  const base = tag.name.startsWith("end") ? tag.name.slice(3) : tag.name;
  if (PASS_THROUGH_TAGS.has(tag.name) && !(base === "swagger" && tag.attrs.src !== undefined) && tag.name !== "endswagger") return text;
  if (tag.name === "endswagger") return undefined;
  if (CONTAINER_TAGS.has(base) || OPTIONAL_END_TAGS.has(base)) return undefined;
  return text;
}

class Writer {
  private readonly footnotes: RootContent[] = [];

  constructor(private readonly options: SerializeMarkdownOptions) {}

  private path(ref: ContentRef): string {
    return pathForRef(ref, this.options.pathFor);
  }

  private warn(message: string): void {
    this.options.onWarning?.(message);
  }

  body(document: JSONDocument): RootContent[] {
    const out = this.flow(document.nodes);
    for (const footnote of this.footnotes) out.push(footnote);
    return out;
  }

  flow(blocks: readonly DocumentBlock[]): RootContent[] {
    // Blocks the import moved out of a container go back inside it, where the file had them.
    return regroupParts(blocks).flatMap((b) => this.block(b));
  }

  /** A void block's tag, with its caption (the parts `regroupParts` gave it) inside when it has one. */
  private captioned(block: DocumentBlock, tag: string, name: string): RootContent[] {
    const parts = partsOf(block) as DocumentBlock[];
    if (!parts.length) return [html(tag)];
    return [this.tagBlock(tag, `{% end${name} %}`, parts) as unknown as RootContent];
  }

  private tagBlock(open: string, close: string, children: readonly DocumentBlock[]): TagBlock {
    return { type: "gitbookTagBlock", open, close, children: this.flow(children) };
  }

  private block(block: DocumentBlock): RootContent[] {
    switch (block.type) {
      case "paragraph": {
        const verbatim = verbatimTagLine(block);
        if (verbatim !== undefined) return [html(verbatim)];
        if (block.data?.align && block.data.align !== "start") {
          const align = block.data.align === "end" ? "right" : "center";
          return [html(`<p align="${align}">${inlinesToHtml(block.nodes, { path: (r) => this.path(r) })}</p>`)];
        }
        const children = edgeBreaksAsHtml(this.phrasing(block.nodes));
        if (!children.length) return [];
        return [{ type: "paragraph", children }];
      }
      case "heading-1":
      case "heading-2":
      case "heading-3": {
        const depth = block.type === "heading-1" ? 2 : block.type === "heading-2" ? 3 : 4;
        if (block.data.align && block.data.align !== "start") {
          const align = block.data.align === "end" ? "right" : "center";
          const id = block.data.id ? ` id="${escapeAttribute(block.data.id)}"` : "";
          return [html(`<h${depth} align="${align}"${id}>${inlinesToHtml(block.nodes, { path: (r) => this.path(r) })}</h${depth}>`)];
        }
        const children = this.phrasing(block.nodes).map((n) =>
          n.type === "break" ? ({ type: "text", value: " " } as PhrasingContent) : n,
        );
        if (block.data.id)
          children.push(
            { type: "text", value: " " },
            html(`<a href="#${escapeAttribute(block.data.id)}" id="${escapeAttribute(block.data.id)}"></a>`),
          );
        return [{ type: "heading", depth, children }];
      }
      case "divider":
        return [{ type: "thematicBreak" }];
      case "blockquote":
        return [{ type: "blockquote", children: this.flow(block.nodes) as never }];
      case "list-ordered":
      case "list-unordered":
      case "list-tasks": {
        const items: ListItem[] = block.nodes.map((item) => {
          const children = this.flow(item.nodes);
          const li: ListItem = { type: "listItem", spread: false, children: children as never };
          if (block.type === "list-tasks" && typeof item.data?.checked === "boolean") li.checked = item.data.checked;
          return li;
        });
        const spread = block.nodes.some((item) => item.nodes.length > 1);
        for (const li of items) li.spread = spread;
        const list: List = { type: "list", ordered: block.type === "list-ordered", spread, children: items };
        if (block.type === "list-ordered") list.start = block.data.start ?? 1;
        return [list];
      }
      case "list-item":
        return this.flow(block.nodes);
      case "code": {
        if (block.nodes.some((line) => line.data?.highlighted)) return [html(preCodeHtml(block))];
        const value = block.nodes.map((line) => line.nodes.map((n) => inlineFallbackText(n as InlineContent)).join("")).join("\n");
        const code: RootContent = { type: "code", lang: block.data.syntax ?? null, meta: null, value };
        const d = block.data;
        const attrs: Array<[string, string | undefined]> = [
          ["title", d.title],
          ["overflow", d.overflow],
          ["lineNumbers", d.lineNumbers === undefined ? undefined : String(d.lineNumbers)],
          ["fullWidth", d.fullWidth === undefined ? undefined : String(d.fullWidth)],
          ["expandable", d.expandable === undefined ? undefined : String(d.expandable)],
        ];
        if (d.collapsedLineCount !== undefined) this.warn("a code block's collapsedLineCount has no Markdown form; it was not written");
        if (attrs.every(([, v]) => v === undefined)) return [code];
        return [
          { type: "gitbookTagBlock", open: formatTag("code", attrs), close: "{% endcode %}", children: [code] } as unknown as RootContent,
        ];
      }
      case "code-line":
        return [
          {
            type: "paragraph",
            children: [{ type: "text", value: block.nodes.map((n) => inlineFallbackText(n as InlineContent)).join("") }],
          },
        ];
      case "hint":
        return [
          this.tagBlock(
            formatTag("hint", [
              ["style", block.data.style],
              ["icon", block.data.icon],
            ]),
            "{% endhint %}",
            block.nodes,
          ) as unknown as RootContent,
        ];
      case "math":
        return [{ type: "math", value: block.data.formula } as RootContent];
      case "images":
        return [this.images(block)];
      case "image":
        return [this.images({ object: "block", type: "images", isVoid: false, data: {}, nodes: [block] })];
      case "file":
        return this.captioned(block, formatTag("file", [["src", this.path(block.data.ref)]]), "file");
      case "drawing":
        if (!block.data.ref) return [];
        this.warn("a drawing was written as an image (drawings have no Markdown form)");
        return [{ type: "paragraph", children: [{ type: "image", url: this.path(block.data.ref), alt: "" }] }];
      case "embed":
        return this.captioned(
          block,
          formatTag("embed", [
            ["url", block.data.url],
            ["fullWidth", block.data.fullWidth ? "true" : undefined],
          ]),
          "embed",
        );
      case "reusable-content":
        return [html(formatTag("include", [], [`"${this.path(block.data.ref)}"`]))];
      case "content-ref": {
        const path = this.path(block.data.ref);
        const label = path.split("/").filter(Boolean).pop() ?? path;
        return [
          html(`${formatTag("content-ref", [["url", path]])}\n[${mdLinkText(label)}](${mdLinkDestination(path)})\n{% endcontent-ref %}`),
        ];
      }
      case "swagger": {
        const src = this.path(block.data.ref);
        const attrs: Array<[string, string | undefined]> = [
          ["src", src],
          ["path", block.data.path],
          ["method", block.data.method],
          ["expanded", block.data.expanded ? "true" : undefined],
          ["fullWidth", block.data.fullWidth ? "true" : undefined],
        ];
        return [html(`${formatTag("openapi", attrs)}\n[${mdLinkText(src)}](${mdLinkDestination(src)})\n{% endopenapi %}`)];
      }
      case "openapi-operation":
        return [
          html(
            `${formatTag("openapi-operation", [
              ["spec", block.data.ref.spec],
              ["path", block.data.path],
              ["method", block.data.method],
            ])}\n{% endopenapi-operation %}`,
          ),
        ];
      case "openapi-schemas":
        return [
          html(
            `${formatTag("openapi-schemas", [
              ["spec", block.data.ref.spec],
              ["schemas", block.data.schemas.join(",")],
              ["grouped", block.data.grouped === undefined ? undefined : String(block.data.grouped)],
            ])}\n{% endopenapi-schemas %}`,
          ),
        ];
      case "openapi-webhook":
        return [
          html(
            `${formatTag("openapi-webhook", [
              ["spec", block.data.ref.spec],
              ["name", block.data.name],
              ["method", block.data.method],
            ])}\n{% endopenapi-webhook %}`,
          ),
        ];
      case "integration": {
        const attrs = Object.entries(block.data.props).map(([k, v]): [string, string] => [
          k,
          typeof v === "string" ? v : JSON.stringify(v),
        ]);
        if (block.data.url !== undefined) attrs.unshift(["url", block.data.url]);
        return [html(formatTag(`@${block.data.integration}/${block.data.block}`, attrs))];
      }
      case "tabs":
        return [this.tagBlock("{% tabs %}", "{% endtabs %}", block.nodes) as unknown as RootContent];
      case "tabs-item":
        return [
          this.tagBlock(
            formatTag("tab", [
              ["title", block.data.title ?? ""],
              ["icon", (block.data as { icon?: string }).icon],
            ]),
            "{% endtab %}",
            block.nodes,
          ) as unknown as RootContent,
        ];
      case "stepper":
        return [this.tagBlock("{% stepper %}", "{% endstepper %}", block.nodes) as unknown as RootContent];
      case "stepper-step":
        return [this.tagBlock(formatTag("step", [["icon", block.data.icon]]), "{% endstep %}", block.nodes) as unknown as RootContent];
      case "expandable": {
        const title = block.fragments.find((f) => f.fragment === "expandable-title");
        const body = block.fragments.find((f) => f.fragment === "expandable-body");
        const summary = title ? inlinesToHtml(title.nodes[0]?.nodes ?? [], { path: (r) => this.path(r) }) : "";
        return [html("<details>"), html(`<summary>${summary}</summary>`), ...this.flow(body?.nodes ?? []), html("</details>")];
      }
      case "table":
        return [this.table(block)];
      case "if":
        return [html(`{% if ${block.data.expression} %}`), ...this.flow(block.nodes), html("{% endif %}")];
      case "columns":
        return [html("{% columns %}"), ...this.flow(block.nodes), html("{% endcolumns %}")];
      case "column":
        return [html("{% column %}"), ...this.flow(block.nodes), html("{% endcolumn %}")];
    }
  }

  // -- images --

  private images(block: DocumentBlockImages): RootContent {
    const single = block.nodes.length === 1 ? block.nodes[0]! : undefined;
    const plainCaption = (image: NonNullable<typeof single>): string | undefined | false => {
      const caption = image.fragments.find((f) => f.fragment === "caption");
      if (!caption || caption.nodes.length === 0) return undefined;
      if (caption.nodes.length !== 1) return false;
      const nodes = caption.nodes[0]!.nodes;
      if (!nodes.every((n) => n.object === "text" && n.leaves.every((l) => l.marks.length === 0))) return false;
      const text = inlineText(nodes);
      if (text === "") return undefined;
      return text.includes("\n") || text.trim() !== text ? false : text;
    };
    if (
      single &&
      Object.keys(block.data).length === 0 &&
      !single.data.refDark &&
      single.data.width === undefined &&
      single.data.height === undefined
    ) {
      const caption = plainCaption(single);
      if (caption !== false) {
        return {
          type: "paragraph",
          children: [{ type: "image", url: this.path(single.data.ref), alt: single.data.alt ?? "", title: caption ?? null }],
        };
      }
    }
    const figures = block.nodes.map((image) => {
      const d = image.data;
      const size = [
        d.width !== undefined ? ` width="${lengthAttr(d.width)}"` : "",
        d.height !== undefined ? ` height="${lengthAttr(d.height)}"` : "",
      ].join("");
      let img = `<img src="${escapeAttribute(this.path(d.ref))}" alt="${escapeAttribute(d.alt ?? "")}"${size}>`;
      if (d.refDark)
        img = `<picture><source srcset="${escapeAttribute(this.path(d.refDark))}" media="(prefers-color-scheme: dark)">${img}</picture>`;
      const caption = image.fragments.find((f) => f.fragment === "caption");
      const captionHtml = (caption?.nodes ?? [])
        .filter((p) => inlineText(p.nodes) !== "" || p.nodes.some((n) => n.object !== "text"))
        .map((p) => `<p>${inlinesToHtml(p.nodes, { path: (r) => this.path(r) })}</p>`)
        .join("");
      return `<figure>${img}<figcaption>${captionHtml}</figcaption></figure>`;
    });
    const attrs = [
      block.data.align ? ` align="${block.data.align}"` : "",
      block.data.fullWidth ? ` data-full-width="true"` : "",
      block.data.withFrame ? ` data-with-frame="true"` : "",
    ].join("");
    const inner = figures.join("");
    return html(attrs || block.nodes.length > 1 ? `<div${attrs}>${inner}</div>` : inner);
  }

  // -- tables --

  private table(block: DocumentBlockTable): RootContent {
    const { view, definition, records } = block.data;
    const fragments = new Map(block.fragments.map((f) => [f.fragment ?? "", f]));
    const rows = Object.values(records).sort((a, b) => (a.orderIndex < b.orderIndex ? -1 : a.orderIndex > b.orderIndex ? 1 : 0));
    const defs = Object.values(definition);
    const simple =
      view.type === "grid" &&
      !view.columnWidths &&
      !block.data.fullWidth &&
      defs.length === view.columns.length &&
      defs.every((d, i) => d.type === "text" && view.columns[i] === d.id) &&
      (!view.hideHeader || defs.every((d) => d.title === "")) &&
      rows.every((r) => Object.values(r.values).every((v) => typeof v === "string" && isPipeCellFlow(fragments.get(v)?.nodes ?? [])));
    if (simple && defs.length > 0) {
      const headerRow: TableRow = {
        type: "tableRow",
        children: defs.map((d): TableCell => ({ type: "tableCell", children: d.title ? [{ type: "text", value: d.title }] : [] })),
      };
      const bodyRows: TableRow[] = rows.map((r) => ({
        type: "tableRow",
        children: defs.map((d): TableCell => {
          const value = r.values[d.id];
          const fragment = typeof value === "string" ? fragments.get(value) : undefined;
          const nodes = fragment?.nodes ?? [];
          if (nodes.length === 1 && nodes[0]!.type === "paragraph")
            return { type: "tableCell", children: this.phrasing(nodes[0]!.nodes, true) };
          return { type: "tableCell", children: nodes.length ? [{ type: "html", value: this.pipeCellHtml(nodes) }] : [] };
        }),
      }));
      return {
        type: "table",
        align: defs.map((d) => (d.type === "text" && d.textAlignment !== "left" ? d.textAlignment : null)),
        children: [headerRow, ...bodyRows],
      };
    }
    return html(this.htmlTable(block, rows, fragments));
  }

  /**
   * A table cell of several blocks, as GitBook writes it inside a pipe-table cell:
   * `<p>One</p><ul><li>Two</li></ul>` (read back by the parser's `cellFlow`). Outside tags, the
   * characters Markdown would read in the text are written as character references; inside tags,
   * the pipe (it would end the cell).
   */
  private pipeCellHtml(blocks: readonly DocumentBlock[]): string {
    return this.cellBlocksHtml(blocks).replace(/(<[^>]*>)|[\\*_`[\]~$|]/g, (match, tag: string | undefined) =>
      tag !== undefined ? tag.replaceAll("|", "&#x7C;") : `&#x${match.charCodeAt(0).toString(16).toUpperCase()};`,
    );
  }

  /**
   * A table cell's blocks as HTML: paragraphs as `<p>`, lists as `<ul>`/`<ol>` (an item of one
   * paragraph without `<p>`), tables as `<table>`; any other block as a paragraph of its text.
   */
  private cellBlocksHtml(blocks: readonly DocumentBlock[]): string {
    const writer = { path: (r: ContentRef) => this.path(r) };
    return blocks
      .map((block) => {
        if (block.type === "paragraph") return `<p>${inlinesToHtml(block.nodes, writer)}</p>`;
        if (block.type === "code") return preCodeHtml(block);
        if (block.type === "table") {
          const fragments = new Map(block.fragments.map((f) => [f.fragment ?? "", f]));
          const rows = Object.values(block.data.records).sort((a, b) =>
            a.orderIndex < b.orderIndex ? -1 : a.orderIndex > b.orderIndex ? 1 : 0,
          );
          return this.htmlTable(block, rows, fragments);
        }
        if (block.type === "list-ordered" || block.type === "list-unordered") {
          const tag = block.type === "list-ordered" ? "ol" : "ul";
          const start =
            block.type === "list-ordered" && block.data.start !== undefined && block.data.start !== 1 ? ` start="${block.data.start}"` : "";
          const items = block.nodes.map((item) => {
            const [only] = item.nodes;
            return `<li>${item.nodes.length === 1 && only?.type === "paragraph" ? inlinesToHtml(only.nodes, writer) : this.cellBlocksHtml(item.nodes)}</li>`;
          });
          return `<${tag}${start}>${items.join("")}</${tag}>`;
        }
        this.warn(`a ${block.type} block in a table cell was written as a paragraph of its text`);
        return `<p>${escapeHtmlText(blockText(block))}</p>`;
      })
      .join("");
  }

  private htmlTable(
    block: DocumentBlockTable,
    rows: DocumentBlockTable["data"]["records"][string][],
    fragments: Map<string, DocumentBlockTable["fragments"][number]>,
  ): string {
    const { view, definition } = block.data;
    const defs = Object.values(definition);
    const visible = new Set(view.columns);
    const tableAttrs: string[] = [];
    if (view.type === "cards") {
      tableAttrs.push(` data-view="cards"`);
      if (view.cardSize === "large") tableAttrs.push(` data-card-size="large"`);
      if (view.hideColumnTitle) tableAttrs.push(" data-column-title-hidden");
    } else if (view.hideHeader) tableAttrs.push(" data-header-hidden");
    if (block.data.fullWidth) tableAttrs.push(` data-full-width="true"`);
    // Visible columns first, in the view's order, then the hidden ones.
    const ordered = [...view.columns.map((id) => definition[id]).filter((d) => d !== undefined), ...defs.filter((d) => !visible.has(d.id))];
    const heads = ordered.map((d) => {
      const a: string[] = [];
      if (!visible.has(d.id)) a.push(" data-hidden");
      if (view.type === "cards" && view.targetDefinition === d.id) a.push(" data-card-target");
      if (view.type === "cards" && view.coverDefinition === d.id) a.push(" data-card-cover");
      if (view.type === "cards" && view.coverDefinitionDark === d.id) a.push(" data-card-cover-dark");
      const width = view.type === "grid" ? view.columnWidths?.[d.id] : undefined;
      if (typeof width === "number" && Number.isFinite(width) && width > 0) a.push(` width="${Math.round(width)}"`);
      if (d.type !== "text") a.push(` data-type="${d.type}"`);
      else if (view.type === "cards" && view.targetDefinition === d.id) a.push(` data-type="content-ref"`);
      else if (d.textAlignment !== "left") a.push(` align="${d.textAlignment}"`);
      return `<th${a.join("")}>${escapeHtmlText(d.title)}</th>`;
    });
    const body = rows.map((r) => {
      const cells = ordered.map((d) => `<td>${this.cellHtml(d.type, r.values[d.id], fragments)}</td>`);
      return `<tr>${cells.join("")}</tr>`;
    });
    return `<table${tableAttrs.join("")}><thead><tr>${heads.join("")}</tr></thead><tbody>${body.join("")}</tbody></table>`;
  }

  private cellHtml(
    type: string,
    value: TableRecordValue | undefined,
    fragments: Map<string, DocumentBlockTable["fragments"][number]>,
  ): string {
    if (value === undefined || value === null) return "";
    const writer = { path: (r: ContentRef) => this.path(r) };
    if (type === "text") {
      const fragment = typeof value === "string" ? fragments.get(value) : undefined;
      if (!fragment) return typeof value === "string" ? "" : escapeHtmlText(String(value));
      const [only] = fragment.nodes;
      if (fragment.nodes.length === 1 && only?.type === "paragraph") return inlinesToHtml(only.nodes, writer);
      return this.cellBlocksHtml(fragment.nodes);
    }
    if (Array.isArray(value)) {
      return value
        .map((file) => {
          const path = this.path({ kind: "file", file });
          return `<a href="${escapeAttribute(path)}">${escapeHtmlText(path.split("/").pop() ?? path)}</a>`;
        })
        .join("");
    }
    if (typeof value === "object") {
      const ref = ("ref" in value ? value.ref : value) as ContentRef;
      const path = this.path(ref);
      return `<a href="${escapeAttribute(path)}">${escapeHtmlText(path)}</a>`;
    }
    return escapeHtmlText(String(value));
  }

  // -- inline content --

  phrasing(nodes: readonly InlineContent[], inTableCell = false): PhrasingContent[] {
    const out: PhrasingContent[] = [];
    for (const node of nodes) {
      if (node.object === "text") {
        appendAll(out, this.leaves(node.leaves, inTableCell));
        continue;
      }
      switch (node.type) {
        case "link":
          out.push({
            type: "link",
            url: this.path(node.data.ref),
            title: null,
            children: node.nodes.flatMap((n) => this.phrasing([n], inTableCell)),
          });
          break;
        case "mention": {
          const path = this.path(node.data.ref);
          out.push({ type: "link", url: path, title: "mention", children: [{ type: "text", value: path }] });
          break;
        }
        case "inline-image": {
          const d = node.data;
          if (d.size || d.refDark) {
            const img = `<img src="${escapeAttribute(this.path(d.ref))}" alt="${escapeAttribute(d.alt ?? "")}"${d.size ? ` data-size="${d.size}"` : ""}>`;
            out.push(
              html(
                d.refDark
                  ? `<picture><source srcset="${escapeAttribute(this.path(d.refDark))}" media="(prefers-color-scheme: dark)">${img}</picture>`
                  : img,
              ),
            );
          } else out.push({ type: "image", url: this.path(d.ref), alt: d.alt ?? "", title: d.caption ?? null });
          break;
        }
        case "emoji": {
          const shortcode = shortcodeForEmojiCode(node.data.code);
          out.push({ type: "text", value: shortcode ? `:${shortcode}:` : (emojiCharacters(node.data.code) ?? node.data.code) });
          break;
        }
        case "icon":
          out.push(html(`<i class="fa-${escapeAttribute(node.data.icon)}">:${escapeHtmlText(node.data.icon)}:</i>`));
          break;
        case "expression":
          out.push(html(`<code class="expression">${escapeHtmlText(node.data.expression)}</code>`));
          break;
        case "inline-math":
          out.push({ type: "inlineMath", value: node.data.formula } as PhrasingContent);
          break;
        case "button": {
          const d = node.data;
          out.push(
            html(
              `<a href="${escapeAttribute(this.path(d.ref))}" class="button ${d.kind}"${d.icon ? ` data-icon="${escapeAttribute(d.icon)}"` : ""}>${escapeHtmlText(d.label)}</a>`,
            ),
          );
          break;
        }
        case "annotation": {
          appendAll(out, this.phrasing(node.nodes, inTableCell));
          const identifier = String(this.footnotes.length + 1);
          out.push({ type: "footnoteReference", identifier, label: identifier });
          const body = node.fragments[0]?.nodes ?? [];
          this.footnotes.push({ type: "footnoteDefinition", identifier, label: identifier, children: this.flow(body) as never });
          break;
        }
      }
    }
    return out;
  }

  /** Leaves → nested mdast marks: each mark wraps the longest run of leaves that share it. */
  private leaves(leaves: readonly DocumentTextLeaf[], inTableCell: boolean): PhrasingContent[] {
    return this.group(leaves, 0, leaves.length, [], inTableCell);
  }

  private group(
    leaves: readonly DocumentTextLeaf[],
    from: number,
    to: number,
    active: DocumentMark[],
    inTableCell: boolean,
  ): PhrasingContent[] {
    const out: PhrasingContent[] = [];
    const has = (list: readonly DocumentMark[], m: DocumentMark) => list.some((x) => sameMark(x, m));
    let i = from;
    while (i < to) {
      const l = leaves[i]!;
      const pending = l.marks.filter((m) => m.type !== "code" && !has(active, m));
      if (!pending.length) {
        appendAll(out, this.leafContent(l, inTableCell));
        i++;
        continue;
      }
      let best = pending[0]!;
      let bestEnd = i + 1;
      for (const m of pending) {
        let j = i + 1;
        while (j < to && has(leaves[j]!.marks, m)) j++;
        if (j > bestEnd) {
          best = m;
          bestEnd = j;
        }
      }
      appendAll(out, wrapMark(best, this.group(leaves, i, bestEnd, [...active, best], inTableCell)));
      i = bestEnd;
    }
    return out;
  }

  private leafContent(l: DocumentTextLeaf, inTableCell: boolean): PhrasingContent[] {
    if (l.text === "") return [];
    if (l.marks.some((m) => m.type === "code")) return [{ type: "inlineCode", value: l.text }];
    const parts = l.text.split("\n");
    const out: PhrasingContent[] = [];
    parts.forEach((part, i) => {
      if (i > 0) out.push(inTableCell ? html("<br>") : { type: "break" });
      if (part) out.push({ type: "text", value: part });
    });
    return out;
  }
}

/**
 * A hard break (`\` + newline) means nothing at the start or end of a paragraph, so a line break
 * there is written as `<br>`, which the parser reads back as the same "\n".
 */
function edgeBreaksAsHtml(children: PhrasingContent[]): PhrasingContent[] {
  const edges = [0, children.length - 1];
  return children.map((child, i) => (child.type === "break" && edges.includes(i) ? html("<br>") : child));
}

function sameMark(a: DocumentMark, b: DocumentMark): boolean {
  if (a.type !== b.type) return false;
  if (a.type === "color" && b.type === "color") return a.data.text === b.data.text && a.data.background === b.data.background;
  return true;
}

function wrapMark(mark: DocumentMark, children: PhrasingContent[]): PhrasingContent[] {
  switch (mark.type) {
    case "bold":
      return [{ type: "strong", children }];
    case "italic":
      return [{ type: "emphasis", children }];
    case "strikethrough":
      return [{ type: "delete", children }];
    case "superscript":
      return [html("<sup>"), ...children, html("</sup>")];
    case "subscript":
      return [html("<sub>"), ...children, html("</sub>")];
    case "keyboard":
      return [html("<kbd>"), ...children, html("</kbd>")];
    case "color":
      return [html(`<mark style="${styleForColorMark(mark)}">`), ...children, html("</mark>")];
    case "code":
      return children;
  }
}

function lengthAttr(length: number | { unit: string; value: number }): string {
  return typeof length === "number" ? String(length) : `${length.value}${length.unit}`;
}

function blockText(block: DocumentBlock): string {
  const parts: string[] = [];
  const visit = (node: { leaves?: Array<{ text: string }>; nodes?: unknown[] }) => {
    if (node.leaves) parts.push(node.leaves.map((l) => l.text).join(""));
    for (const child of node.nodes ?? []) visit(child as typeof node);
  };
  visit(block as never);
  return parts.join(" ");
}
