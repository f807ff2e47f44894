/**
 * How the change-request pages show document content (blocks of a diff, a conflict's versions, the
 * edit preview). The published site's renderer (src/content/html) is not merged yet; until it is,
 * blocks are shown as their text in the closest plain element (a heading, a code block, a list),
 * always escaped. Swapping in `renderDocument(document, env).html` happens here only.
 */
import { documentText } from "../../content/document/plain-text.js";
import type { DocumentBlock, JSONDocument } from "../../content/document/types.js";
import { html, type SafeHtml } from "./web.html.js";

function childBlocks(block: DocumentBlock): DocumentBlock[] {
  const nodes = (block as { nodes?: unknown[] }).nodes ?? [];
  return nodes.filter((n): n is DocumentBlock => typeof n === "object" && n !== null && (n as { object?: string }).object === "block");
}

const MAX_DEPTH = 16;

/** One block as HTML (escaped text in a matching element). */
export function renderBlock(block: DocumentBlock, depth = 0): SafeHtml {
  const text = documentText(block);
  const type = block.type as string;
  if (depth > MAX_DEPTH) return html`<p>${text}</p>`;
  if (type === "heading-1") return html`<h2 class="q-h">${text}</h2>`;
  if (type === "heading-2") return html`<h3 class="q-h">${text}</h3>`;
  if (type === "heading-3") return html`<h4 class="q-h">${text}</h4>`;
  if (type === "code") return html`<pre class="q-code"><code>${text}</code></pre>`;
  if (type === "list-ordered" || type === "list-unordered" || type === "list-tasks") {
    const items = childBlocks(block).map((item) => html`<li>${childBlocks(item).map((child) => renderBlock(child, depth + 1))}</li>`);
    return type === "list-ordered" ? html`<ol>${items}</ol>` : html`<ul>${items}</ul>`;
  }
  if (type === "blockquote" || type === "hint" || type === "expandable" || type === "tabs" || type === "stepper") {
    return html`<div class="q-box q-${type}">${childBlocks(block).length > 0 ? childBlocks(block).map((child) => renderBlock(child, depth + 1)) : html`<p>${text}</p>`}</div>`;
  }
  if (type === "divider") return html`<hr>`;
  if (text.trim() === "") return html`<p class="muted">(${type})</p>`;
  return html`<p>${text}</p>`;
}

/** A whole document. */
export function renderBody(document: JSONDocument | undefined): SafeHtml {
  const nodes = (document?.nodes ?? []) as DocumentBlock[];
  if (nodes.length === 0) return html`<p class="muted">(empty page)</p>`;
  return html`${nodes.map((node) => renderBlock(node))}`;
}
