/**
 * The body of a page as HTML with its outline, by the content renderer (src/content/html), and the
 * content assets that body needs: content.css and content.js always, KaTeX's stylesheet when it
 * has math, the mermaid bundle when it has diagrams (before content.js, which starts it).
 */
import type { JSONDocument } from "../../content/document/types.js";
import { contentAssets, type RenderEnv, raw, renderDocument, type SafeHtml } from "../../content/html/index.js";
import type { OutlineItem } from "./layout.js";

export type BodyEnv = RenderEnv;
export type { RenderedFile } from "../../content/html/index.js";

export interface RenderedBody {
  html: SafeHtml;
  outline: OutlineItem[];
  /** Stylesheets the body needs, by plain asset name, in order. */
  styles: string[];
  /** Scripts the body needs (`defer`), by plain asset name, in order. */
  scripts: string[];
}

export function renderBody(document: JSONDocument, env: BodyEnv): RenderedBody {
  const rendered = renderDocument(document, env);
  const math = rendered.features.has("math");
  const mermaid = rendered.features.has("mermaid");
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
