/**
 * HTML that GitBook writes into Markdown, to and from document nodes: inline formatting
 * (`<mark>`, `<sup>`, `<code class="expression">`, `<i class="fa-…">`, buttons) as it appears in
 * captions, summaries and cards cells, and the `<figure>`/`<picture>` form of images.
 */

import { isTextColor, leaf, normalizeInlines, textNode } from "../document/nodes.js";
import type { DocumentInline, DocumentMark, InlineContent, TextColor } from "../document/types.js";
import { appendAll } from "./arrays.js";
import { emojiCharacters } from "./emoji.js";
import { elementChildren, escapeAttribute, escapeHtmlText, type HtmlElement, type HtmlNode } from "./html.js";

/** `<mark style="color:red;background-color:yellow;">` → a color mark (plain `<mark>`: yellow background). */
export function colorMarkFromStyle(style: string | undefined): DocumentMark {
  let text: TextColor = "default";
  let background: TextColor = style === undefined ? "yellow" : "default";
  for (const declaration of (style ?? "").split(";")) {
    const [property, rawValue] = declaration.split(":").map((s) => s?.trim().toLowerCase());
    if (!property || !rawValue) continue;
    const value = rawValue.replace(/^var\(--?(.*)\)$/, "$1");
    if (!isTextColor(value)) continue;
    if (property === "color") text = value;
    else if (property === "background-color" || property === "background") background = value;
  }
  return { object: "mark", type: "color", data: { text, background } };
}

export function styleForColorMark(mark: Extract<DocumentMark, { type: "color" }>): string {
  const parts: string[] = [];
  if (mark.data.text !== "default") parts.push(`color:${mark.data.text};`);
  if (mark.data.background !== "default") parts.push(`background-color:${mark.data.background};`);
  return parts.join("");
}

/** Marks an inline HTML element name stands for (`<strong>`, `<sup>` ...), undefined for others. */
export function markForElement(name: string, attrs: Record<string, string>): DocumentMark | undefined {
  switch (name) {
    case "strong":
    case "b":
      return { object: "mark", type: "bold" };
    case "em":
      return { object: "mark", type: "italic" };
    case "i":
      return attrs.class?.includes("fa-") ? undefined : { object: "mark", type: "italic" };
    case "s":
    case "del":
    case "strike":
      return { object: "mark", type: "strikethrough" };
    case "sup":
      return { object: "mark", type: "superscript" };
    case "sub":
      return { object: "mark", type: "subscript" };
    case "kbd":
      return { object: "mark", type: "keyboard" };
    case "mark":
      return colorMarkFromStyle(attrs.style);
    default:
      return undefined;
  }
}

/** `<i class="fa-github">` → `github`. */
export function iconFromClass(className: string | undefined): string | undefined {
  const match = /(?:^|\s)fa-([a-z0-9-]+)/.exec(className ?? "");
  return match?.[1];
}

export interface HtmlInlineContext {
  /** `<a href>` → a link ref; `<img src>` → an image ref. */
  link(href: string, kind: "link" | "button"): import("../document/types.js").ContentRef;
  image(src: string): import("../document/types.js").ImageRef;
  warn(message: string): void;
  /** Splits `:shortcode:` emoji out of text. */
  text(value: string, marks: DocumentMark[]): InlineContent[];
}

/** Inline HTML (children of a `<td>`, `<summary>`, `<figcaption><p>`) → inline content. */
export function htmlToInlines(nodes: readonly HtmlNode[], ctx: HtmlInlineContext, marks: DocumentMark[] = []): InlineContent[] {
  const out: InlineContent[] = [];
  for (const node of nodes) {
    if (node.type === "text") appendAll(out, ctx.text(node.value.replace(/\s*\n\s*/g, " "), marks));
    else if (node.type === "comment") ctx.warn("an HTML comment inside inline HTML was dropped");
    else appendAll(out, elementToInlines(node, ctx, marks));
  }
  return out;
}

function elementToInlines(el: HtmlElement, ctx: HtmlInlineContext, marks: DocumentMark[]): InlineContent[] {
  const mark = markForElement(el.name, el.attrs);
  if (mark) return htmlToInlines(el.children, ctx, [...marks, mark]);
  switch (el.name) {
    case "br":
      return [textNode([leaf("\n", marks)])];
    case "p":
    case "span":
    case "div":
      return htmlToInlines(el.children, ctx, marks);
    case "code": {
      const text = plain(el.children);
      if (el.attrs.class?.split(/\s+/).includes("expression"))
        return [{ object: "inline", type: "expression", isVoid: true, data: { expression: text } }];
      return [textNode([leaf(text, [...marks, { object: "mark", type: "code" }])])];
    }
    case "i": {
      const icon = iconFromClass(el.attrs.class);
      if (icon) return [{ object: "inline", type: "icon", isVoid: true, data: { icon } }];
      return htmlToInlines(el.children, ctx, marks);
    }
    case "img": {
      const src = el.attrs.src;
      if (!src) return [];
      const data: Extract<DocumentInline, { type: "inline-image" }>["data"] = { ref: ctx.image(src) };
      if (el.attrs.alt) data.alt = el.attrs.alt;
      if (el.attrs["data-size"] === "line" || el.attrs["data-size"] === "original") data.size = el.attrs["data-size"];
      return [{ object: "inline", type: "inline-image", isVoid: true, data }];
    }
    case "h1":
    case "h2":
    case "h3":
    case "h4":
    case "h5":
    case "h6":
      // Headings cannot be inline; GitBook's cards write their titles as <h4>: bold keeps the intent.
      return htmlToInlines(el.children, ctx, [...marks, { object: "mark", type: "bold" }]);
    case "picture": {
      // GitBook writes an inline image with a dark-mode variant as <picture><source media=dark><img></picture>.
      const img = elementChildren(el).find((child) => child.name === "img");
      const [image] = img ? elementToInlines(img, ctx, marks) : [];
      if (image?.object !== "inline" || image.type !== "inline-image") {
        ctx.warn("a <picture> without an <img src> was dropped");
        return [];
      }
      const dark = darkVariantSrc(el);
      if (dark) image.data.refDark = ctx.image(dark);
      return [image];
    }
    case "a": {
      const href = el.attrs.href;
      if (href === undefined) return htmlToInlines(el.children, ctx, marks);
      const classes = (el.attrs.class ?? "").split(/\s+/);
      if (classes.includes("button")) {
        const data: Extract<DocumentInline, { type: "button" }>["data"] = {
          label: plain(el.children).trim(),
          kind: classes.includes("secondary") ? "secondary" : "primary",
          ref: ctx.link(href, "button"),
        };
        if (el.attrs["data-icon"]) data.icon = el.attrs["data-icon"];
        return [{ object: "inline", type: "button", isVoid: true, data }];
      }
      const inner = htmlToInlines(el.children, ctx, marks).flatMap((n) =>
        n.object === "text" || n.type === "inline-image" ? [n] : [textNode([leaf(inlineFallbackText(n), marks)])],
      );
      return [{ object: "inline", type: "link", nodes: normalizeLinkNodes(inner), data: { ref: ctx.link(href, "link") } }];
    }
    default:
      ctx.warn(`unsupported inline HTML <${el.name}> kept as its text`);
      return htmlToInlines(el.children, ctx, marks);
  }
}

