/** A collection: its spaces and the collections inside it that the member may see. */
import Type from "typebox";
import { missing } from "../../../../lib/errors.js";
import { requireCollection } from "../../../../modules/collections/collections.loader.js";
import { collectionPermissions } from "../../../../modules/collections/collections.policy.js";
import { getCollectionsByIds, listCollectionNodes } from "../../../../modules/collections/collections.queries.js";
import { renameForm } from "../../common.views.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { CONTENT_TITLE_MAX, Id } from "../../web.schemas.js";
import { orgCrumb, sendOrgPage } from "../../web.steps.js";
import { readableSpaces } from "./org.steps.js";
import { collectionBody } from "./org.views.js";

export const collectionPage = orgHandler({ params: Type.Object({ org: Id, collection: Id }) }, async (request, reply, ctx) => {
  const { db } = ctx.deps;
  const { collection, access, permissions } = await requireCollection(db, ctx.actor, request.params.collection);
  if (collection.orgId !== ctx.org.id) throw missing(`No collection with id "${request.params.collection}".`);
  const org = ctx.org.id;
  const nodes = await listCollectionNodes(db, org);
  const children = await getCollectionsByIds(
    db,
    nodes.filter((n) => n.parentId === collection.id && collectionPermissions(access, n).view).map((n) => n.id),
  );
  const spaces = await readableSpaces(db, access, { orgId: org, parentId: collection.id });
  const parent = collection.parentId ? nodes.find((n) => n.id === collection.parentId) : undefined;
  const parentRow = parent && collectionPermissions(access, parent).view ? (await getCollectionsByIds(db, [parent.id]))[0] : undefined;
  const crumbs = [
    orgCrumb(ctx),
    ...(parentRow ? [{ label: parentRow.title, href: appPath.collection(org, parentRow.id) }] : []),
    { label: collection.title },
  ];
  return sendOrgPage(reply, ctx, {
    title: collection.title,
    body: collectionBody({
      org,
      collection,
      spaces,
      children,
      rename: permissions.admin
        ? renameForm(`${appPath.collection(org, collection.id)}/rename`, collection.title, "collection", ctx.csrf(), CONTENT_TITLE_MAX)
        : undefined,
    }),
    crumbs,
    wide: true,
  });
});
