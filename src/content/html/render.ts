/**
 * A stored page document (GitBook's JSON document) to HTML: pure and synchronous, everything it
 * needs from outside comes through RenderEnv. Every piece of content goes through the escaping
 * `html` template; the only markup inserted as is comes from highlight.js and KaTeX, which escape
 * the text they are given.
 */

import { gitbookAnchor } from "../document/anchor.js";
import { isTextColor } from "../document/nodes.js";
import { partsOf, regroupParts } from "../document/parts.js";
import type { ContentRef, JSONDocument } from "../document/types.js";
import { highlightLines, languageOf, syntaxLabel } from "./code.js";
import { renderMath } from "./math.js";
import {
  children,
  dataFlag,
  dataNumber,
  dataRef,
  dataString,
  emojiText,
  type Fragment,
  fragmentNamed,
  isNode,
  leaves,
  type Node,
  textOf,
  typeOf,
} from "./nodes.js";
import { html, raw, type SafeHtml } from "./safe-html.js";
import { renderTable } from "./table.js";
import type { ContentFeature, OutlineEntry, RenderEnv, RenderedDocument } from "./types.js";
import { knownEmbed, safeLinkUrl, safeMediaUrl } from "./urls.js";

/** Beyond this nesting depth a subtree renders as its plain text: recursion stays bounded. */
const MAX_DEPTH = 40;
/** Reusable content inside reusable content, at most this deep (and never itself). */
const MAX_REUSABLE_DEPTH = 4;

export interface Ctx {
  depth: number;
  /** Headings here go into the page outline (not those hidden in tabs, expandables or notes). */
  outline: boolean;
  /** Reusable contents being rendered, outermost first: guards against cycles. */
  reusable: readonly string[];
  /** Inside a link: inline links and buttons render as text (an <a> may not hold an <a>). */
  inLink?: boolean;
}

const EMPTY = raw("");
/** An image within this many blocks of the top is fetched at once (HtmlRenderer.image). */
const LEAD_IMAGE_BLOCKS = 4;
const TAG_LINE = /^\{%.*%\}$/s;
const join = (parts: readonly SafeHtml[]) => raw(parts.map((part) => part.value).join(""));

const HINTS: Record<string, string> = { info: "ℹ", success: "✓", warning: "⚠", danger: "✖" };

export class HtmlRenderer {
  readonly features = new Set<ContentFeature>();
  readonly outline: OutlineEntry[] = [];
  private readonly ids = new Set<string>();
  private readonly notes: Array<{ id: string; body: Fragment[] }> = [];
  private counter = 0;
  private readonly prefix: string;
  /** Blocks rendered so far, and whether an image near the top was fetched at once (see `image`). */
  private blocksSeen = 0;
  private leadImage = false;

  constructor(readonly env: RenderEnv) {
    this.prefix = env.idPrefix ?? "q";
  }

  render(document: JSONDocument): RenderedDocument {
    const ctx: Ctx = { depth: 0, outline: true, reusable: [] };
    const nodes = Array.isArray(document?.nodes) ? (document.nodes as unknown[]) : [];
    const body = this.env.sections ? this.sections(nodes, ctx) : this.blocks(nodes, ctx);
    return { html: body.value + this.renderNotes(ctx).value, outline: this.outline, features: this.features };
  }

  /** The top-level blocks in sections, a new one at each heading of level 1 or 2 (RenderEnv.sections). */
  private sections(nodes: readonly unknown[], ctx: Ctx): SafeHtml {
    const sections: string[][] = [[]];
    for (const node of regroupParts(nodes)) {
      if (!isNode(node)) continue;
      const type = typeOf(node);
      if ((type === "heading-1" || type === "heading-2") && sections.at(-1)!.length > 0) sections.push([]);
      const block = this.block(node, ctx).value;
      if (block) sections.at(-1)!.push(block);
    }
    // The height a section is given until it is first laid out: about 3rem a block, and a code line
    // (the only newlines in the markup) 1.35rem. Only the scrollbar's length depends on it.
    const estimate = (blocks: string[]) =>
      Math.round(blocks.length * 3 + blocks.reduce((n, block) => n + (block.match(/\n/g)?.length ?? 0), 0) * 1.35);
    return raw(
      sections
        .filter((blocks) => blocks.length > 0)
        .map((blocks) => `<section class="q-section" style="--q-h:${estimate(blocks)}rem">${blocks.join("")}</section>`)
        .join(""),
    );
  }

  /** A fresh id for markup the renderer makes up (tab groups, notes). */
  uid(kind: string): string {
    this.counter += 1;
    return `${this.prefix}-${kind}-${this.counter}`;
  }

