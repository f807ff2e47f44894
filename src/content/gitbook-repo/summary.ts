/**
 * SUMMARY.md, GitBook's table of contents:
 *
 *   # Table of contents                       (ignored)
 *   * [Intro](README.md)                      a page
 *     * [Child](guide/child.md "Label")       a child page, with a sidebar label
 *   * [Status](https://status.example.com)    a link page
 *   * Reference                               a page without content (children under it)
 *   ## Group <a href="#grp" id="grp"></a>     a group; the anchor pins its slug
 *   * [Page](grp/page.md)                     a page of the group
 *
 * Parsed with remark, so Markdown escapes, `<path with spaces.md>` and any list marker or
 * indentation work as in any Markdown renderer.
 */
import type { Heading, Link, List, ListItem, Nodes, Paragraph, Root } from "mdast";
import { toString as mdastToString } from "mdast-util-to-string";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { firstTooDeepLine } from "../markdown/parse.js";
import { destinationToPath, isExternal, relativePath } from "./text.js";
import type { RepositoryWarning } from "./types.js";

export type SummaryNode =
  | { kind: "page"; title: string; label?: string; target: string; children: SummaryNode[]; line: number }
  | { kind: "link"; title: string; href: string; line: number }
  /** `* Title` without a link: a page without content, its children under it (GitBook's reading). */
  | { kind: "empty"; title: string; children: SummaryNode[]; line: number }
  | { kind: "group"; title: string; slug?: string; children: SummaryNode[]; line: number };

const parser = unified().use(remarkParse);

function lineOf(node: Nodes): number {
  return node.position?.start.line ?? 0;
}

