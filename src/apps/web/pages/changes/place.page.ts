/** Placing a page of the change request: choose a parent, then before or after which of its pages it goes. */
import Type from "typebox";
import { changeRequestHandler } from "../../web.kinds.js";
import { sendOrgPage } from "../../web.steps.js";
import { PageParams } from "./changes.schemas.js";
import { editableHead, requireLocation } from "./changes.steps.js";
import { crumbTrail } from "./changes.views.js";
import { childrenOf, requireNewParent } from "./place.model.js";
import { placePage } from "./place.views.js";

const schema = { params: PageParams, querystring: Type.Object({ parent: Type.Optional(Type.String({ maxLength: 100 })) }) };

export const placePagePage = changeRequestHandler(schema, async (request, reply, ctx) => {
  const view = await editableHead(ctx);
  const location = requireLocation(view, ctx, request.params.pageId);
  const { loaded, org } = ctx;
  const parentId = request.query.parent === undefined ? location.parentId : request.query.parent || null;
  const parent = requireNewParent(view.locations(), location, parentId, loaded.changeRequest.number);
  const space = { id: loaded.space.id, title: loaded.space.title };
  const body = placePage({
    org,
    space,
    changeRequest: loaded.changeRequest,
    pages: view.content.pages,
    page: location.page,
    currentParentId: location.parentId,
    parentId,
    parentTitle: parent?.page.title,
    siblings: childrenOf(view.content, parentId) ?? [],
    csrf: ctx.csrf(),
  });
  const name = location.page.title || "Untitled page";
  return sendOrgPage(reply, ctx, {
    title: `Place ${name}`,
    body,
    crumbs: crumbTrail(org, space, loaded.changeRequest, `Place “${name}”`),
    wide: true,
  });
});