  blocks(nodes: readonly unknown[], ctx: Ctx): SafeHtml {
    const parts: SafeHtml[] = [];
    // Blocks a Markdown import moved out of their container are shown inside it, as the page has them.
    for (const node of regroupParts(nodes)) if (isNode(node)) parts.push(this.block(node, ctx));
    return join(parts);
  }

  block(node: Node, ctx: Ctx): SafeHtml {
    this.blocksSeen += 1;
    if (node.object === "text") return html`<p>${this.inlines([node], ctx)}</p>`;
    if (ctx.depth >= MAX_DEPTH) {
      const text = textOf(node).trim();
      return text ? html`<p class="q-too-deep">${text}</p>` : EMPTY;
    }
    const inner: Ctx = { ...ctx, depth: ctx.depth + 1 };
    const type = typeOf(node);
    switch (type) {
      case "paragraph": {
        const nodes = children(node);
        // Liquid tag lines the Markdown import keeps as text ({% swagger-description %}…) are markup, not content (as in search).
        if (nodes.length === 1 && nodes[0]!.object === "text" && TAG_LINE.test(textOf(nodes[0]).trim())) return EMPTY;
        return html`<p${alignClass(node)}>${this.inlines(nodes, inner)}</p>`;
      }
      case "heading-1":
      case "heading-2":
      case "heading-3":
        return this.heading(node, inner);
      case "list-unordered":
      case "list-ordered":
      case "list-tasks":
        return this.list(node, inner);
      case "list-item":
        return html`<div class="q-list-item">${this.blocks(children(node), inner)}</div>`;
      case "blockquote":
        return html`<blockquote class="q-quote">${this.blocks(children(node), inner)}</blockquote>`;
      case "hint":
        return this.hint(node, inner);
      case "code":
        return this.code(node, children(node));
      case "code-line":
        return this.code({ object: "block", type: "code", data: {} }, [node]);
      case "math":
        this.features.add("math");
        return html`<div class="q-math">${raw(renderMath(dataString(node, "formula") ?? "", true))}</div>`;
      case "divider":
        return raw(`<hr class="q-divider">`);
      case "images":
        return this.images(node, inner);
      case "image":
        return this.image(node, inner);
      case "drawing":
        return this.drawing(node);
      case "file":
        return this.captioned(this.file(node), node, inner);
      case "embed":
        return this.captioned(this.embed(node), node, inner);
      case "table":
        return renderTable(this, node, inner);
      case "tabs":
        return this.tabs(node, inner);
      case "tabs-item":
      case "stepper-step":
      case "column":
        return html`<div>${this.blocks(children(node), inner)}</div>`;
      case "expandable":
        return this.expandable(node, inner);
      case "stepper":
        return this.stepper(node, inner);
      case "columns":
        return this.columns(node, inner);
      case "if": {
        const expression = dataString(node, "expression");
        return expression !== undefined && this.env.condition(expression) ? this.blocks(children(node), inner) : EMPTY;
      }
      case "content-ref":
        return this.contentRef(node);
      case "reusable-content":
        return this.reusableContent(node, inner);
      case "swagger":
      case "openapi-operation":
      case "openapi-schemas":
      case "openapi-webhook":
        return this.openApi(node);
      case "integration":
        return this.integration(node);
      default: {
        // Unknown or future block types: their text is still worth showing.
        const text = textOf(node).trim();
        return text ? html`<p class="q-unknown">${text}</p>` : EMPTY;
      }
    }
  }

  // ---------------------------------------------------------------- inline content

  inlines(nodes: readonly Node[], ctx: Ctx): SafeHtml {
    const parts: SafeHtml[] = [];
    for (const node of nodes) parts.push(this.inline(node, ctx));
    return join(parts);
  }

