/**
 * The block editor's page: a root element carrying what the editor's script (src/apps/web/editor/)
 * starts from in `data-*` attributes (the contract of docs/editor-model.md and issue 23): the
 * document, or the collaboration server's address and token, and the addresses it saves and
 * uploads to. Without scripts the page says so and links the Markdown editor.
 */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import type { ChangeRequestRow } from "../../../../db/schema.js";
import { CHANGES_STYLE, contentStyle, type Named } from "./changes.views.js";

export interface BlockEditorView {
  org: Named;
  space: Named;
  changeRequest: ChangeRequestRow;
  page: { id: string; title: string; path: string };
  /** The editor JSON of the page's document (toEditorDoc), when the page is not edited live. */
  editorDocument: unknown;
  /** The live collaboration's address, document name and token; absent: the editor saves over HTTP. */
  collab?: { url: string; document: string; token: string } | undefined;
  user: { name: string; color: string };
  /** Files of the change request a block may show, by id. */
  files: Record<string, { url: string; name: string; contentType: string }>;
  /** Pages of the change request for the link picker. */
  pages: Array<{ id: string; title: string; path: string }>;
  maxUploadBytes: number;
  csrf: string;
  editorAssets: { prefix: string };
}

export function blockEditorPage(view: BlockEditorView): SafeHtml {
  const base = `/app/o/${view.org.id}/s/${view.space.id}/~/changes/${view.changeRequest.number}`;
  const pageBase = `${base}/p/${view.page.id}`;
  const collab = view.collab
    ? html` data-collab-url="${view.collab.url}" data-collab-document="${view.collab.document}" data-collab-token="${view.collab.token}"`
    : html` data-document="${JSON.stringify(view.editorDocument)}"`;
  return html`${CHANGES_STYLE}${contentStyle()}<link rel="stylesheet" href="${view.editorAssets.prefix}/editor.css">
    <div class="qe-page">
      <div class="qe-head">
        <h1>${view.page.title || "Untitled page"}</h1>
        <p class="muted">In change request <a href="${base}">#${view.changeRequest.number} “${view.changeRequest.subject}”</a>. ${view.page.path}.
          <a href="${pageBase}/markdown">Markdown</a> · <a href="${pageBase}/settings">Title, slug and other settings</a></p>
        <p class="qe-status" id="qe-status" role="status" aria-live="polite" data-state="loading">Loading the editor…</p>
      </div>
      <noscript><p class="error">The block editor needs JavaScript. <a href="${pageBase}/markdown">Edit the page's Markdown</a> instead.</p></noscript>
      <div class="qe-layout"><div class="qe-main">
      <div id="quire-editor" class="qe-root q-content"${collab}
        data-save-url="${pageBase}/edit.json" data-upload-url="${pageBase}/files.json" data-markdown-url="${pageBase}/markdown.json"
        data-anchors-url="${base}/p/:pageId/anchors.json"
        data-comments-url="${pageBase}/comments.json" data-resolve-comment-url="${base}/comments/:commentId/resolve.json"
        data-reply-comment-url="${base}/comments/:commentId/replies.json"
        data-csrf="${view.csrf}" data-page-id="${view.page.id}" data-storage-key="quire-editor:${view.changeRequest.id}:${view.page.id}"
        data-user-name="${view.user.name}" data-user-color="${view.user.color}"
        data-files="${JSON.stringify(view.files)}" data-pages="${JSON.stringify(view.pages)}" data-max-upload="${String(view.maxUploadBytes)}"></div></div>
      <aside id="qe-comments" class="qe-comments" aria-label="Comments"><h2>Comments</h2><p class="muted">Loading…</p></aside>
      </div>
    </div>
    <script defer src="${view.editorAssets.prefix}/editor.js"></script>`;
}
