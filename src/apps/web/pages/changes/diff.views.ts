/** A change request's changes page by page, block by block, with the comments on them; and its conflicts side by side. */
import type { DocumentBlock, JSONDocument } from "../../../../content/document/types.js";
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import type { ContentView } from "./changes.views.js";
import type { CommentView } from "./comments.model.js";
import { commentForm, commentHtml } from "./comments.views.js";
import type { DetailView } from "./detail.model.js";
import { type BlockChange, blockDiff, movedAndChanged, textDiff } from "./diff.model.js";
import type { PageChangeView } from "./page-changes.model.js";

function blockHtml(view: DetailView, base: string, page: PageChangeView, change: BlockChange, comments: CommentView[]): SafeHtml {
  const block = (change.after ?? change.before) as DocumentBlock;
  const kind = change.kind === "moved" && movedAndChanged(change) ? "moved and changed" : change.kind;
  const detail =
    change.kind === "changed" || (change.kind === "moved" && movedAndChanged(change))
      ? html`<div class="textdiff" aria-label="What changed in the text">${textDiff(change.before, change.after).map((part) =>
          part.added ? html`<ins>${part.text}</ins>` : part.removed ? html`<del>${part.text}</del>` : part.text,
        )}</div>`
      : "";
  const here = comments.filter((c) => c.nodeKey === change.key);
  const mayTarget = change.kind !== "removed" && page.inHead;
  return html`<div class="block ${change.kind}" data-key="${change.key}" data-kind="${change.kind}">
    ${change.kind === "unchanged" ? "" : html`<span class="kind">${kind}</span>`}
    <div class="content">${view.content.block(block, change.key)}</div>${detail}
    ${here.map((c) => commentHtml(view, base, c))}
    ${mayTarget ? commentForm(view, base, { page: page.pageId, node: change.key }, "Comment on this block") : ""}</div>`;
}

export function pageDiffHtml(view: DetailView, base: string, page: PageChangeView): SafeHtml {
  const comments = view.comments.filter((c) => c.pageId === page.pageId);
  const diff = page.isDocument ? blockDiff(page.before, page.after) : [];
  const parts: SafeHtml[] = [];
  let run: BlockChange[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const blocks = run.map((c) => blockHtml(view, base, page, c, comments));
    parts.push(
      run.length <= 2
        ? html`${blocks}`
        : html`<details class="unchanged-run"><summary>${run.length} unchanged blocks</summary>${blocks}</details>`,
    );
    run = [];
  };
  for (const change of diff) {
    const commented = comments.some((c) => c.nodeKey === change.key);
    if (change.kind === "unchanged" && !commented) run.push(change);
    else {
      flush();
      parts.push(blockHtml(view, base, page, change, comments));
    }
  }
  flush();
  const keys = new Set(diff.map((c) => c.key));
  const pageComments = comments.filter((c) => !c.nodeKey || !keys.has(c.nodeKey));
  const fields = page.fields.map(
    (f) =>
      html`<li>${f.name}: ${f.before !== undefined ? html`<del>${show(f.before)}</del>` : ""} ${f.after !== undefined ? html`<ins>${show(f.after)}</ins>` : ""}</li>`,
  );
  const edit =
    view.may.editContent && view.writable && page.inHead && page.isDocument
      ? html`<a class="button" href="${base}/p/${page.pageId}/edit">Edit</a>`
      : "";
  return html`<section class="card" id="page-${page.pageId}" data-page="${page.pageId}">
    <h3>${page.title || "Untitled page"} ${page.kinds.map((k) => html`<span class="badge ${k === "edited" ? "changed" : k}">${k}</span> `)} ${edit}</h3>
    <p class="muted">${page.path}</p>
    ${fields.length > 0 ? html`<ul>${fields}</ul>` : ""}
    ${page.isDocument ? (diff.some((c) => c.kind !== "unchanged") ? parts : html`<p class="muted">The text of this page did not change.</p>${parts}`) : html`<p class="muted">Not a document page.</p>`}
    ${pageComments.map((c) => commentHtml(view, base, c))}
    ${page.inHead ? commentForm(view, base, { page: page.pageId }, "Comment on this page") : ""}
  </section>`;
}

function show(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

function conflictSide(content: ContentView, value: unknown): SafeHtml {
  if (value === undefined) return html`<p class="muted">(absent)</p>`;
  if (typeof value === "object" && value !== null) {
    const record = value as { object?: string; nodes?: unknown[] };
    if (record.object === "document") return content.body(value as JSONDocument);
    if (record.object === "block") return content.block(value as DocumentBlock, "conflict");
    return html`<pre>${JSON.stringify(value, null, 2)}</pre>`;
  }
  return html`<p>${String(value)}</p>`;
}

export function conflictsHtml(view: DetailView): SafeHtml {
  if (view.conflicts.length === 0) return html``;
  return html`<section id="conflicts"><h2>Conflicts with the primary content (${view.conflicts.length})</h2>
    <p class="muted">The primary content changed the same things since this change request started. Edit the pages below in this change request (keep the version you want), then merge again.</p>
    ${view.conflicts.map(
      (c) => html`<div class="card conflict-item"><p><strong>${c.pageTitle ?? c.kind}</strong>: ${c.message}</p>
        <div class="conflict"><div><h4>Before both (base)</h4>${conflictSide(view.content, c.base)}</div><div><h4>Primary content now</h4>${conflictSide(view.content, c.primary)}</div><div><h4>This change request</h4>${conflictSide(view.content, c.changeRequest)}</div></div></div>`,
    )}</section>`;
}