  private inline(node: Node, ctx: Ctx): SafeHtml {
    if (node.object === "text") return this.text(node);
    if (ctx.depth >= MAX_DEPTH) return html`${textOf(node)}`;
    const inner: Ctx = { ...ctx, depth: ctx.depth + 1 };
    switch (typeOf(node)) {
      case "link": {
        const content = this.inlines(children(node), { ...inner, inLink: true });
        const target = ctx.inLink ? undefined : this.link(dataRef(node));
        if (!target) return content;
        // "here", "read more": read alone (a screen reader's list of links, a search engine), such
        // words name no destination; where the link goes is added for them, visually hidden.
        const where = GENERIC_LINK_TEXT.has(textOf(node).trim().toLowerCase()) ? destinationOf(target) : "";
        return html`<a class="q-link" href="${target.href}">${content}${where ? html`<span class="q-visually-hidden"> (${where})</span>` : EMPTY}</a>`;
      }
      case "emoji":
        return html`<span class="q-emoji">${emojiText(dataString(node, "code") ?? "")}</span>`;
      case "icon": {
        const name = (dataString(node, "icon") ?? "").replace(/[^a-z0-9-]/gi, "");
        return html`<span class="q-icon${colorClass("text", dataString(node, "color"))}" data-icon="${name}" aria-hidden="true"></span>`;
      }
      case "expression":
        return html`<span class="q-expression">${this.env.expression(dataString(node, "expression") ?? "")}</span>`;
      case "inline-math":
        this.features.add("math");
        return html`<span class="q-math-inline">${raw(renderMath(dataString(node, "formula") ?? "", false))}</span>`;
      case "inline-image":
        return this.inlineImage(node);
      case "mention": {
        const reference = dataRef(node);
        const target = ctx.inLink ? undefined : this.link(reference);
        const label = target?.title ?? (reference ? fallbackLabel(reference) : "");
        return target ? html`<a class="q-mention" href="${target.href}">${label}</a>` : html`<span class="q-mention">${label}</span>`;
      }
      case "button": {
        const kind = dataString(node, "kind") === "secondary" ? "secondary" : "primary";
        const label = dataString(node, "label") ?? "";
        const target = ctx.inLink ? undefined : this.link(dataRef(node));
        return target
          ? html`<a class="q-button q-button-${kind}" href="${target.href}">${label}</a>`
          : html`<span class="q-button q-button-${kind} q-unavailable">${label}</span>`;
      }
      case "annotation": {
        const id = this.uid("note");
        const body = fragmentsOfType(node, "annotation-body");
        this.notes.push({ id, body });
        const number = this.notes.length;
        const content = this.inlines(children(node), inner);
        // A note is a footnote: the annotated words link to it (content.js shows it as a popover).
        return ctx.inLink
          ? html`<span class="q-annotated">${content}<sup>${number}</sup></span>`
          : html`<a class="q-annotated" id="${id}-ref" href="#${id}" aria-describedby="${id}">${content}<sup class="q-note-number">${number}</sup></a>`;
      }
      default:
        return html`${textOf(node)}`;
    }
  }

  private text(node: Node): SafeHtml {
    const parts: string[] = [];
    for (const leaf of leaves(node)) {
      if (typeof leaf.text !== "string" || leaf.text === "") continue;
      // Soft line breaks (Shift+Enter) are newlines in the text.
      let out = html`${leaf.text}`.value.replace(/\n/g, "<br>");
      const marks = Array.isArray(leaf.marks)
        ? (leaf.marks.filter(isNode) as Array<{ type?: unknown; data?: Record<string, unknown> }>)
        : [];
      // Innermost first, in reverse of the canonical order, so code sits inside bold and not around it.
      for (let i = marks.length - 1; i >= 0; i--) out = wrapMark(marks[i]!, out);
      parts.push(out);
    }
    return raw(parts.join(""));
  }

  private inlineImage(node: Node): SafeHtml {
    const src = this.imageSource(dataRef(node));
    const alt = dataString(node, "alt") ?? dataString(node, "caption") ?? "";
    if (!src) return alt ? html`<span class="q-unavailable">${alt}</span>` : EMPTY;
    const dark = this.imageSource(dataRef(node, "refDark"));
    const size = dataString(node, "size") === "line" ? " q-inline-image-line" : "";
    const img = html`<img class="q-inline-image${size}" src="${src.url}" alt="${alt}" loading="lazy" decoding="async"${dimensions(src)}>`;
    return dark ? this.picture(dark.url, img) : img;
  }

  // ---------------------------------------------------------------- links and files

  /** The href (and title) of a ref, or undefined when the reader may not follow it. */
  link(reference: ContentRef | undefined): { href: string; title?: string } | undefined {
    if (!reference) return undefined;
    let target = this.env.link(reference);
    if (!target) {
      if (reference.kind === "url" && typeof reference.url === "string") target = { href: reference.url };
      else if (reference.kind === "anchor" && !reference.page && !reference.space && typeof reference.anchor === "string")
        target = { href: `#${reference.anchor}` };
      else if (reference.kind === "file" && typeof reference.file === "string") {
        const file = this.env.file(reference.file);
        if (file) target = { href: file.url, title: file.name };
      }
    }
    const href = safeLinkUrl(target?.href);
    if (!target || href === undefined) return undefined;
    return target.title === undefined ? { href } : { href, title: target.title };
  }

  /** An image's URL and size: a `url` ref as given (web URLs only), a `file` ref through env.file (with its other widths, if offered). */
  imageSource(reference: ContentRef | undefined): ImageSource | undefined {
    if (!reference) return undefined;
    if (reference.kind === "url") {
      const url = safeMediaUrl(typeof reference.url === "string" ? reference.url : undefined);
      return url ? { url } : undefined;
    }
    if (reference.kind === "file" && typeof reference.file === "string") {
      const file = this.env.file(reference.file);
      const url = safeMediaUrl(file?.url);
      if (!file || !url) return undefined;
      const srcset = file.srcset && file.sizes ? { srcset: file.srcset, sizes: file.sizes } : {};
      return { url, width: file.width, height: file.height, ...srcset };
    }
    return undefined;
  }