/** The image of a `<picture>`'s dark-mode `<source>` (`media="(prefers-color-scheme: dark)"`), if any. */
export function darkVariantSrc(picture: HtmlElement): string | undefined {
  const source = elementChildren(picture).find(
    (child) => child.name === "source" && /dark/.test(child.attrs.media ?? "") && child.attrs.srcset,
  );
  return source?.attrs.srcset?.trim().split(/\s+/)[0];
}

export function normalizeLinkNodes(nodes: InlineContent[]): Array<Extract<InlineContent, { object: "text" } | { type: "inline-image" }>> {
  const normalized = normalizeInlines(nodes);
  return normalized.filter(
    (n): n is Extract<InlineContent, { object: "text" } | { type: "inline-image" }> => n.object === "text" || n.type === "inline-image",
  );
}

/** Text standing for an inline that cannot be nested where it was (an emoji inside a link ...). */
export function inlineFallbackText(node: InlineContent): string {
  if (node.object === "text") return node.leaves.map((l) => l.text).join("");
  switch (node.type) {
    case "emoji":
      return emojiCharacters(node.data.code) ?? "";
    case "inline-math":
      return node.data.formula;
    case "expression":
      return node.data.expression;
    case "icon":
      return "";
    case "button":
      return node.data.label;
    case "link":
    case "annotation":
      return node.nodes.map(inlineFallbackText).join("");
    default:
      return "";
  }
}

function plain(nodes: readonly HtmlNode[]): string {
  return nodes
    .map((n) => (n.type === "text" ? n.value : n.type === "element" ? (n.name === "br" ? "\n" : plain(n.children)) : ""))
    .join("");
}

// ---- inline content → HTML (for captions, summaries and cards cells) ------------------------------

export interface InlineHtmlWriter {
  path(ref: import("../document/types.js").ContentRef): string;
}

export function inlinesToHtml(nodes: readonly InlineContent[], writer: InlineHtmlWriter): string {
  let out = "";
  for (const node of nodes) {
    if (node.object === "text") {
      for (const l of node.leaves) out += leafToHtml(l.text, l.marks);
      continue;
    }
    switch (node.type) {
      case "link":
        out += `<a href="${escapeAttribute(writer.path(node.data.ref))}">${inlinesToHtml(node.nodes, writer)}</a>`;
        break;
      case "inline-image":
        out += `<img src="${escapeAttribute(writer.path(node.data.ref))}" alt="${escapeAttribute(node.data.alt ?? "")}"${node.data.size ? ` data-size="${node.data.size}"` : ""}>`;
        break;
      case "expression":
        out += `<code class="expression">${escapeHtmlText(node.data.expression)}</code>`;
        break;
      case "icon":
        out += `<i class="fa-${escapeAttribute(node.data.icon)}">:${escapeHtmlText(node.data.icon)}:</i>`;
        break;
      case "button":
        out += `<a href="${escapeAttribute(writer.path(node.data.ref))}" class="button ${node.data.kind}"${node.data.icon ? ` data-icon="${escapeAttribute(node.data.icon)}"` : ""}>${escapeHtmlText(node.data.label)}</a>`;
        break;
      default:
        out += escapeHtmlText(inlineFallbackText(node));
    }
  }
  return out;
}

function leafToHtml(text: string, marks: readonly DocumentMark[]): string {
  let html = escapeHtmlText(text).replace(/\n/g, "<br>");
  for (const mark of [...marks].reverse()) {
    switch (mark.type) {
      case "bold":
        html = `<strong>${html}</strong>`;
        break;
      case "italic":
        html = `<em>${html}</em>`;
        break;
      case "code":
        html = `<code>${html}</code>`;
        break;
      case "strikethrough":
        html = `<s>${html}</s>`;
        break;
      case "superscript":
        html = `<sup>${html}</sup>`;
        break;
      case "subscript":
        html = `<sub>${html}</sub>`;
        break;
      case "keyboard":
        html = `<kbd>${html}</kbd>`;
        break;
      case "color":
        html = `<mark style="${styleForColorMark(mark)}">${html}</mark>`;
        break;
    }
  }
  return html;
}
