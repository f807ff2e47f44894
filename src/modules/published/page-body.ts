/**
 * The body of a page as HTML, with its outline. This is the one place the site calls the content
 * renderer; until it is merged, a page renders as its plain text by section (headings with anchors),
 * which is escaped like everything else.
 */
import { documentToPlainText } from "../../content/document/index.js";
import type { ContentRef, JSONDocument } from "../../content/document/types.js";
import { html, type SafeHtml } from "../web/web.html.js";
import type { OutlineItem } from "./layout.js";

export interface RenderedFile {
  url: string;
  name: string;
  contentType: string;
  size?: number;
  width?: number;
  height?: number;
}

/** What the renderer asks the site (the renderer's RenderEnv). */
export interface BodyEnv {
  link(ref: ContentRef): { href: string; title?: string } | undefined;
  file(fileId: string): RenderedFile | undefined;
  reusableContent(id: string, spaceId?: string): JSONDocument | undefined;
  expression(expression: string): string;
  condition(expression: string): boolean;
}

export interface RenderedBody {
  html: SafeHtml;
  outline: OutlineItem[];
  /** Assets the body needs, by plain name. */
  assets: string[];
}

function slug(text: string, taken: Set<string>): string {
  const base =
    text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, "-")
      .replace(/^-+|-+$/g, "") || "section";
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

export function renderBody(document: JSONDocument, _env: BodyEnv): RenderedBody {
  const outline: OutlineItem[] = [];
  const taken = new Set<string>();
  const parts = documentToPlainText(document).map((section) => {
    const paragraphs = section.text.split("\n").filter((p) => p.trim() !== "");
    let heading: SafeHtml | string = "";
    if (section.heading) {
      const id = slug(section.heading.text, taken);
      const level = section.heading.level + 1;
      outline.push({ id, title: section.heading.text, level: Math.min(3, level) as 1 | 2 | 3 });
      heading = level === 2 ? html`<h2 id="${id}">${section.heading.text}</h2>` : html`<h3 id="${id}">${section.heading.text}</h3>`;
    }
    return html`${heading}${paragraphs.map((p) => html`<p>${p}</p>`)}`;
  });
  return { html: html`<div class="q-body-text">${parts}</div>`, outline, assets: [] };
}

/** Static files the body renderer needs (served fingerprinted by the site). */
export function bodyAssets(): Array<{ name: string; path: string; contentType: string }> {
  return [];
}
