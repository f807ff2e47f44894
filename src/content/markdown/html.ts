/**
 * A small, tolerant HTML reader for the fragments GitBook writes into Markdown (`<figure>`,
 * `<picture>`, `<details>`, cards `<table>`, `<mark>`, buttons ...). It never throws: whatever it
 * cannot make sense of comes back as text, and callers decide how to keep it.
 */

/**
 * Named references GitBook and people commonly write; others are left as written (a full table
 * would need a dependency for very little: numeric references cover everything else).
 */
const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  copy: "\u00a9",
  reg: "\u00ae",
  trade: "\u2122",
  hellip: "\u2026",
  mdash: "\u2014",
  ndash: "\u2013",
  laquo: "\u00ab",
  raquo: "\u00bb",
  lsquo: "\u2018",
  rsquo: "\u2019",
  ldquo: "\u201c",
  rdquo: "\u201d",
  bull: "\u2022",
  middot: "\u00b7",
  times: "\u00d7",
  divide: "\u00f7",
  deg: "\u00b0",
  euro: "\u20ac",
  pound: "\u00a3",
  yen: "\u00a5",
  larr: "\u2190",
  rarr: "\u2192",
  uarr: "\u2191",
  darr: "\u2193",
  harr: "\u2194",
  check: "\u2713",
  zwj: "\u200d",
  zwnj: "\u200c",
  shy: "\u00ad",
  sect: "\u00a7",
  para: "\u00b6",
  plusmn: "\u00b1",
};

export interface HtmlElement {
  type: "element";
  name: string;
  attrs: Record<string, string>;
  children: HtmlNode[];
}
export interface HtmlText {
  type: "text";
  value: string;
}
export interface HtmlComment {
  type: "comment";
  value: string;
}
export type HtmlNode = HtmlElement | HtmlText | HtmlComment;

export type HtmlToken =
  | { type: "open"; name: string; attrs: Record<string, string>; selfClosing: boolean }
  | { type: "close"; name: string }
  | { type: "text"; value: string }
  | { type: "comment"; value: string };

const VOID_ELEMENTS = new Set(["img", "br", "source", "hr", "input", "meta", "link", "wbr", "col", "area", "base", "embed", "track"]);

export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{1,31});/g, (whole, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (!Number.isFinite(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\uFFFD";
      return String.fromCodePoint(code);
    }
    return NAMED_ENTITIES[body] ?? whole;
  });
}

export function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function escapeHtmlText(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Splits HTML into tags, text and comments. Attribute names are lower-cased; values decoded. */
export function tokenizeHtml(html: string): HtmlToken[] {
  const tokens: HtmlToken[] = [];
  let i = 0;
  let textStart = 0;
  const flushText = (end: number) => {
    if (end > textStart) tokens.push({ type: "text", value: decodeEntities(html.slice(textStart, end)) });
  };
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt < 0) break;
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      if (end < 0) {
        i = lt + 1;
        continue;
      }
      flushText(lt);
      tokens.push({ type: "comment", value: html.slice(lt + 4, end) });
      i = textStart = end + 3;
      continue;
    }
    const tag = readTag(html, lt);
    if (!tag) {
      i = lt + 1;
      continue;
    }
    flushText(lt);
    tokens.push(tag.token);
    i = textStart = tag.end;
  }
  flushText(html.length);
  return tokens;
}

function readTag(html: string, start: number): { token: HtmlToken; end: number } | undefined {
  let i = start + 1;
  const closing = html[i] === "/";
  if (closing) i++;
  const nameMatch = /^[A-Za-z][A-Za-z0-9-]*/.exec(html.slice(i, i + 64));
  if (!nameMatch) return undefined;
  const name = nameMatch[0].toLowerCase();
  i += nameMatch[0].length;
  if (closing) {
    const gt = html.indexOf(">", i);
    if (gt < 0 || html.slice(i, gt).trim() !== "") return undefined;
    return { token: { type: "close", name }, end: gt + 1 };
  }
  const attrs: Record<string, string> = {};
  for (;;) {
    while (i < html.length && /\s/.test(html[i]!)) i++;
    if (i >= html.length) return undefined;
    if (html[i] === ">") return { token: { type: "open", name, attrs, selfClosing: VOID_ELEMENTS.has(name) }, end: i + 1 };
    if (html.startsWith("/>", i)) return { token: { type: "open", name, attrs, selfClosing: true }, end: i + 2 };
    const attrMatch = /^[^\s"'>/=]+/.exec(html.slice(i, i + 256));
    if (!attrMatch) return undefined;
    const attrName = attrMatch[0].toLowerCase();
    i += attrMatch[0].length;
    while (i < html.length && /\s/.test(html[i]!)) i++;
    if (html[i] !== "=") {
      attrs[attrName] = "";
      continue;
    }
    i++;
    while (i < html.length && /\s/.test(html[i]!)) i++;
    const quote = html[i];
    if (quote === '"' || quote === "'") {
      const end = html.indexOf(quote, i + 1);
      if (end < 0) return undefined;
      attrs[attrName] = decodeEntities(html.slice(i + 1, end));
      i = end + 1;
    } else {
      const valueMatch = /^[^\s>]*/.exec(html.slice(i, i + 4096));
      const value = valueMatch ? valueMatch[0] : "";
      attrs[attrName] = decodeEntities(value);
      i += value.length;
    }
  }
}

/**
 * Elements kept one inside another. Deeper, an element is kept empty and what it holds goes to
 * the element around it: everything that reads the tree (text, inline content, tables) recurses,
 * and hostile HTML nests tens of thousands of levels in a page.
 */
export const MAX_HTML_DEPTH = 100;

/** Builds a tree from tokens; unmatched closing tags are ignored, unclosed elements end at the end. */
export function parseHtml(html: string): HtmlNode[] {
  const root: HtmlElement = { type: "element", name: "#root", attrs: {}, children: [] };
  const stack: HtmlElement[] = [root];
  for (const token of tokenizeHtml(html)) {
    const top = stack[stack.length - 1]!;
    if (token.type === "text") top.children.push({ type: "text", value: token.value });
    else if (token.type === "comment") top.children.push({ type: "comment", value: token.value });
    else if (token.type === "open") {
      const element: HtmlElement = { type: "element", name: token.name, attrs: token.attrs, children: [] };
      top.children.push(element);
      if (!token.selfClosing && stack.length <= MAX_HTML_DEPTH) stack.push(element);
    } else {
      const index = stack.map((e) => e.name).lastIndexOf(token.name);
      if (index > 0) stack.length = index;
    }
  }
  return root.children;
}

/** Child elements, skipping whitespace-only text. */
export function elementChildren(node: HtmlElement): HtmlElement[] {
  return node.children.filter((c): c is HtmlElement => c.type === "element");
}

export function isBlankHtml(nodes: readonly HtmlNode[]): boolean {
  return nodes.every((n) => n.type === "text" && n.value.trim() === "");
}

/** Text content of a node list. */
export function htmlText(nodes: readonly HtmlNode[]): string {
  let out = "";
  for (const n of nodes) {
    if (n.type === "text") out += n.value;
    else if (n.type === "element") out += n.name === "br" ? "\n" : htmlText(n.children);
  }
  return out;
}

/** Finds the first descendant element with a name. */
export function findElement(nodes: readonly HtmlNode[], name: string): HtmlElement | undefined {
  for (const n of nodes) {
    if (n.type !== "element") continue;
    if (n.name === name) return n;
    const inner = findElement(n.children, name);
    if (inner) return inner;
  }
  return undefined;
}
