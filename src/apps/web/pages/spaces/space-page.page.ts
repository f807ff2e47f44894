/** A page of a space as readers see it, with its history from revisions. */
import Type from "typebox";
import { missing } from "../../../../lib/errors.js";
import { loadRevisionView } from "../../../../modules/content/content.loader.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { Id } from "../../web.schemas.js";
import { requireOrgSpace, sendOrgPage } from "../../web.steps.js";
import { loadPageHistory, pageContent, pageEditActions, revisionLinks, sourceOf, spaceCrumbs } from "./spaces.steps.js";
import { historyList, pageMain, spaceLayout } from "./spaces.views.js";

const schema = { params: Type.Object({ org: Id, space: Id, page: Id }) };

export const spacePagePage = orgHandler(schema, async (request, reply, ctx) => {
  const { db } = ctx.deps;
  const { space, permissions } = await requireOrgSpace(ctx, request.params.space);
  const view = await loadRevisionView(db, space, space.revisionId);
  const location = view.locations().get(request.params.page);
  if (!location) throw missing(`No page with id "${request.params.page}" in this space.`);
  const org = ctx.org.id;
  const { entries, more } = await loadPageHistory(db, space, location.page.id);
  const links = await revisionLinks(
    db,
    space,
    entries.map((e) => e.revision),
  );
  const crumbs = [
    ...(await spaceCrumbs(ctx, space)),
    ...location.ancestors.map((a) => ({ label: a.title, href: appPath.page(org, space.id, a.id) })),
    { label: location.page.title },
  ];
  const content = await pageContent(ctx.deps, sourceOf(org, view, location.page), location);
  const actions =
    permissions.edit && location.page.kind === "document" && !space.deletedAt
      ? await pageEditActions(ctx, space, location.page.id)
      : undefined;
  const main = pageMain(location, content.body, historyList(entries, more, links), actions);
  return sendOrgPage(reply, ctx, {
    title: location.page.title,
    body: spaceLayout(org, space, view.content.pages, location.page.id, main),
    crumbs,
    wide: true,
    ...(content.head ? { head: content.head } : {}),
  });
});
