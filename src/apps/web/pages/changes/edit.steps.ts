/**
 * Editing a page's Markdown in a change request: the page (the same checks as the content
 * operation), its preview (the Markdown read as the content operation reads it, rendered in the
 * change request), and the edit page with both.
 */
import type { FastifyReply } from "fastify";
import { headingAnchors } from "../../../../content/document/anchor.js";
import type { JSONDocument } from "../../../../content/document/types.js";
import type { EditorNode } from "../../../../content/editor/index.js";
import { editorModel } from "../../../../content/editor/lazy.js";
import { html, raw, type SafeHtml } from "../../../../content/html/safe-html.js";
import { convertMarkdown } from "../../../../content/markdown/off-thread.js";
import { indexPages, type PageLocation, type RevisionContent } from "../../../../content/revision/model.js";
import type { RichDocumentValue } from "../../../../http/schemas.js";
import { invalid } from "../../../../lib/errors.js";
import { MAX_FILE_BYTES } from "../../../../modules/change-request-content/change-request-content.schemas.js";
import { collabEditorAttributes, userColor, warmCollabDocument } from "../../../../modules/collab/collab.service.js";
import { pageDocument } from "../../../../modules/content/content.loader.js";
import { editorAssets } from "../../web.assets.js";
import { renderAppDocument, renderedFile } from "../../web.render.js";
import { type ChangeRequestContext, sendOrgPage } from "../../web.steps.js";
import { applyChanges, editableHead, requireLocation } from "./changes.steps.js";
import { crumbTrail } from "./changes.views.js";
import { type EditView, editPage } from "./edit.views.js";
import { type BlockEditorView, blockEditorPage } from "./editor.views.js";

export interface EditablePage {
  location: PageLocation;
  content: RevisionContent;
  /** Every page of the change request's head, by id. */
  locations: ReadonlyMap<string, PageLocation>;
}

/** A document page of the change request's head, for editing. */
export async function requireEditablePage(ctx: ChangeRequestContext, pageId: string): Promise<EditablePage> {
  const view = await editableHead(ctx);
  const location = requireLocation(view, ctx, pageId);
  if (location.page.kind !== "document") throw invalid(`Page "${location.page.title}" is a ${location.page.kind}: it has no text to edit.`);
  return { location, content: view.content, locations: view.locations() };
}

/** The Markdown rendered for the preview. A large page is read and rendered in worker threads; its document is never parsed here. */
export async function preview(ctx: ChangeRequestContext, page: EditablePage, markdown: string): Promise<EditView["preview"]> {
  const converted = await convertMarkdown({ markdown });
  const { space } = ctx.loaded;
  const source = {
    orgId: space.orgId,
    spaceId: space.id,
    content: page.content,
    pageIds: new Set(indexPages(page.content.pages).keys()),
    pageVars: {},
  };
  const rendered = await renderAppDocument(ctx.deps.db, ctx.deps, source, converted.json, "preview-");
  const body = rendered.blocks > 0 ? html`<div class="q-content">${raw(rendered.html)}</div>` : html`<p class="muted">(empty)</p>`;
  return { title: converted.title, body, warnings: converted.warnings };
}

/** The edit page with `markdown` in the editor and its preview; `error` (a refused save) above it. */
export async function sendEditPage(reply: FastifyReply, ctx: ChangeRequestContext, page: EditablePage, markdown: string, error?: string) {
  const { loaded, org } = ctx;
  const { location } = page;
  let body: SafeHtml = editPage({
    org,
    space: { id: loaded.space.id, title: loaded.space.title },
    changeRequest: loaded.changeRequest,
    page: { id: location.page.id, title: location.page.title, path: location.path },
    markdown,
    preview: await preview(ctx, page, markdown),
    csrf: ctx.csrf(),
  });
  if (error) body = html`<p class="error" role="alert">${error}</p>${body}`;
  const space = { id: loaded.space.id, title: loaded.space.title };
  return sendOrgPage(reply, ctx, {
    status: error ? 400 : 200,
    title: `Edit ${location.page.title}`,
    body,
    crumbs: crumbTrail(org, space, loaded.changeRequest, `Edit “${location.page.title}”`),
    wide: true,
  });
}

