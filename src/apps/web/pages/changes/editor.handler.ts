/**
 * The block editor's JSON endpoints (its page is edit.page.ts): saving the document, uploading a
 * file, reading pasted Markdown, listing a page's headings for the link picker. Each answers JSON, errors included ({"error": {"code", "message"}}),
 * and checks the page's CSRF token from the `x-csrf-token` header before it runs.
 */
import Type from "typebox";
import { MAX_FILE_BYTES } from "../../../../modules/change-request-content/change-request-content.schemas.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { Markdown, PageParams } from "./changes.schemas.js";
import { markdownToEditorDoc, pageAnchors, requireEditablePage, saveEditorDocument, uploadEditorFile } from "./edit.steps.js";

const SaveBody = Type.Object({ doc: Type.Object({ type: Type.Literal("doc") }, { additionalProperties: true }) });

export const saveEditorJson = changeRequestHandler({ params: PageParams, body: SaveBody }, async (request, reply, ctx) => {
  const page = await requireEditablePage(ctx, request.params.pageId);
  const saved = await saveEditorDocument(ctx, page, request.body.doc);
  return reply.send({ saved: true, ...saved });
});

const UploadBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 256 }),
  contentType: Type.String({ minLength: 1, maxLength: 255 }),
  base64: Type.String({ minLength: 1, maxLength: Math.ceil(MAX_FILE_BYTES / 3) * 4 + 4 }),
});

export const uploadEditorFileJson = changeRequestHandler({ params: PageParams, body: UploadBody }, async (request, reply, ctx) => {
  await requireEditablePage(ctx, request.params.pageId);
  const file = await uploadEditorFile(ctx, request.body);
  return reply.send({ file });
});

export const pastedMarkdownJson = changeRequestHandler(
  { params: PageParams, body: Type.Object({ markdown: Markdown }) },
  async (request, reply, ctx) => {
    await requireEditablePage(ctx, request.params.pageId);
    return reply.send({ doc: await markdownToEditorDoc(request.body.markdown.replace(/\r\n?/g, "\n")) });
  },
);

/** The headings of the page `pageId` of the change request and their anchors (the link picker's "Heading" list). */
export const pageAnchorsJson = changeRequestHandler({ params: PageParams }, async (request, reply, ctx) => {
  const page = await requireEditablePage(ctx, request.params.pageId);
  return reply.send({ anchors: await pageAnchors(ctx, page) });
});
