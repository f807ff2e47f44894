/** Deletes a page (with its subpages) from the change request through the content operation. */
import { changeRequestHandler } from "../../web.kinds.js";
import { PageParams } from "./changes.schemas.js";
import { applyChanges, editableHead, pagesPath, requireLocation } from "./changes.steps.js";

export const deletePage = changeRequestHandler({ params: PageParams }, async (request, reply, ctx) => {
  const view = await editableHead(ctx);
  const location = requireLocation(view, ctx, request.params.pageId);
  await applyChanges(ctx, [{ operation: "delete_page", page: location.page.id }]);
  return reply.redirect(pagesPath(ctx.loaded, "page-deleted"), 303);
});