/** The block editor on the page: the live collaboration's address and token (or, with it off, the document) and what its blocks link to. */
export async function sendBlockEditor(reply: FastifyReply, ctx: ChangeRequestContext, page: EditablePage) {
  const { loaded, org, deps } = ctx;
  const { location } = page;
  const document = (await pageDocument(deps.db, location)) as JSONDocument;
  const files: BlockEditorView["files"] = {};
  for (const file of page.content.files) {
    const shown = renderedFile(deps, file);
    files[file.id] = { url: shown.url, name: file.name, contentType: file.contentType };
  }
  const pages = [...page.locations.values()]
    .filter((l) => l.page.kind === "document")
    .map((l) => ({ id: l.page.id, title: l.page.title, path: l.path }));
  const user = ctx.signedIn.user;
  const live = collabEditorAttributes(deps, {
    user,
    changeRequest: loaded.changeRequest,
    pageId: location.page.id,
    publicUrl: deps.config.publicUrl,
  });
  const collab = live["data-collab-url"]
    ? { url: live["data-collab-url"], document: live["data-collab-document"]!, token: live["data-collab-token"]! }
    : undefined;
  if (collab) warmCollabDocument(deps, collab.document, user.id);
  const body = blockEditorPage({
    org,
    space: { id: loaded.space.id, title: loaded.space.title },
    changeRequest: loaded.changeRequest,
    page: { id: location.page.id, title: location.page.title, path: location.path },
    // Connected, the editor waits for the server's state and never seeds the page itself.
    editorDocument: collab ? undefined : (await editorModel()).toEditorDoc(document),
    collab,
    user: { name: user.displayName, color: userColor(user.id) },
    files,
    pages,
    maxUploadBytes: MAX_FILE_BYTES,
    csrf: ctx.csrf(),
    editorAssets: await editorAssets(),
  });
  const space = { id: loaded.space.id, title: loaded.space.title };
  return sendOrgPage(reply, ctx, {
    title: `Edit ${location.page.title}`,
    body,
    crumbs: crumbTrail(org, space, loaded.changeRequest, `Edit “${location.page.title}”`),
    wide: true,
  });
}

/**
 * Stores what the block editor sends: its JSON checked against the document model, converted to
 * the stored document (keys kept, fresh ones for new blocks) and written by the content operation
 * as the API's update_page writes a JSON document. The answer names the change request's new revision.
 */
export async function saveEditorDocument(ctx: ChangeRequestContext, page: EditablePage, editorDoc: unknown) {
  const { checkEditorDoc, fromEditorDoc } = await editorModel();
  checkEditorDoc(editorDoc);
  const document = fromEditorDoc(editorDoc as EditorNode);
  const outcome = await applyChanges(ctx, [
    { operation: "update_page", page: page.location.page.id, document: { document: document as unknown as RichDocumentValue } },
  ]);
  return { revision: outcome.changeRequest.revisionId, at: new Date().toISOString() };
}

/** Uploads a file into the change request (the content operation's insert_files): the block that shows it refers to its id. */
export async function uploadEditorFile(ctx: ChangeRequestContext, file: { name: string; contentType: string; base64: string }) {
  const outcome = await applyChanges(ctx, [{ operation: "insert_files", files: [file] }]);
  const inserted = outcome.insertedFiles[outcome.insertedFiles.length - 1];
  if (!inserted) throw invalid("The file was not stored; try again.");
  const shown = renderedFile(ctx.deps, inserted);
  return { id: inserted.id, name: inserted.name, contentType: inserted.contentType, size: inserted.size, url: shown.url };
}

/** Markdown pasted into the editor, read as the content operation reads it, as editor JSON (its blocks are inserted). */
export async function markdownToEditorDoc(markdown: string): Promise<EditorNode> {
  const converted = await convertMarkdown({ markdown });
  return (await editorModel()).toEditorDoc(JSON.parse(converted.json) as JSONDocument);
}

/** The headings of a page of the change request, with their anchors: what a link to "a heading of that page" may point at. */
export async function pageAnchors(ctx: ChangeRequestContext, page: EditablePage) {
  const document = await pageDocument(ctx.deps.db, page.location);
  return headingAnchors(document);
}
