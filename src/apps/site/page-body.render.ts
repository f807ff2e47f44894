/**
 * The body of a page as HTML with its outline, as the content renderer made it (src/content/html), and the
 * content assets that body needs: content.css and content.js always, KaTeX's stylesheet when it
 * has math, the mermaid bundle when it has diagrams (before content.js, which starts it).
 */
import { contentAssets, raw, type SafeHtml } from "../../content/html/index.js";
import type { RenderedHtml } from "../../content/html/off-thread.js";
import type { OutlineItem } from "./site-context.model.js";

export interface RenderedBody {
  html: SafeHtml;
  outline: OutlineItem[];
  /** Stylesheets the body needs, by plain asset name, in order. */
  styles: string[];
  /** Scripts the body needs (`defer`), by plain asset name, in order. */
  scripts: string[];
}

/** A page's rendered document (html/off-thread.ts, on either thread) with the assets it needs. */
export function bodyOf(rendered: RenderedHtml): RenderedBody {
  const math = rendered.features.includes("math");
  const mermaid = rendered.features.includes("mermaid");
  return {
    html: raw(rendered.html),
    outline: rendered.outline,
    styles: ["content.css", ...(math ? ["katex/katex.min.css"] : [])],
    scripts: [...(mermaid ? ["mermaid.min.js"] : []), "content.js"],
  };
}

/** Static files the body renderer needs (served fingerprinted by the site). */
export function bodyAssets(): Array<{ name: string; path: string; contentType: string }> {
  return contentAssets();
}