  /**
   * A light image with a dark variant: <picture> picks by prefers-color-scheme; content.js follows
   * [data-theme]. `widths`: the dark image's other widths are offered too.
   */
  picture(darkUrl: string, img: SafeHtml, dark?: ImageSource, widths = false): SafeHtml {
    if (widths && dark?.srcset && dark.sizes) {
      return html`<picture><source srcset="${dark.srcset}" sizes="${dark.sizes}" media="(prefers-color-scheme: dark)" data-q-dark>${img}</picture>`;
    }
    // srcset is a list: a space or comma in the URL would start another candidate.
    const srcset = darkUrl.replace(/[\s,]/g, (c) => encodeURIComponent(c));
    return html`<picture><source srcset="${srcset}" media="(prefers-color-scheme: dark)" data-q-dark>${img}</picture>`;
  }

  // ---------------------------------------------------------------- blocks

  private heading(node: Node, ctx: Ctx): SafeHtml {
    const level = typeOf(node) === "heading-1" ? 1 : typeOf(node) === "heading-2" ? 2 : 3;
    const title = textOf({ nodes: children(node) })
      .replace(/\s+/g, " ")
      .trim();
    const wanted = dataString(node, "id") || (typeof node.meta?.id === "string" ? node.meta.id : "") || gitbookAnchor(title);
    const id = this.uniqueId(wanted);
    if (ctx.outline) this.outline.push({ id, title, level });
    // The page title is the page's <h1>, so a document's heading-1 is an <h2>.
    const tag = raw(`h${level + 1}`);
    return html`<${tag} id="${id}" class="q-heading q-h${level}${alignClass(node, false)}">${this.inlines(children(node), ctx)}<a class="q-anchor" href="#${id}" aria-label="Link to this section">#</a></${tag}>`;
  }

  private uniqueId(wanted: string): string {
    const base = wanted.trim().replace(/\s+/g, "-") || "section";
    let id = base;
    for (let n = 1; this.ids.has(id); n++) id = `${base}-${n}`;
    this.ids.add(id);
    return id;
  }

  private list(node: Node, ctx: Ctx): SafeHtml {
    const type = typeOf(node);
    const items = children(node).map((item) => {
      const body = typeOf(item) === "list-item" ? this.blocks(children(item), ctx) : this.block(item, ctx);
      if (type !== "list-tasks") return html`<li>${body}</li>`;
      const checked = dataFlag(item, "checked");
      return html`<li class="q-task${checked ? " q-task-done" : ""}"><input type="checkbox" disabled${checked ? raw(" checked") : EMPTY} aria-label="${checked ? "Done" : "Not done"}"><div class="q-task-body">${body}</div></li>`;
    });
    if (type === "list-ordered") {
      const start = Math.trunc(dataNumber(node, "start") ?? 1);
      return html`<ol class="q-list"${start !== 1 ? html` start="${start}"` : EMPTY}>${items}</ol>`;
    }
    return html`<ul class="q-list${type === "list-tasks" ? " q-tasks" : ""}">${items}</ul>`;
  }

  private hint(node: Node, ctx: Ctx): SafeHtml {
    const requested = dataString(node, "style") ?? "info";
    const style = Object.hasOwn(HINTS, requested) ? requested : "info";
    return html`<div class="q-hint q-hint-${style}" role="note"><span class="q-hint-icon" aria-hidden="true">${HINTS[style]}</span><div class="q-hint-body">${this.blocks(children(node), ctx)}</div></div>`;
  }

