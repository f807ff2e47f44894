/** Editing a page's Markdown in a change request, with its preview (live when scripts run). */

import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import type { ChangeRequestRow } from "../../../../db/schema.js";
import { EDIT_SCRIPT_PATH } from "./changes.client.js";
import { CHANGES_STYLE, contentStyle, csrfField, type Named } from "./changes.views.js";

export interface EditView {
  org: Named;
  space: Named;
  changeRequest: ChangeRequestRow;
  page: { id: string; title: string; path: string };
  markdown: string;
  /** The Markdown read and rendered: its title, its document's HTML, notes from reading it. */
  preview: { title?: string | undefined; body: SafeHtml; warnings: string[] };
  csrf: string;
}

export function previewHtml(preview: EditView["preview"]): SafeHtml {
  return html`${preview.title ? html`<h1>${preview.title}</h1>` : ""}${preview.body}${
    preview.warnings.length > 0
      ? html`<div class="warn"><p>Notes from reading the Markdown:</p><ul>${preview.warnings.map((w) => html`<li>${w}</li>`)}</ul></div>`
      : ""
  }`;
}

export function editPage(view: EditView): SafeHtml {
  const base = `/app/o/${view.org.id}/s/${view.space.id}/~/changes/${view.changeRequest.number}`;
  return html`${CHANGES_STYLE}${contentStyle()}<div class="cr-wide">
    <h1>Edit “${view.page.title || "Untitled page"}”</h1>
    <p class="muted">In change request #${view.changeRequest.number} “${view.changeRequest.subject}”. ${view.page.path}. The first <code># heading</code> is the page title.</p>
    <form method="post" action="${base}/p/${view.page.id}/markdown" id="edit-form" data-preview="${base}/p/${view.page.id}/preview">${csrfField(view.csrf)}
      <div class="editor">
        <div><textarea name="markdown" id="markdown" aria-label="Markdown" maxlength="2000000">${view.markdown}</textarea></div>
        <div class="preview" id="preview" aria-live="polite">${previewHtml(view.preview)}</div>
      </div>
      <p><button type="submit" name="action" value="save" class="primary">Save to the change request</button>
        <button type="submit" name="action" value="preview" id="preview-button">Preview</button>
        <a href="${base}#page-${view.page.id}">Cancel</a> · <a href="${base}/p/${view.page.id}/edit">Block editor</a> · <a href="${base}/p/${view.page.id}/settings">Title, slug and other settings</a></p>
    </form></div>
    <script src="${EDIT_SCRIPT_PATH}" defer></script>`;
}
