/** A space: its page tree, its first page rendered, and its Git panel. */
import Type from "typebox";
import { html } from "../../../../content/html/safe-html.js";
import { loadRevisionView, pageDocumentJson } from "../../../../modules/content/content.loader.js";
import { readGitSyncState } from "../../../../modules/git-sync/git-sync-state.service.js";
import { renameForm } from "../../common.views.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { renderAppPage } from "../../web.render.js";
import { CONTENT_TITLE_MAX, SpaceParams } from "../../web.schemas.js";
import { requireOrgSpace, sendOrgPage } from "../../web.steps.js";
import { gitNotice, gitPanel } from "./git.views.js";
import { sourceOf, spaceCrumbs } from "./spaces.steps.js";
import { spaceLayout, spaceMain } from "./spaces.views.js";

const schema = { params: SpaceParams, querystring: Type.Object({ git: Type.Optional(Type.String({ maxLength: 20 })) }) };

export const spacePage = orgHandler(schema, async (request, reply, ctx) => {
  const { db } = ctx.deps;
  const { space, permissions } = await requireOrgSpace(ctx, request.params.space);
  const view = await loadRevisionView(db, space, space.revisionId);
  const first = [...view.locations().values()].find((l) => l.page.kind === "document");
  const org = ctx.org.id;
  const rendered = first
    ? await renderAppPage(db, ctx.deps, sourceOf(org, view, first.page), await pageDocumentJson(db, first))
    : undefined;
  const git = space.deletedAt
    ? html``
    : gitPanel({
        state: await readGitSyncState(db, space.id),
        action: `${appPath.space(org, space.id)}/git`,
        canSync: permissions.triggerGitSync,
        notice: gitNotice(request.query.git),
        csrf: ctx.csrf(),
      });
  const rename =
    permissions.admin && !space.deletedAt
      ? renameForm(`${appPath.space(org, space.id)}/rename`, space.title, "space", ctx.csrf(), CONTENT_TITLE_MAX)
      : undefined;
  const main = spaceMain({ org, space, first: first && rendered ? { ...first.page, body: rendered.body } : undefined, git, rename });
  return sendOrgPage(reply, ctx, {
    title: space.title,
    body: spaceLayout(org, space, view.content.pages, first?.page.id, main),
    crumbs: await spaceCrumbs(ctx, space),
    wide: true,
    ...(rendered ? { head: rendered.head } : {}),
  });
});
