/**
 * KaTeX previews of math while it is written: the same library and options as the site's
 * renderer (content/html/math.ts: no `trust`, bounded size and expansion), so what the preview
 * shows is what readers get. A formula KaTeX cannot read shows KaTeX's message instead, in the
 * preview; nothing is thrown.
 */
import { loadKatex } from "./lazy.js";
import { el } from "./views.js";

/** The formula each preview was last asked to show: a slower earlier render never overwrites a later one. */
const latest = new WeakMap<HTMLElement, string>();

export function katexError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^KaTeX parse error: /, "");
}

/** Renders `formula` into `target` (display or inline), or the reason it cannot. */
export async function renderMathPreview(target: HTMLElement, formula: string, displayMode: boolean): Promise<void> {
  latest.set(target, formula);
  if (!formula.trim()) {
    target.replaceChildren(el("span", { class: "qe-math-empty" }, "The formula shows here"));
    target.dataset.state = "empty";
    return;
  }
  let katex: Awaited<ReturnType<typeof loadKatex>>;
  try {
    katex = await loadKatex();
  } catch {
    if (latest.get(target) !== formula) return;
    target.replaceChildren(el("span", { class: "qe-math-error" }, "The preview could not be loaded; the formula is kept as written."));
    target.dataset.state = "error";
    return;
  }
  if (latest.get(target) !== formula) return;
  try {
    const html = katex.renderToString(formula, {
      displayMode,
      throwOnError: true,
      trust: false,
      strict: "ignore",
      output: "htmlAndMathml",
      maxSize: 50,
      maxExpand: 500,
    });
    // KaTeX's output: escaped text and its own markup (trust off: no links, no attributes from the formula).
    target.innerHTML = html;
    target.dataset.state = "ok";
  } catch (error) {
    target.replaceChildren(el("span", { class: "qe-math-error", role: "status" }, katexError(error)));
    target.dataset.state = "error";
  }
}