  private code(node: Node, lineNodes: readonly Node[]): SafeHtml {
    const syntax = dataString(node, "syntax");
    const lines = lineNodes.map((line) => this.codeLineText(line));
    if (syntax?.trim().toLowerCase() === "mermaid") {
      this.features.add("mermaid");
      // mermaid reads the element's text, so escaped source is exactly the diagram's source.
      return html`<div class="q-mermaid-wrap"><pre class="mermaid q-mermaid">${lines.join("\n")}</pre></div>`;
    }
    this.features.add("code");
    const language = languageOf(syntax);
    const highlighted = highlightLines(lines, language);
    // With line numbers or a highlighted line, each line is a block ending with its newline, so the
    // text of <code> is the source, with or without CSS. Otherwise the lines are only text: a long
    // page of code would carry an element per line for the browser to style and lay out.
    const last = highlighted.length - 1;
    const marks = lineNodes.map((line) => dataFlag(line, "highlighted"));
    const perLine = dataFlag(node, "lineNumbers") || marks.some(Boolean);
    const body = perLine
      ? highlighted.map((line, index) => {
          const marked = marks[index] ? " q-line-highlighted" : "";
          return `<span class="q-line${marked}">${line}${index < last ? "\n" : ""}</span>`;
        })
      : [highlighted.join("\n")];
    const title = dataString(node, "title");
    const classes = ["q-code"];
    if (dataString(node, "overflow") === "wrap") classes.push("q-code-wrap");
    if (dataFlag(node, "lineNumbers")) classes.push("q-code-numbered");
    if (dataFlag(node, "fullWidth")) classes.push("q-full-width");
    const collapsed = dataNumber(node, "collapsedLineCount");
    const collapsible = dataFlag(node, "expandable") && collapsed !== undefined && collapsed > 0 && lines.length > collapsed;
    if (collapsible) classes.push("q-code-collapsible");
    // Focusable (a block that scrolls sideways must be reachable by keyboard; content.js takes it off
    // a block that does not, once shown), and its line count for the height it is given before the
    // browser lays it out (content.css: code out of sight is laid out when it comes near).
    const pre = html`<pre tabindex="0" style="--q-lines:${lines.length}"><code class="hljs${perLine ? " q-code-lines" : ""}${language ? ` language-${language}` : ""}">${raw(body.join(""))}</code></pre>`;
    // The header shows the title and the language; the copy button (content.js shows it) sits in
    // the header when there is one, else over the code.
    const label = syntaxLabel(syntax);
    const copy = html`<button type="button" class="q-copy" hidden>Copy</button>`;
    const header =
      title || label
        ? html`<figcaption class="q-code-header">${title ? html`<span class="q-code-title">${title}</span>` : EMPTY}${
            label ? html`<span class="q-code-language">${label}</span>` : EMPTY
          }${copy}</figcaption>`
        : EMPTY;
    return html`<figure class="${classes.join(" ")}"${language ? html` data-language="${language}"` : EMPTY}${collapsible ? html` data-collapsed-lines="${collapsed}"` : EMPTY}>${header}<div class="q-code-body">${header === EMPTY ? copy : EMPTY}${pre}</div></figure>`;
  }

  /** A code line's text: expressions are evaluated, annotations show their text. */
  private codeLineText(line: Node): string {
    if (line.object === "text") return textOf(line);
    let out = "";
    for (const child of children(line)) {
      if (typeOf(child) === "expression") out += this.env.expression(dataString(child, "expression") ?? "");
      else out += textOf(child.object === "text" ? child : { nodes: children(child) });
    }
    return out.replace(/\n/g, " ");
  }

  private images(node: Node, ctx: Ctx): SafeHtml {
    const align = dataString(node, "align");
    const classes = ["q-images", `q-align-${align === "left" || align === "right" ? align : "center"}`];
    if (dataFlag(node, "withFrame")) classes.push("q-images-framed");
    if (dataFlag(node, "fullWidth")) classes.push("q-full-width");
    return html`<div class="${classes.join(" ")}">${children(node).map((image) => (typeOf(image) === "image" ? this.image(image, ctx) : this.block(image, ctx)))}</div>`;
  }

  image(node: Node, ctx: Ctx): SafeHtml {
    const source = this.imageSource(dataRef(node));
    const captionFragment = fragmentNamed(node, "caption");
    const captionNodes = captionFragment ? children(captionFragment) : [];
    const caption = captionNodes.length > 0 ? this.captionInlines(captionNodes, ctx) : EMPTY;
    const captionText = captionFragment ? textOf(captionFragment).trim() : "";
    const alt = dataString(node, "alt") ?? captionText;
    if (!source) {
      return html`<figure class="q-image q-unavailable"><span>${alt ? `Image not available: ${alt}` : "Image not available"}</span></figure>`;
    }
    const width = lengthOf(node.data?.width);
    const dark = this.imageSource(dataRef(node, "refDark"));
    const sizeStyle = width ? html` style="width:${width}"` : EMPTY;
    // An image among the first blocks is likely the largest thing of the first screen: fetched at
    // once and first, not lazily (a lazy image waits for layout), it is painted sooner.
    const lead = !this.leadImage && this.blocksSeen <= LEAD_IMAGE_BLOCKS;
    if (lead) this.leadImage = true;
    const loading = lead ? raw(' fetchpriority="high"') : raw(' loading="lazy"');
    const img = html`<img src="${source.url}"${widths(source)} alt="${alt}"${loading} decoding="async"${dimensions(source)}${sizeStyle}>`;
    return html`<figure class="q-image">${dark ? this.picture(dark.url, img, dark, true) : img}${captionText ? html`<figcaption>${caption}</figcaption>` : EMPTY}</figure>`;
  }

  private captionInlines(nodes: readonly Node[], ctx: Ctx): SafeHtml {
    return join(
      nodes.map((paragraph) => (paragraph.object === "text" ? this.inlines([paragraph], ctx) : this.inlines(children(paragraph), ctx))),
    );
  }

