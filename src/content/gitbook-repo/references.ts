/**
 * The repository paths a page's Markdown refers to: images and file links, HTML `src`/`href`,
 * `{% file src %}`, `{% include %}` and cover images in front matter. A scan over the text rather
 * than a full parse: a candidate only counts when it names a file that exists in the tree, so a
 * false candidate costs nothing (one inside a code block would add that file, which is harmless).
 */
import { decodeEntities, destinationToPath, isExternal, splitFrontMatter } from "./text.js";

/** Reads a Markdown link destination starting at `start` (after "("): `<...>` or balanced parentheses. */
function readDestination(text: string, start: number): string | undefined {
  let i = start;
  while (text[i] === " " || text[i] === "\t" || text[i] === "\n") i++;
  if (text[i] === "<") {
    const end = text.indexOf(">", i);
    if (end < 0 || text.slice(i, end).includes("\n")) return undefined;
    return text.slice(i, end + 1);
  }
  let depth = 0;
  const from = i;
  for (; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "(") depth++;
    else if (c === ")") {
      if (depth === 0) break;
      depth--;
    } else if (/\s/.test(c)) break;
  }
  return i > from ? text.slice(from, i) : undefined;
}

const HTML_ATTR = /\b(?:src|href|srcset|data-src|poster)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
const INCLUDE = /\{%-?\s*include\s+(?:"([^"]+)"|'([^']+)')/g;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)/gm;
const COVER = /^(?:cover|coverDark|coverDarkMode)\s*:\s*["']?([^"'\n]+?)["']?\s*$/gm;

/** Repository-relative references (not yet resolved against the page's folder), deduplicated. */
export function extractReferences(markdown: string): string[] {
  const found = new Set<string>();
  const add = (raw: string | undefined, decode: (s: string) => string = destinationToPath) => {
    if (!raw) return;
    const trimmed = raw.trim();
    if (!trimmed || trimmed.startsWith("#") || isExternal(trimmed)) return;
    const path = decode(trimmed);
    if (path && !isExternal(path)) found.add(path);
  };

  for (let i = markdown.indexOf("]("); i >= 0; i = markdown.indexOf("](", i + 2)) {
    add(readDestination(markdown, i + 2));
  }
  for (const match of markdown.matchAll(REFERENCE_DEFINITION)) add(match[1]);
  for (const match of markdown.matchAll(HTML_ATTR)) {
    const value = decodeEntities(match[1] ?? match[2] ?? "");
    // srcset is "url 1x, url 2x"; other attributes hold one URL.
    const urls = /srcset/i.test(match[0]) ? value.split(",").map((part) => part.trim().split(/\s+/)[0]) : [value];
    for (const url of urls) add(url, htmlPath);
  }
  for (const match of markdown.matchAll(INCLUDE)) add(match[1] ?? match[2], htmlPath);
  const { yaml } = splitFrontMatter(markdown);
  if (yaml) for (const match of yaml.matchAll(COVER)) add(match[1], htmlPath);
  return [...found];
}

/** Paths in HTML attributes and tags are percent-encoded URLs, without Markdown escapes. */
function htmlPath(value: string): string {
  return destinationToPath(value.replace(/\\/g, "\\\\"));
}
