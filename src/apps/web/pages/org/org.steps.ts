/** What the organization's pages list, each as the API filters it for the member. */
import type { Executor } from "../../../../db/database.js";
import type { CollectionRow, SpaceRow } from "../../../../db/schema.js";
import { collectionPermissions } from "../../../../modules/collections/collections.policy.js";
import { getCollectionsByIds, listCollectionNodes } from "../../../../modules/collections/collections.queries.js";
import { readableSpaceNodes } from "../../../../modules/spaces/spaces.loader.js";
import { getSpacesByIds, listSpaceNodes } from "../../../../modules/spaces/spaces.queries.js";
import type { OrgAccess } from "../../../../permissions/access.js";

/** The spaces of the organization (or of one collection) the member may read, deleted ones left out. */
export async function readableSpaces(db: Executor, access: OrgAccess, where: { orgId: string; parentId?: string }): Promise<SpaceRow[]> {
  const nodes = readableSpaceNodes(access, await listSpaceNodes(db, where));
  return (
    await getSpacesByIds(
      db,
      nodes.map((n) => n.id),
    )
  ).filter((s) => !s.deletedAt);
}

/** The organization's collections the member may view, in their order. */
export async function viewableCollections(db: Executor, access: OrgAccess, orgId: string): Promise<CollectionRow[]> {
  const nodes = (await listCollectionNodes(db, orgId)).filter((n) => collectionPermissions(access, n).view);
  const collections = await getCollectionsByIds(
    db,
    nodes.map((n) => n.id),
  );
  return collections.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : a.title.localeCompare(b.title)));
}