  private drawing(node: Node): SafeHtml {
    const source = this.imageSource(dataRef(node));
    if (!source) return html`<figure class="q-drawing q-unavailable"><span>Drawing not available</span></figure>`;
    return html`<figure class="q-drawing"><img src="${source.url}" alt="Drawing" loading="lazy" decoding="async"${dimensions(source)}></figure>`;
  }

  /** An embed or a file with the caption its Markdown gave it (document/parts.ts). */
  private captioned(block: SafeHtml, node: Node, ctx: Ctx): SafeHtml {
    const caption = partsOf(node);
    if (!caption.length) return block;
    return html`<figure class="q-captioned">${block}<figcaption class="q-caption">${this.blocks(caption, ctx)}</figcaption></figure>`;
  }

  private file(node: Node): SafeHtml {
    const reference = dataRef(node);
    const file = reference?.kind === "file" && typeof reference.file === "string" ? this.env.file(reference.file) : undefined;
    const href = safeMediaUrl(file?.url);
    if (!file || !href) return html`<div class="q-file q-unavailable">File not available</div>`;
    return html`<a class="q-file" href="${href}" download="${file.name}"><span class="q-file-icon" aria-hidden="true">⇩</span><span class="q-file-name">${file.name}</span>${file.size !== undefined ? html`<span class="q-file-size">${formatSize(file.size)}</span>` : EMPTY}</a>`;
  }

  private embed(node: Node): SafeHtml {
    const url = dataString(node, "url") ?? "";
    const known = knownEmbed(url);
    if (known) {
      this.features.add("embed");
      return html`<div class="q-embed q-embed-${known.provider}"><iframe src="${known.src}" title="${known.title}" loading="lazy" sandbox="allow-scripts allow-same-origin allow-presentation allow-popups" allow="fullscreen; picture-in-picture; encrypted-media" allowfullscreen referrerpolicy="strict-origin-when-cross-origin"></iframe></div>`;
    }
    const href = safeLinkUrl(url);
    return href
      ? html`<a class="q-embed-link q-card-link" href="${href}" rel="noopener"><span class="q-card-title">${url}</span><span class="q-card-hint">Embedded content</span></a>`
      : html`<p class="q-embed-link q-unavailable">${url}</p>`;
  }

  private tabs(node: Node, ctx: Ctx): SafeHtml {
    const items = children(node);
    if (items.length === 0) return EMPTY;
    this.features.add("tabs");
    const group = this.uid("tabs");
    const inner: Ctx = { ...ctx, outline: false };
    // Radio buttons + CSS switch tabs without script: each radio's label is the tab, the panel follows it.
    const parts = items.map((item, index) => {
      const id = `${group}-${index}`;
      const title = dataString(item, "title") || `Tab ${index + 1}`;
      const body = typeOf(item) === "tabs-item" ? this.blocks(children(item), inner) : this.block(item, inner);
      return html`<input type="radio" class="q-tab-radio" name="${group}" id="${id}"${index === 0 ? raw(" checked") : EMPTY}><label class="q-tab-label" for="${id}">${title}</label><div class="q-tab-panel">${body}</div>`;
    });
    return html`<div class="q-tabs${dataFlag(node, "fullWidth") ? " q-full-width" : ""}">${parts}</div>`;
  }

  private expandable(node: Node, ctx: Ctx): SafeHtml {
    const title = fragmentNamed(node, "expandable-title");
    const body = fragmentNamed(node, "expandable-body");
    const inner: Ctx = { ...ctx, outline: false };
    // The summary is the control that opens it: a link inside would be a control in a control,
    // out of a keyboard's and a screen reader's reach, so its links show as their text.
    const summary = title ? this.captionInlines(children(title), { ...inner, inLink: true }) : EMPTY;
    // Its id lets a link open it (content.js); it gives way to a heading that already has it.
    const wanted = typeof node.meta?.id === "string" ? node.meta.id : "";
    const free = wanted !== "" && !this.ids.has(wanted);
    if (free) this.ids.add(wanted);
    const id = free ? html` id="${wanted}"` : EMPTY;
    return html`<details class="q-expandable"${id}><summary>${summary.value ? summary : "Details"}</summary><div class="q-expandable-body">${this.blocks(children(body), inner)}</div></details>`;
  }

  private stepper(node: Node, ctx: Ctx): SafeHtml {
    const steps = children(node).map(
      (step) => html`<li class="q-step">${typeOf(step) === "stepper-step" ? this.blocks(children(step), ctx) : this.block(step, ctx)}</li>`,
    );
    return html`<ol class="q-stepper">${steps}</ol>`;
  }

