/** A revision of a space: who made it, what it changed page by page, and the pages in it. */
import Type from "typebox";
import { getSpaceRevision } from "../../../../content/revision/revisions.queries.js";
import { parseJson } from "../../../../lib/json.js";
import { loadRevisionView } from "../../../../modules/content/content.loader.js";
import { orgHandler } from "../../web.kinds.js";
import { Id } from "../../web.schemas.js";
import { requireOrgSpace, sendOrgPage } from "../../web.steps.js";
import { diffPages } from "./history.model.js";
import { pagesOfTree, revisionLinks, spaceCrumbs } from "./spaces.steps.js";
import { revisionBody } from "./spaces.views.js";

const schema = { params: Type.Object({ org: Id, space: Id, revision: Id }) };

export const revisionPage = orgHandler(schema, async (request, reply, ctx) => {
  const { db } = ctx.deps;
  const { space } = await requireOrgSpace(ctx, request.params.space);
  const view = await loadRevisionView(db, space, request.params.revision);
  const parentId = parseJson<string[]>(view.revision.parents, "revisions.parents")[0];
  const parent = parentId ? await getSpaceRevision(db, space.id, parentId) : undefined;
  const changes = diffPages(parent ? await pagesOfTree(db, parent.treeHash) : new Map(), view.locations());
  const livePages = await pagesOfTree(db, (await loadRevisionView(db, space, space.revisionId)).revision.treeHash);
  const body = revisionBody({
    revision: view.revision,
    links: await revisionLinks(db, space, [view.revision]),
    current: view.revision.id === space.revisionId,
    parentId: parent?.id,
    changes,
    livePages,
    pages: view.content.pages,
  });
  const crumbs = [...(await spaceCrumbs(ctx, space)), { label: `Revision ${view.revision.id.slice(0, 8)}` }];
  return sendOrgPage(reply, ctx, { title: `Revision ${view.revision.id}`, body, crumbs });
});
