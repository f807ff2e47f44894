/**
 * A page of the change request in the block editor, and its Markdown (the fallback without
 * scripts) with a preview; saving the Markdown goes through the content operation.
 */
import Type from "typebox";
import type { JSONDocument } from "../../../../content/document/types.js";
import { editablePathFor } from "../../../../content/markdown/api-paths.js";
import { serializeMarkdownPage } from "../../../../content/markdown/index.js";
import { DomainError } from "../../../../lib/errors.js";
import { pageDocument } from "../../../../modules/content/content.loader.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { Markdown, PageParams } from "./changes.schemas.js";
import { applyChanges, back } from "./changes.steps.js";
import { requireEditablePage, sendBlockEditor, sendEditPage } from "./edit.steps.js";

export const editPagePage = changeRequestHandler({ params: PageParams }, async (request, reply, ctx) => {
  const page = await requireEditablePage(ctx, request.params.pageId);
  return sendBlockEditor(reply, ctx, page);
});

export const markdownPagePage = changeRequestHandler({ params: PageParams }, async (request, reply, ctx) => {
  const page = await requireEditablePage(ctx, request.params.pageId);
  const document = (await pageDocument(ctx.deps.db, page.location)) as JSONDocument;
  const markdown = serializeMarkdownPage({ title: page.location.page.title, document }, { pathFor: editablePathFor });
  return sendEditPage(reply, ctx, page, markdown);
});

const SaveForm = Type.Object({ markdown: Markdown, action: Type.Optional(Type.Enum(["save", "preview"])) });

export const saveEditedPage = changeRequestHandler({ params: PageParams, body: SaveForm }, async (request, reply, ctx) => {
  const page = await requireEditablePage(ctx, request.params.pageId);
  const markdown = request.body.markdown.replace(/\r\n?/g, "\n");
  if (request.body.action === "preview") return sendEditPage(reply, ctx, page, markdown);
  try {
    await applyChanges(ctx, [{ operation: "update_page", page: page.location.page.id, document: { markdown } }]);
  } catch (error) {
    // A Markdown problem is shown over the editor, with the text kept.
    if (error instanceof DomainError && error.kind === "invalid") return sendEditPage(reply, ctx, page, markdown, error.message);
    throw error;
  }
  return back(reply, ctx.loaded, "saved", `#page-${page.location.page.id}`);
});
