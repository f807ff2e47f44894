/** The editor's live preview: the posted Markdown rendered in the change request, as an HTML fragment. */
import Type from "typebox";
import { changeRequestHandler } from "../../web.kinds.js";
import { sendHtml } from "../../web.steps.js";
import { Markdown, PageParams } from "./changes.schemas.js";
import { preview, requireEditablePage } from "./edit.steps.js";
import { previewHtml } from "./edit.views.js";

export const previewFragment = changeRequestHandler(
  { params: PageParams, body: Type.Object({ markdown: Markdown }) },
  async (request, reply, ctx) => {
    const page = await requireEditablePage(ctx, request.params.pageId);
    const shown = await preview(ctx, page, request.body.markdown.replace(/\r\n?/g, "\n"));
    return sendHtml(reply, 200, previewHtml(shown).value);
  },
);
