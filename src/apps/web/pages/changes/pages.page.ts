/** The pages editor of a change request: its page tree with add, move, place, delete and settings. */
import Type from "typebox";
import { changeRequestHandler } from "../../web.kinds.js";
import { Id } from "../../web.schemas.js";
import { sendOrgPage } from "../../web.steps.js";
import { CrParams, DoneQuery } from "./changes.schemas.js";
import { addressOf, editableHead } from "./changes.steps.js";
import { crumbTrail, STRUCTURE_NOTICES } from "./changes.views.js";
import { structurePage } from "./structure.views.js";

const schema = { params: CrParams, querystring: Type.Object({ done: DoneQuery, page: Type.Optional(Id) }) };

export const pagesPage = changeRequestHandler(schema, async (request, reply, ctx) => {
  const view = await editableHead(ctx);
  const { loaded, org } = ctx;
  const { done, page } = request.query;
  // After a save, the page's address as it now is (read from the tree, never from the URL's text).
  const saved = done === "page-saved" && page ? view.locations().get(page) : undefined;
  const space = { id: loaded.space.id, title: loaded.space.title };
  const body = structurePage({
    org,
    space,
    changeRequest: loaded.changeRequest,
    pages: view.content.pages,
    notice: done ? STRUCTURE_NOTICES[done] : undefined,
    ...(saved ? { saved: { title: saved.page.title, address: await addressOf(ctx, saved.path) } } : {}),
    csrf: ctx.csrf(),
  });
  return sendOrgPage(reply, ctx, {
    title: `Pages of #${loaded.changeRequest.number}`,
    body,
    crumbs: crumbTrail(org, space, loaded.changeRequest, "Pages"),
    wide: true,
  });
});
