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
  /** The body's opening words as plain text (its first paragraph of some length), for a page without a description. */
  summary: string;
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
    summary: summaryOf(rendered.html),
    outline: rendered.outline,
    styles: ["content.css", ...(math ? ["katex/katex.min.css"] : [])],
    scripts: [...(mermaid ? ["mermaid.min.js"] : []), "content.js"],
  };
}

/** Static files the body renderer needs (served fingerprinted by the site). */
export function bodyAssets(): Array<{ name: string; path: string; contentType: string }> {
  return contentAssets();
}

/** Characters of a summary at most: what search engines show of a description. */
const SUMMARY_CHARS = 160;
/** A paragraph shorter than this (a caption, a label) is passed over when a longer one follows. */
const SUMMARY_MIN_CHARS = 60;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", nbsp: " " };

/** The text of the body's first paragraph of SUMMARY_MIN_CHARS or more (else its first), cut at a word near SUMMARY_CHARS. */
export function summaryOf(bodyHtml: string): string {
  let first = "";
  for (const match of bodyHtml.matchAll(/<p(?:\s[^>]*)?>([\s\S]*?)<\/p>/g)) {
    const text = (match[1] ?? "")
      .replace(/<[^>]*>/g, "")
      .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => ENTITIES[name] ?? "")
      .replace(/\s+/g, " ")
      .trim();
    if (!text) continue;
    first ||= text;
    if (text.length >= SUMMARY_MIN_CHARS) {
      first = text;
      break;
    }
  }
  if (first.length <= SUMMARY_CHARS) return first;
  const cut = first.slice(0, SUMMARY_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > SUMMARY_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, "")}…`;
}
