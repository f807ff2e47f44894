/** Renames a collection, as PATCH /v1/collections/{collectionId} {title} does: admins of the collection only. */
import Type from "typebox";
import { invalid, missing } from "../../../../lib/errors.js";
import { requireCollection } from "../../../../modules/collections/collections.loader.js";
import { updateCollection } from "../../../../modules/collections/collections.queries.js";
import { authorize } from "../../../../permissions/authorize.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { ContentTitle, Id } from "../../web.schemas.js";

const schema = {
  params: Type.Object({ org: Id, collection: Id }),
  body: Type.Object({ title: ContentTitle }),
};

export const renameCollection = orgHandler(schema, async (request, reply, ctx) => {
  const { collection, permissions } = await requireCollection(ctx.deps.db, ctx.actor, request.params.collection);
  if (collection.orgId !== ctx.org.id) throw missing(`No collection with id "${request.params.collection}".`);
  authorize(permissions, "admin", {
    notFound: `No collection with id "${collection.id}".`,
    forbidden: `Only admins of collection “${collection.title}” can rename it.`,
  });
  const title = request.body.title.trim();
  if (!title) throw invalid("A collection needs a title: type the new one, or keep the old.");
  if (title !== collection.title) await updateCollection(ctx.deps.db, collection.id, { title });
  return reply.redirect(appPath.collection(ctx.org.id, collection.id), 303);
});
