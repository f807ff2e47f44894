/** Creates a collection from the organization page, as POST /v1/orgs/{organizationId}/collections does. */
import Type from "typebox";
import { invalid } from "../../../../lib/errors.js";
import { requireCreateDestination } from "../../../../modules/collections/collections.loader.js";
import { createCollection } from "../../../../modules/collections/collections.service.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { ContentTitle, OrgParams } from "../../web.schemas.js";

const schema = {
  params: OrgParams,
  body: Type.Object({
    title: ContentTitle,
    parent: Type.Optional(Type.String({ maxLength: 100 })),
  }),
};

export const createCollectionForm = orgHandler(schema, async (request, reply, ctx) => {
  const { db } = ctx.deps;
  const title = request.body.title.trim();
  if (!title) throw invalid("A new collection needs a title.");
  const parentId = request.body.parent || null;
  const { access } = await requireCreateDestination(db, ctx.actor, ctx.org.id, parentId);
  const collection = await db.transaction().execute((trx) => createCollection(trx, { orgId: ctx.org.id, parentId, title, access }));
  ctx.actor.access.invalidate(ctx.org.id);
  return reply.redirect(appPath.collection(ctx.org.id, collection.id), 303);
});
