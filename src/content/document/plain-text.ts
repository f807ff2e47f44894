/**
 * Plain text of a document for the search index: one entry per section, a section starting at
 * each heading (the text before the first heading has no `heading`). Tag lines the converter keeps
 * as paragraphs (`{% if … %}`, `{% columns %}` …) are markup, not content, and are left out.
 */
import type { DocumentBlock, DocumentFragment, InlineContent, JSONDocument } from "./types.js";

export interface PlainTextSection {
  heading?: { key: string; text: string; level: 1 | 2 | 3 };
  text: string;
}

const TAG_LINE = /^\{%.*%\}$/s;

export function documentToPlainText(document: JSONDocument): PlainTextSection[] {
  const sections: PlainTextSection[] = [];
  let current: { heading?: PlainTextSection["heading"]; parts: string[] } = { parts: [] };
  const flush = () => {
    const text = current.parts
      .join("\n")
      .replace(/[ \t]+/g, " ")
      .replace(/\n{2,}/g, "\n")
      .trim();
    if (current.heading || text) sections.push({ ...(current.heading ? { heading: current.heading } : {}), text });
  };
  for (const block of document.nodes) {
    if (block.type === "heading-1" || block.type === "heading-2" || block.type === "heading-3") {
      flush();
      const level = block.type === "heading-1" ? 1 : block.type === "heading-2" ? 2 : 3;
      current = { heading: { key: block.key ?? "", text: inlinesText(block.nodes).trim(), level }, parts: [] };
      continue;
    }
    blockText(block, current.parts);
  }
  flush();
  return sections;
}

function inlinesText(nodes: readonly InlineContent[]): string {
  let out = "";
  for (const node of nodes) {
    if (node.object === "text") {
      for (const leaf of node.leaves) out += leaf.text;
      continue;
    }
    switch (node.type) {
      case "link":
        out += inlinesText(node.nodes);
        break;
      case "annotation":
        out += inlinesText(node.nodes);
        for (const f of node.fragments) for (const b of f.nodes) out += ` ${blockText(b, []).join(" ")}`;
        break;
      case "inline-math":
        out += node.data.formula;
        break;
      case "expression":
        out += node.data.expression;
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

function blockText(block: DocumentBlock | DocumentFragment, parts: string[]): string[] {
  if (block.object === "block") {
    switch (block.type) {
      case "paragraph": {
        const text = inlinesText(block.nodes);
        if (!TAG_LINE.test(text.trim())) parts.push(text);
        return parts;
      }
      case "heading-1":
      case "heading-2":
      case "heading-3":
        parts.push(inlinesText(block.nodes));
        return parts;
      case "code":
        parts.push(block.nodes.map((line) => inlinesText(line.nodes as InlineContent[])).join("\n"));
        return parts;
      case "math":
        parts.push(block.data.formula);
        return parts;
      case "image":
        if (block.data.alt) parts.push(block.data.alt);
        break;
      case "tabs-item":
        if (block.data.title) parts.push(block.data.title);
        break;
      case "table":
        parts.push(
          Object.values(block.data.definition)
            .map((d) => d.title)
            .join(" "),
        );
        break;
      case "embed":
        parts.push(block.data.url);
        return parts;
      default:
        break;
    }
  }
  const children = [
    ...("nodes" in block && Array.isArray(block.nodes) ? block.nodes : []),
    ...("fragments" in block && Array.isArray(block.fragments) ? block.fragments : []),
  ];
  for (const child of children as Array<DocumentBlock | DocumentFragment>) blockText(child, parts);
  return parts;
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
