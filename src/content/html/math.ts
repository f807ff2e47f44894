import katex from "katex";

/**
 * TeX to HTML+MathML with KaTeX, on the server. KaTeX escapes the formula's text itself, `trust`
 * stays off (so \href, \url, \htmlClass… render as text, never as links or attributes), and
 * errors render the source in red instead of throwing. maxSize/maxExpand bound what one formula
 * can cost (macro bombs).
 */
export function renderMath(formula: string, displayMode: boolean): string {
  try {
    return katex.renderToString(formula, {
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
