/** Renames a page or group of the change request through the content operation (its slug stays: links keep working). */
import Type from "typebox";
import { invalid } from "../../../../lib/errors.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { PageParams } from "./changes.schemas.js";
import { applyChanges, editableHead, pagesPath, requireLocation } from "./changes.steps.js";

const schema = { params: PageParams, body: Type.Object({ title: Type.String({ maxLength: 256 }) }) };

export const renamePage = changeRequestHandler(schema, async (request, reply, ctx) => {
  const view = await editableHead(ctx);
  const location = requireLocation(view, ctx, request.params.pageId);
  const title = request.body.title.trim();
  if (!title) throw invalid("A page needs a title: type the new one, or keep the old.");
  if (title === location.page.title) return reply.redirect(pagesPath(ctx.loaded, "page-unchanged", location.page.id), 303);
  await applyChanges(ctx, [{ operation: "update_page", page: location.page.id, title }]);
  return reply.redirect(pagesPath(ctx.loaded, "page-renamed", location.page.id), 303);
});
