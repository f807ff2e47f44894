import { createRequire } from "node:module";
import type Katex from "katex";
import { LRUCache } from "lru-cache";

/** Rendered formulas: KaTeX takes milliseconds per formula, and pages are rendered again and again. */
const cache = new LRUCache<string, string>({ max: 5_000, maxSize: 8_000_000, sizeCalculation: (html) => html.length + 1 });

/** KaTeX is ~11 MB resident: required on the first formula rendered, not when the server starts. */
let loaded: typeof Katex | undefined;
function katex(): typeof Katex {
  loaded ??= createRequire(import.meta.url)("katex") as typeof Katex;
  return loaded;
}

export function clearMathCache(): void {
  cache.clear();
}

/**
 * TeX to HTML+MathML with KaTeX, on the server. KaTeX escapes the formula's text itself, `trust`
 * stays off (so \href, \url, \htmlClass… render as text, never as links or attributes), and
 * errors render the source in red instead of throwing. maxSize/maxExpand bound what one formula
 * can cost (macro bombs).
 */
export function renderMath(formula: string, displayMode: boolean): string {
  const key = `${displayMode ? "D" : "I"}${formula}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const html = renderUncached(formula, displayMode);
  cache.set(key, html);
  return html;
}

function renderUncached(formula: string, displayMode: boolean): string {
  try {
    return katex().renderToString(formula, {
      displayMode,
      throwOnError: false,
      trust: false,
      strict: "ignore",
      output: "htmlAndMathml",
      maxSize: 50,
      maxExpand: 500,
    });
  } catch {
    // throwOnError:false covers parse errors; anything else (e.g. maxExpand) falls back to the text.
    return "";
  }
}
