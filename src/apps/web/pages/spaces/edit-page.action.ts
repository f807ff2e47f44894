/** The Edit action of a page of the primary content: a change request "Edit <title>" is created and the editor opens on the page in it. */
import Type from "typebox";
import { invalid, missing } from "../../../../lib/errors.js";
import { refuseWrite } from "../../../../modules/change-requests/change-requests.policy.js";
import { createChangeRequest } from "../../../../modules/change-requests/change-requests.service.js";
import { loadRevisionView } from "../../../../modules/content/content.loader.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { Id } from "../../web.schemas.js";
import { requireOrgSpace } from "../../web.steps.js";

const schema = { params: Type.Object({ org: Id, space: Id, page: Id }), body: Type.Object({ _csrf: Type.Optional(Type.String()) }) };

/** A change request's subject is at most 100 characters. */
const SUBJECT_MAX = 100;

export const editPageAction = orgHandler(schema, async (request, reply, ctx) => {
  const loaded = await requireOrgSpace(ctx, request.params.space, { live: true });
  refuseWrite(loaded, loaded.permissions.edit, "edit", "edit its pages");
  const { space } = loaded;
  const view = await loadRevisionView(ctx.deps.db, space, space.revisionId);
  const page = view.locations().get(request.params.page)?.page;
  if (!page) throw missing(`No page with id "${request.params.page}" in this space.`);
  if (page.kind !== "document") throw invalid(`Page "${page.title}" is a ${page.kind}: it has no text to edit.`);
  const title = `Edit ${page.title || "Untitled page"}`;
  const subject = title.length > SUBJECT_MAX ? `${title.slice(0, SUBJECT_MAX - 1)}…` : title;
  const row = await ctx.deps.db.transaction().execute((trx) => createChangeRequest(trx, { space, actorId: ctx.actor.user.id, subject }));
  return reply.redirect(`${appPath.changeRequest(space.orgId, space.id, row.number)}/p/${page.id}/edit`, 303);
});
