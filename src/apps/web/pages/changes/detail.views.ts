/**
 * A change request's page: its description, conflicts, changes (page by page and block by block,
 * with comments in place), conversation, and side panel. Pure, every value escaped by `html`; a
 * button is only shown when the policy the API applies would allow the action (the handlers check
 * again on post).
 */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import { CHANGES_STYLE, contentStyle, csrfField, day, nameOf, statusBadge } from "./changes.views.js";
import { commentHtml } from "./comments.views.js";
import type { DetailView } from "./detail.model.js";
import { conflictsHtml, pageDiffHtml } from "./diff.views.js";
import { sidebar } from "./sidebar.views.js";

export function detailPage(view: DetailView): SafeHtml {
  const cr = view.changeRequest;
  const base = `/app/o/${view.org.id}/s/${view.space.id}/~/changes/${cr.number}`;
  const general = view.comments.filter((c) => c.pageId === null);
  const shownPages = new Set(view.pages.map((p) => p.pageId));
  const elsewhere = view.comments.filter((c) => c.pageId !== null && !shownPages.has(c.pageId));
  const titles = new Map(view.headPages.map((p) => [p.id, p.title]));
  return html`${CHANGES_STYLE}${contentStyle()}<div class="cr-wide">
    <h1>${cr.subject || "Untitled change request"} <span class="muted">#${cr.number}</span> ${statusBadge(cr.status)}</h1>
    <p class="muted">Opened by ${nameOf(view.users, cr.createdBy)} on ${day(cr.createdAt)} (UTC) · updated ${day(cr.updatedAt)}</p>
    ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ""}
    <div class="cr-grid"><div>
      ${view.description && view.description.nodes.length > 0 ? html`<div class="card" id="description">${view.content.body(view.description)}</div>` : ""}
      ${
        view.may.update && cr.status !== "merged"
          ? html`<details id="edit-details"><summary class="muted">Edit subject and description</summary>
            <form method="post" action="${base}/details" class="card">${csrfField(view.csrf)}
              <label>Subject <input name="subject" value="${cr.subject}" maxlength="100" size="50"></label>
              <textarea name="description" rows="5" maxlength="20000" aria-label="Description" placeholder="What and why, in Markdown">${view.descriptionMarkdown}</textarea>
              <button type="submit">Save</button></form></details>`
          : ""
      }
      ${conflictsHtml(view)}
      <h2>Changes</h2>
      ${view.pages.length > 0 ? view.pages.map((p) => pageDiffHtml(view, base, p)) : html`<p class="muted">No page changes yet.</p>`}
      ${view.otherChanges.length > 0 ? html`<div class="card"><h3>Other changes</h3><ul>${view.otherChanges.map((c) => html`<li>${c}</li>`)}</ul></div>` : ""}
      ${
        elsewhere.length > 0
          ? html`<h2>Comments on unchanged pages</h2>${elsewhere.map((c) => html`<p class="muted">${titles.get(c.pageId ?? "") ?? "A page"}</p>${commentHtml(view, base, c)}`)}`
          : ""
      }
      <h2>Conversation</h2>
      ${general.length > 0 ? general.map((c) => commentHtml(view, base, c)) : html`<p class="muted">No comments yet.</p>`}
      ${
        view.may.comment
          ? html`<form method="post" action="${base}/comments" id="comment-form">${csrfField(view.csrf)}
            <textarea name="body" rows="4" required maxlength="20000" placeholder="Comment in Markdown" aria-label="Comment"></textarea>
            <button type="submit">Comment</button></form>`
          : ""
      }
    </div>${sidebar(view, base)}</div></div>`;
}
