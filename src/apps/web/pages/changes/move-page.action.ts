/** Moves a page of the change request: up or down among its siblings, or under a parent, before or after one of its pages. */
import Type from "typebox";
import { changeRequestHandler } from "../../web.kinds.js";
import { PageParams } from "./changes.schemas.js";
import { applyChanges, editableHead, pagesPath, requireLocation } from "./changes.steps.js";
import { placeOfMove } from "./place.model.js";

const schema = {
  params: PageParams,
  body: Type.Object({
    to: Type.Enum(["up", "down", "parent"]),
    parent: Type.Optional(Type.String({ maxLength: 100 })),
    before: Type.Optional(Type.String({ maxLength: 100 })),
    after: Type.Optional(Type.String({ maxLength: 100 })),
  }),
};

export const movePage = changeRequestHandler(schema, async (request, reply, ctx) => {
  const view = await editableHead(ctx);
  const location = requireLocation(view, ctx, request.params.pageId);
  const place = placeOfMove(view.content, view.locations(), location, request.body);
  await applyChanges(ctx, [{ operation: "update_page", page: location.page.id, ...place }]);
  return reply.redirect(pagesPath(ctx.loaded, "page-moved", location.page.id), 303);
});
