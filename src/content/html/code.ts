import { createRequire } from "node:module";
import type { HLJSApi } from "highlight.js";
import { LRUCache } from "lru-cache";
import { grammarOf } from "./code-languages.js";
import { escapeHtml } from "./safe-html.js";

/**
 * Syntax highlighting on the server with highlight.js: synchronous and a few microseconds per line
 * (shiki is nicer but async and needs a WASM regex engine; see bench/render.bench.ts for the cost).
 * No language auto-detection: it runs every grammar over the text, which is what makes
 * highlighting slow; an unknown or missing syntax renders escaped plain text.
 */

/**
 * highlight.js with its grammars is ~17 MB resident: required on the first code block rendered,
 * not when the server starts (most processes never render a page). Synchronous, as rendering is.
 */
let loaded: HLJSApi | undefined;
function hljs(): HLJSApi {
  loaded ??= createRequire(import.meta.url)("highlight.js") as HLJSApi;
  return loaded;
}

/**
 * Highlighted blocks by language and source. Pages are rendered again and again with the same code
 * (every visit to an uncached page, the member app's previews), and highlighting is most of a
 * code-heavy page's render time. Bounded by the size of the HTML kept (~16 MB of UTF-16).
 */
const cache = new LRUCache<string, string[]>({
  max: 5_000,
  maxSize: 8_000_000,
  sizeCalculation: (lines) => lines.reduce((n, l) => n + l.length, 1),
});

/** For benchmarks that measure a cold render. */
export function clearHighlightCache(): void {
  cache.clear();
}

/** Beyond this many characters a block is shown unhighlighted: a huge paste must not stall a page. */
const MAX_HIGHLIGHT = 100_000;

/** How readers know the common languages by name; any other syntax is shown as written. */
const LABELS: Record<string, string> = {
  bash: "Bash",
  c: "C",
  cpp: "C++",
  csharp: "C#",
  cs: "C#",
  css: "CSS",
  dockerfile: "Dockerfile",
  go: "Go",
  graphql: "GraphQL",
  html: "HTML",
  java: "Java",
  javascript: "JavaScript",
  js: "JavaScript",
  json: "JSON",
  jsx: "JSX",
  kotlin: "Kotlin",
  markdown: "Markdown",
  md: "Markdown",
  php: "PHP",
  powershell: "PowerShell",
  py: "Python",
  python: "Python",
  rb: "Ruby",
  ruby: "Ruby",
  rust: "Rust",
  rs: "Rust",
  sh: "Shell",
  shell: "Shell",
  sql: "SQL",
  swift: "Swift",
  toml: "TOML",
  ts: "TypeScript",
  tsx: "TSX",
  typescript: "TypeScript",
  xml: "XML",
  yaml: "YAML",
  yml: "YAML",
  zsh: "Zsh",
};

/** The label of a code block's language in its header (undefined without a syntax). */
export function syntaxLabel(syntax: string | undefined): string | undefined {
  const name = syntax?.trim();
  if (!name) return undefined;
  return LABELS[name.toLowerCase()] ?? name.slice(0, 40);
}

export function languageOf(syntax: string | undefined): string | undefined {
  return grammarOf(syntax, (name) => hljs().getLanguage(name));
}

/**
 * The highlighted HTML of each line. highlight.js output is escaped text and `<span class="hljs-…">`
 * tags whose spans may cross line breaks (comments, strings); each line closes the spans still open
 * at its end and the next line reopens them, so every line is balanced on its own.
 */
export function highlightLines(lines: readonly string[], language: string | undefined): string[] {
  const source = lines.join("\n");
  if (!language || source.length > MAX_HIGHLIGHT) return lines.map(escapeHtml);
  const key = `${language}\u0000${source}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const result = splitHighlighted(source, language, lines);
  cache.set(key, result);
  return result;
}

function splitHighlighted(source: string, language: string, lines: readonly string[]): string[] {
  let highlighted: string;
  try {
    highlighted = hljs().highlight(source, { language, ignoreIllegals: true }).value;
  } catch {
    return lines.map(escapeHtml);
  }
  const out: string[] = [];
  const open: string[] = [];
  for (const line of highlighted.split("\n")) {
    let text = open.join("");
    const tag = /<span[^>]*>|<\/span>/g;
    let last = 0;
    let match: RegExpExecArray | null;
    while ((match = tag.exec(line))) {
      text += line.slice(last, match.index) + match[0];
      last = tag.lastIndex;
      if (match[0] === "</span>") open.pop();
      else open.push(match[0]);
    }
    text += line.slice(last) + "</span>".repeat(open.length);
    out.push(text);
  }
  // highlight.js keeps the text as given, so the line count matches; guard anyway.
  return out.length === lines.length ? out : lines.map(escapeHtml);
}
