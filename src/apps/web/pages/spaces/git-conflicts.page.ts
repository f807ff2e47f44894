/** The space's Git sync conflicts, page by page and block by block, with the choices that resolve them. */
import Type from "typebox";
import { loadGitConflicts, previewMerge } from "../../../../modules/git-sync/git-conflicts.service.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { SpaceParams } from "../../web.schemas.js";
import { requireOrgSpace, sendOrgPage } from "../../web.steps.js";
import { contentView } from "../changes/content.render.js";
import { conflictNotice, gitConflictsBody } from "./git-conflicts.views.js";
import { spaceCrumbs } from "./spaces.steps.js";

const schema = { params: SpaceParams, querystring: Type.Object({ kept: Type.Optional(Type.String({ maxLength: 20 })) }) };

export const gitConflictsPage = orgHandler(schema, async (request, reply, ctx) => {
  const { db } = ctx.deps;
  const { space, permissions } = await requireOrgSpace(ctx, request.params.space);
  const loaded = await loadGitConflicts(db, space.id);
  const conflicts = loaded.conflicts.map((versions) => ({ versions, blockConflicts: previewMerge(versions)?.conflicts }));
  const content = await contentView(db, ctx.deps, {
    orgId: ctx.org.id,
    spaceId: space.id,
    contents: [loaded.content],
    // The merge engine types documents loosely; these are stored page documents.
    documents: loaded.conflicts.flatMap((c) => [c.base, c.git, c.quire]) as never,
  });
  const spaceHref = appPath.space(ctx.org.id, space.id);
  const body = gitConflictsBody({
    conflicts,
    content,
    action: `${spaceHref}/git/conflicts`,
    spaceHref,
    csrf: ctx.csrf(),
    revision: loaded.revisionId,
    canResolve: permissions.triggerGitSync && !space.deletedAt,
    notice: conflictNotice(request.query.kept),
  });
  const crumbs = [...(await spaceCrumbs(ctx, space)), { label: "Git conflicts" }];
  return sendOrgPage(reply, ctx, { title: `Git conflicts · ${space.title}`, body, crumbs, wide: true });
});