  private columns(node: Node, ctx: Ctx): SafeHtml {
    const columns = children(node).map((column) => {
      const width = lengthOf(column.data?.width);
      const valign = dataString(column, "verticalAlignment");
      const cls = valign === "middle" || valign === "bottom" ? ` q-valign-${valign}` : "";
      const body = typeOf(column) === "column" ? this.blocks(children(column), ctx) : this.block(column, ctx);
      return html`<div class="q-column${cls}"${width ? html` style="--q-col:${width}"` : EMPTY}>${body}</div>`;
    });
    return html`<div class="q-columns${dataFlag(node, "fullWidth") ? " q-full-width" : ""}">${columns}</div>`;
  }

  private contentRef(node: Node): SafeHtml {
    const reference = dataRef(node);
    const target = this.link(reference);
    const label = target?.title ?? (reference ? fallbackLabel(reference) : "");
    const hint = reference?.kind === "url" ? "" : kindLabel(reference?.kind);
    if (!target)
      return html`<div class="q-card-link q-unavailable"><span class="q-card-title">${label || "Unavailable content"}</span></div>`;
    return html`<a class="q-card-link" href="${target.href}"><span class="q-card-title">${label}</span>${hint ? html`<span class="q-card-hint">${hint}</span>` : EMPTY}</a>`;
  }

  private reusableContent(node: Node, ctx: Ctx): SafeHtml {
    const reference = dataRef(node);
    if (reference?.kind !== "reusable-content" || typeof reference.reusableContent !== "string") return EMPTY;
    const key = `${reference.space ?? ""}/${reference.reusableContent}`;
    if (ctx.reusable.includes(key) || ctx.reusable.length >= MAX_REUSABLE_DEPTH) {
      return html`<p class="q-unavailable">This reusable content includes itself and is shown only once.</p>`;
    }
    const content = this.env.reusableContent(reference.reusableContent, reference.space);
    if (!content || !Array.isArray(content.nodes)) return EMPTY;
    return html`<div class="q-reusable">${this.blocks(content.nodes, { ...ctx, reusable: [...ctx.reusable, key] })}</div>`;
  }

  private openApi(node: Node): SafeHtml {
    const type = typeOf(node);
    const reference = dataRef(node);
    if (type === "openapi-schemas") {
      const schemas = Array.isArray(node.data?.schemas) ? node.data.schemas.filter((s): s is string => typeof s === "string") : [];
      return html`<div class="q-openapi q-openapi-schemas"><span class="q-openapi-label">Schemas</span> ${schemas.map((s, i) => html`${i > 0 ? ", " : ""}<code>${s}</code>`)}</div>`;
    }
    const method = (type === "openapi-webhook" ? (dataString(node, "method") ?? "post") : (dataString(node, "method") ?? "")).toLowerCase();
    const path = type === "openapi-webhook" ? (dataString(node, "name") ?? "") : (dataString(node, "path") ?? "");
    const spec = reference?.kind === "openapi" && typeof reference.spec === "string" ? reference.spec : undefined;
    const operation = spec && type === "openapi-operation" ? this.env.operation?.(spec, method, path) : undefined;
    const href = safeLinkUrl(operation?.href) ?? this.link(reference)?.href;
    const methodClass = /^[a-z]+$/.test(method) ? ` q-method-${method}` : "";
    const head = html`<span class="q-method${methodClass}">${method.toUpperCase()}</span> <code class="q-openapi-path">${path}</code>${operation?.summary ? html` <span class="q-openapi-summary">${operation.summary}</span>` : EMPTY}${operation?.deprecated ? html` <span class="q-openapi-deprecated">Deprecated</span>` : EMPTY}`;
    const label = type === "openapi-webhook" ? html`<span class="q-openapi-label">Webhook</span> ` : EMPTY;
    return href ? html`<a class="q-openapi" href="${href}">${label}${head}</a>` : html`<div class="q-openapi">${label}${head}</div>`;
  }

  private integration(node: Node): SafeHtml {
    const name = [dataString(node, "integration"), dataString(node, "block")].filter(Boolean).join(" / ");
    const href = safeLinkUrl(dataString(node, "url"));
    return href
      ? html`<a class="q-card-link q-integration" href="${href}" rel="noopener"><span class="q-card-title">${href}</span><span class="q-card-hint">${name || "Integration"}</span></a>`
      : html`<div class="q-integration q-unavailable">Integration${name ? ` ${name}` : ""}: interactive content is not available here.</div>`;
  }

  /** The annotation bodies, as numbered notes at the end; notes may add notes while they render. */
  private renderNotes(ctx: Ctx): SafeHtml {
    if (this.notes.length === 0) return EMPTY;
    const items: SafeHtml[] = [];
    const inner: Ctx = { ...ctx, outline: false };
    for (let i = 0; i < this.notes.length; i++) {
      const { id, body } = this.notes[i]!;
      const content = this.blocks(
        body.flatMap((fragment) => children(fragment)),
        inner,
      );
      items.push(
        html`<li id="${id}" class="q-note">${content} <a class="q-note-back" href="#${id}-ref" aria-label="Back to the text">↩</a></li>`,
      );
    }
    return html`<aside class="q-notes" aria-label="Notes"><ol>${items}</ol></aside>`;
  }
}

