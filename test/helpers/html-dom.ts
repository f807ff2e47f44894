/** A tiny query layer over parse5 for asserting on rendered HTML structure (as a browser parses it). */
import { parseFragment } from "parse5";

export interface El {
  tag: string;
  attrs: Record<string, string>;
  children: Array<El | string>;
}

type P5 = {
  nodeName: string;
  tagName?: string;
  value?: string;
  attrs?: Array<{ name: string; value: string }>;
  childNodes?: P5[];
  content?: P5;
};

function convert(node: P5): El | string | undefined {
  if (node.nodeName === "#text") return node.value ?? "";
  if (node.nodeName.startsWith("#")) return undefined;
  const kids = node.nodeName === "template" ? (node.content?.childNodes ?? []) : (node.childNodes ?? []);
  return {
    tag: node.tagName ?? node.nodeName,
    attrs: Object.fromEntries((node.attrs ?? []).map((a) => [a.name, a.value])),
    children: kids.map(convert).filter((c): c is El | string => c !== undefined),
  };
}

export function dom(html: string): El {
  const root = parseFragment(html) as unknown as P5;
  return { tag: "#root", attrs: {}, children: (root.childNodes ?? []).map(convert).filter((c): c is El | string => c !== undefined) };
}

/** Elements matching "tag", ".class", "tag.class" or "[attr]" (one simple selector), in document order. */
export function all(root: El, selector: string): El[] {
  const match = /^([a-z0-9]*)((?:\.[\w-]+)*)(?:\[([\w-]+)\])?$/i.exec(selector);
  if (!match) throw new Error(`unsupported selector ${selector}`);
  const [, tag, classes, attr] = match;
  const wanted = (classes ?? "").split(".").filter(Boolean);
  const out: El[] = [];
  const stack: Array<El | string> = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node === "string") continue;
    const own = (node.attrs.class ?? "").split(/\s+/);
    if ((!tag || node.tag === tag) && wanted.every((c) => own.includes(c)) && (!attr || attr in node.attrs)) out.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return out;
}

export function one(root: El, selector: string): El {
  const found = all(root, selector);
  if (found.length !== 1) throw new Error(`expected one ${selector}, found ${found.length}`);
  return found[0]!;
}

export function text(node: El | string): string {
  return typeof node === "string" ? node : node.children.map(text).join("");
}