function firstLink(node: Nodes): Link | undefined {
  if (node.type === "link") return node;
  if ("children" in node) {
    for (const child of node.children as Nodes[]) {
      const found = firstLink(child);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Parses SUMMARY.md into nodes; anything it cannot place becomes a warning. Lists nested deeper
 * than `maxDepth` are not read: `tooDeep` gives the line of the first item past it (the import
 * refuses such a table of contents).
 */
export function parseSummary(
  text: string,
  summaryPath: string,
  maxDepth = Number.POSITIVE_INFINITY,
): { nodes: SummaryNode[]; warnings: RepositoryWarning[]; tooDeep?: { line: number } } {
  // A line nested past what remark reads in reasonable time (its time grows with the square of
  // the nesting: a line of 5,000 list markers took 16 s) is too deep: only the lines before it are
  // read, to find an item past `maxDepth` there first.
  const lines = text.split(/\r\n?|\n/);
  const deep = Number.isFinite(maxDepth) ? firstTooDeepLine(lines.join("\n")) : undefined;
  const tree = parser.parse(deep === undefined ? text : lines.slice(0, deep).join("\n")) as Root;
  const warnings: RepositoryWarning[] = [];
  const nodes: SummaryNode[] = [];
  let container = nodes;
  let tooDeep: { line: number } | undefined;

  // `depth`: the level of the list's items (1 for a top-level list).
  const readList = (list: List, depth: number): SummaryNode[] => {
    if (depth > maxDepth) {
      tooDeep ??= { line: lineOf(list) };
      return [];
    }
    return list.children.flatMap((item) => readItem(item, depth));
  };

  const readItem = (item: ListItem, depth: number): SummaryNode[] => {
    const paragraph = item.children.find((c): c is Paragraph => c.type === "paragraph");
    const nested = item.children.filter((c): c is List => c.type === "list").flatMap((list) => readList(list, depth + 1));
    const link = paragraph ? firstLink(paragraph) : undefined;
    const line = lineOf(item);
    const text = paragraph ? mdastToString(paragraph).replace(/\s+/g, " ").trim() : "";
    if (!link && text) return [{ kind: "empty", title: text, children: nested, line }];
    if (!link) {
      warnings.push({
        code: "summary_item_ignored",
        message: `${summaryPath} line ${line}: the list item "${paragraph ? mdastToString(paragraph) : ""}" has no link; ignored${nested.length ? " (its children are kept one level up)" : ""}`,
      });
      return nested;
    }
    const title = mdastToString(link, { includeHtml: false }).trim();
    const url = link.url.trim();
    if (isExternal(url)) {
      if (nested.length) {
        warnings.push({
          code: "summary_item_ignored",
          message: `${summaryPath} line ${line}: a link page cannot have children; they are kept one level up`,
        });
      }
      return [{ kind: "link", title, href: url, line }, ...nested];
    }
    const target = destinationToPath(url);
    if (!target) {
      warnings.push({ code: "summary_item_ignored", message: `${summaryPath} line ${line}: "${title}" has an empty link; ignored` });
      return nested;
    }
    return [{ kind: "page", title, ...(link.title ? { label: link.title } : {}), target, children: nested, line }];
  };

  for (const node of tree.children) {
    if (node.type === "heading") {
      const heading = node as Heading;
      if (heading.depth === 1) continue;
      const html = heading.children
        .filter((c) => c.type === "html")
        .map((c) => (c as { value: string }).value)
        .join("");
      const anchor = /\bid\s*=\s*["']([^"']+)["']/.exec(html)?.[1] ?? /\bhref\s*=\s*["']#([^"']+)["']/.exec(html)?.[1];
      const group: SummaryNode = {
        kind: "group",
        title: mdastToString(heading, { includeHtml: false }).trim(),
        ...(anchor ? { slug: anchor } : {}),
        children: [],
        line: lineOf(heading),
      };
      nodes.push(group);
      container = group.children;
    } else if (node.type === "list") {
      for (const entry of readList(node, 1)) container.push(entry);
    } else if (node.type !== "html" && node.type !== "thematicBreak" && node.type !== "definition") {
      warnings.push({
        code: "summary_content_ignored",
        message: `${summaryPath} line ${lineOf(node)}: ${node.type} content is not part of the table of contents; ignored`,
      });
    }
  }
  if (deep !== undefined) tooDeep ??= { line: deep + 1 };
  return { nodes, warnings, ...(tooDeep ? { tooDeep } : {}) };
}

/** What formatSummary needs of a page. */
export type SummaryEntry =
  /** Without `path`: a page without a file, written `* Title` with its children under it. */
  | { kind: "page"; title: string; label?: string; path?: string; children: SummaryEntry[] }
  | { kind: "link"; title: string; href: string }
  | { kind: "group"; title: string; slug: string; children: SummaryEntry[] };

function escapeText(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\\[\]*_`<>&]/g, (c) => `\\${c}`);
}

/** A destination that reads back as exactly `path` (a file path is percent-decoded on read, a URL is not). */
function formatDestination(path: string, isUrl = false): string {
  const encoded = isUrl
    ? path.replace(/[<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    : path.replace(/[%<>#?]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return /[\s()]/.test(encoded) ? `<${encoded}>` : encoded;
}

function formatLabel(label: string): string {
  return ` "${label.replace(/\s+/g, " ").replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** Writes SUMMARY.md: top-level pages, then `##` groups; children indented by two spaces. */
export function formatSummary(entries: SummaryEntry[], summaryDir: string): string {
  const lines = ["# Table of contents", ""];
  const writeItems = (items: SummaryEntry[], depth: number) => {
    for (const item of items) {
      const indent = "  ".repeat(depth);
      if (item.kind === "link") {
        lines.push(`${indent}* [${escapeText(item.title)}](${formatDestination(item.href, true)})`);
      } else if (item.kind === "page" && item.path === undefined) {
        lines.push(`${indent}* ${escapeText(item.title)}`);
        writeItems(item.children, depth + 1);
      } else if (item.kind === "page" && item.path !== undefined) {
        const destination = formatDestination(relativePath(summaryDir, item.path));
        lines.push(`${indent}* [${escapeText(item.title)}](${destination}${item.label ? formatLabel(item.label) : ""})`);
        writeItems(item.children, depth + 1);
      }
    }
  };
  let pending: SummaryEntry[] = [];
  const flush = () => {
    if (pending.length) {
      writeItems(pending, 0);
      lines.push("");
    }
    pending = [];
  };
  for (const entry of entries) {
    if (entry.kind !== "group") {
      pending.push(entry);
      continue;
    }
    flush();
    const slug = entry.slug.replace(/["<>\s]/g, "-");
    lines.push(`## ${escapeText(entry.title)} <a href="#${slug}" id="${slug}"></a>`, "");
    pending = entry.children.filter((c) => c.kind !== "group");
    flush();
  }
  flush();
  return `${lines.join("\n").replace(/\n+$/, "")}\n`;
}
