/** Duplicates a page (or group) with its subpages, right after it, through the content operation. */
import { changeRequestHandler } from "../../web.kinds.js";
import { PageParams } from "./changes.schemas.js";
import { applyChanges, editableHead, pagesPath, requireLocation } from "./changes.steps.js";
import { duplicateChanges } from "./duplicate.steps.js";

export const duplicatePage = changeRequestHandler({ params: PageParams }, async (request, reply, ctx) => {
  const view = await editableHead(ctx);
  const location = requireLocation(view, ctx, request.params.pageId);
  const changes = await duplicateChanges(ctx.deps.db, location);
  const outcome = await applyChanges(ctx, changes);
  const created = outcome.results.find((r) => r.object === "created_page");
  const id = created && typeof created.page === "object" ? created.page.id : undefined;
  return reply.redirect(pagesPath(ctx.loaded, "page-duplicated", id), 303);
});
