import hljs from "highlight.js";
import { escapeHtml } from "./safe-html.js";

/**
 * Syntax highlighting on the server with highlight.js: synchronous and a few microseconds per line
 * (shiki is nicer but async and needs a WASM regex engine; see bench/render.bench.ts for the cost).
 * No language auto-detection: it runs every grammar over the text, which is what makes
 * highlighting slow; an unknown or missing syntax renders escaped plain text.
 */

/** Beyond this many characters a block is shown unhighlighted: a huge paste must not stall a page. */
const MAX_HIGHLIGHT = 100_000;

const ALIASES: Record<string, string> = { sh: "bash", shell: "bash", zsh: "bash", console: "bash", jsx: "javascript", tsx: "typescript" };

export function languageOf(syntax: string | undefined): string | undefined {
  if (!syntax) return undefined;
  const name = syntax.trim().toLowerCase();
  const candidate = ALIASES[name] ?? name;
  return hljs.getLanguage(candidate) ? candidate : undefined;
}

/**
 * The highlighted HTML of each line. highlight.js output is escaped text and `<span class="hljs-…">`
 * tags whose spans may cross line breaks (comments, strings); each line closes the spans still open
 * at its end and the next line reopens them, so every line is balanced on its own.
 */
export function highlightLines(lines: readonly string[], language: string | undefined): string[] {
  const source = lines.join("\n");
  if (!language || source.length > MAX_HIGHLIGHT) return lines.map(escapeHtml);
  let highlighted: string;
  try {
    highlighted = hljs.highlight(source, { language, ignoreIllegals: true }).value;
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
