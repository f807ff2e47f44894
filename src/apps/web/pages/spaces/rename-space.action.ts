/** Renames a space, as PATCH /v1/spaces/{spaceId} {title} does: admins of the space only, a live space. */
import Type from "typebox";
import { invalid } from "../../../../lib/errors.js";
import { updateSpace } from "../../../../modules/spaces/spaces.queries.js";
import { authorize } from "../../../../permissions/authorize.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { ContentTitle, SpaceParams } from "../../web.schemas.js";
import { requireOrgSpace } from "../../web.steps.js";

const schema = { params: SpaceParams, body: Type.Object({ title: ContentTitle }) };

export const renameSpace = orgHandler(schema, async (request, reply, ctx) => {
  const { space, permissions } = await requireOrgSpace(ctx, request.params.space, { live: true });
  authorize(permissions, "admin", {
    notFound: `No space with id "${space.id}".`,
    forbidden: `Only admins of space “${space.title}” can rename it.`,
  });
  const title = request.body.title.trim();
  if (!title) throw invalid("A space needs a title: type the new one, or keep the old.");
  if (title !== space.title) await updateSpace(ctx.deps.db, space.id, { title });
  return reply.redirect(appPath.space(ctx.org.id, space.id), 303);
});