// ---------------------------------------------------------------- helpers

/** Link texts that say nothing of where the link goes (the words search engines and audits flag). */
const GENERIC_LINK_TEXT = new Set([
  "click here",
  "click this",
  "go",
  "here",
  "information",
  "learn more",
  "link",
  "more",
  "more info",
  "more information",
  "read more",
  "right here",
  "see more",
  "start",
  "this",
  "this link",
  "this page",
]);

/** A link's destination in words: the page's title, else the host of an outside address. */
function destinationOf(target: { href: string; title?: string }): string {
  if (target.title) return target.title;
  try {
    return new URL(target.href).host.replace(/^www\./, "");
  } catch {
    return "";
  }
}

function wrapMark(mark: { type?: unknown; data?: Record<string, unknown> }, inner: string): string {
  switch (mark.type) {
    case "bold":
      return `<strong>${inner}</strong>`;
    case "italic":
      return `<em>${inner}</em>`;
    case "code":
      return `<code class="q-code-inline">${inner}</code>`;
    case "keyboard":
      return `<kbd>${inner}</kbd>`;
    case "strikethrough":
      return `<s>${inner}</s>`;
    case "superscript":
      return `<sup>${inner}</sup>`;
    case "subscript":
      return `<sub>${inner}</sub>`;
    case "color": {
      const data = isNode(mark.data) ? mark.data : {};
      const classes = `${colorClass("text", data.text)}${colorClass("bg", data.background)}`.trim();
      return classes ? `<span class="${classes}">${inner}</span>` : inner;
    }
    default:
      return inner;
  }
}

/** " q-text-green", " q-bg-info"… for the spec's colors only (anything else adds no class). */
function colorClass(kind: "text" | "bg", value: unknown): string {
  if (!isTextColor(value) || value === "default") return "";
  return ` q-${kind}-${value.replace("$", "")}`;
}

function alignClass(node: Node, attribute = true): SafeHtml {
  const align = dataString(node, "align");
  if (align !== "center" && align !== "end") return EMPTY;
  return attribute ? raw(` class="q-align-${align}"`) : raw(` q-align-${align}`);
}

/** An image as the renderer places it: its address, its size, and its other widths when offered. */
export interface ImageSource {
  url: string;
  width?: number;
  height?: number;
  srcset?: string;
  sizes?: string;
}

/** The `srcset` and `sizes` of an image offered at other widths (with its size known, so that the page does not shift). */
function widths(source: ImageSource): SafeHtml {
  if (!source.srcset || !source.sizes || !source.width || !source.height) return EMPTY;
  return html` srcset="${source.srcset}" sizes="${source.sizes}"`;
}

function dimensions(source: { width?: number; height?: number }): SafeHtml {
  const { width, height } = source;
  if (!width || !height || !Number.isFinite(width) || !Number.isFinite(height)) return EMPTY;
  return html` width="${Math.round(width)}" height="${Math.round(height)}"`;
}

/** A spec `Length` as CSS: a number is pixels; `{unit, value}` with a known unit. */
function lengthOf(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value) && value > 0) return `${Math.round(value)}px`;
  if (isNode(value)) {
    const { unit, value: amount } = value as { unit?: unknown; value?: unknown };
    if (typeof amount !== "number" || !Number.isFinite(amount) || amount <= 0) return undefined;
    if (unit === "%") return `${Math.min(100, amount)}%`;
    if (unit === "px") return `${Math.round(amount)}px`;
  }
  return undefined;
}

function fragmentsOfType(node: Node, type: string): Fragment[] {
  const all = Array.isArray(node.fragments) ? (node.fragments.filter(isNode) as Fragment[]) : [];
  return all.filter((f) => f.type === type || f.fragment === type || f.type === undefined);
}

/** Text for a ref the env gave no title for. */
export function fallbackLabel(reference: ContentRef): string {
  switch (reference.kind) {
    case "url":
      return typeof reference.url === "string" ? reference.url : "";
    case "anchor":
      return typeof reference.anchor === "string" ? reference.anchor : "";
    case "user":
      return "Someone";
    default:
      return kindLabel(reference.kind);
  }
}

function kindLabel(kind: string | undefined): string {
  switch (kind) {
    case "page":
    case "anchor":
      return "Page";
    case "file":
      return "File";
    case "space":
      return "Space";
    case "collection":
      return "Collection";
    case "openapi":
      return "API reference";
    case "reusable-content":
      return "Reusable content";
    default:
      return "";
  }
}

export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "";
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
