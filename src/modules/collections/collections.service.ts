import type { Executor } from "../../db/database.js";
import type { CollectionRow } from "../../db/schema.js";
import { invalid, preconditionFailed } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import type { OrgAccess } from "../../permissions/access.js";
import { deleteAccessToTargets, grantCreatorAdmin } from "../../permissions/grants.queries.js";
import { removeSpacesFromSitesOutside } from "../content-tree/departures.queries.js";
import { type ContentPositionValue, planMove } from "../content-tree/move.model.js";
import { keyAtEnd, keysBetween, sortSiblings } from "../content-tree/positions.model.js";
import { listSiblings, writePositions } from "../content-tree/tree.queries.js";
import {
  deleteCollections,
  detachSpacesOfDeletedTree,
  insertCollection,
  listCollectionNodes,
  listSpacesIn,
  moveCollectionsToOrganization,
  moveSpacesToOrganization,
} from "./collections.queries.js";

/** Creates a collection at the end of its parent. Run inside a transaction. */
export async function createCollection(
  trx: Executor,
  input: { orgId: string; parentId: string | null; title: string; access: OrgAccess },
): Promise<CollectionRow> {
  const siblings = await listSiblings(trx, input.orgId, input.parentId);
  const collection = await insertCollection(trx, {
    id: newId(),
    orgId: input.orgId,
    parentId: input.parentId,
    title: input.title,
    position: keyAtEnd(siblings),
  });
  await grantCreatorAdmin(trx, input.access, collection, "collection");
  return collection;
}

/** Ids of a collection and every collection nested in it, at any depth. */
export function collectionTree(nodes: readonly { id: string; parentId: string | null }[], rootId: string): string[] {
  const children = new Map<string, string[]>();
  for (const node of nodes) {
    if (!node.parentId) continue;
    children.set(node.parentId, [...(children.get(node.parentId) ?? []), node.id]);
  }
  const result: string[] = [];
  const queue = [rootId];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const id = queue.shift() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    result.push(id);
    queue.push(...(children.get(id) ?? []));
  }
  return result;
}

/**
 * Deletes a collection and its nested collections. Every space inside (at any depth) is
 * soft-deleted, restorable for 7 days, and moved to the top level so that a restore finds a home.
 * Grants and invite links on the removed collections go with them. Run inside a transaction.
 */
export async function deleteCollectionTree(trx: Executor, input: { collection: CollectionRow; actorId: string }): Promise<void> {
  const { collection } = input;
  const ids = collectionTree(await listCollectionNodes(trx, collection.orgId), collection.id);
  const spaces = await listSpacesIn(trx, ids);
  const topLevel = sortSiblings(await listSiblings(trx, collection.orgId, null));
  const keys = keysBetween(topLevel.at(-1)?.position ?? null, null, spaces.length);
  await detachSpacesOfDeletedTree(trx, {
    placements: spaces.map((s, i) => ({ id: s.id, position: keys[i] as string })),
    actorId: input.actorId,
  });
  await deleteAccessToTargets(trx, ids);
  await deleteCollections(trx, ids);
}

/** Moves a collection among its siblings and/or into another parent (validated by planMove). */
export async function moveCollection(
  trx: Executor,
  input: { collection: CollectionRow; destinationParentId: string | null; position?: ContentPositionValue | undefined },
): Promise<void> {
  const { collection, destinationParentId } = input;
  if (destinationParentId !== null) {
    const tree = collectionTree(await listCollectionNodes(trx, collection.orgId), collection.id);
    if (tree.includes(destinationParentId)) {
      throw invalid(`Collection "${collection.id}" cannot be moved into itself or into a collection nested in it.`);
    }
  }
  const siblings = await listSiblings(trx, collection.orgId, destinationParentId);
  const updates = planMove({
    item: { kind: "collection", id: collection.id, parentId: collection.parentId },
    destinationParentId,
    siblings,
    position: input.position,
  });
  await writePositions(trx, updates, { kind: "collection", id: collection.id, parentId: destinationParentId });
}

/**
 * Moves a collection with everything in it (nested collections, spaces, deleted spaces too) to
 * the top level of another organization. Grants and invite links are dropped: they name users and
 * teams of the old organization. 412 when a space inside has Git sync configured, because its Git
 * installation belongs to the old organization. Run inside a transaction.
 */
export async function transferCollection(trx: Executor, input: { collection: CollectionRow; targetOrgId: string }): Promise<void> {
  const { collection, targetOrgId } = input;
  const ids = collectionTree(await listCollectionNodes(trx, collection.orgId), collection.id);
  const spaces = await listSpacesIn(trx, ids);
  const synced = spaces.find((s) => s.gitSync !== null);
  if (synced) {
    throw preconditionFailed(
      `Collection "${collection.id}" cannot be transferred: space "${synced.id}" inside it has Git sync configured. Remove its Git sync first.`,
    );
  }
  const position = keyAtEnd(await listSiblings(trx, targetOrgId, null));
  await deleteAccessToTargets(trx, [...ids, ...spaces.map((s) => s.id)]);
  await moveCollectionsToOrganization(trx, { ids, orgId: targetOrgId, top: { id: collection.id, position } });
  await moveSpacesToOrganization(
    trx,
    spaces.map((s) => s.id),
    targetOrgId,
  );
  // The old organization's sites stop showing them.
  await removeSpacesFromSitesOutside(
    trx,
    spaces.map((s) => s.id),
    targetOrgId,
  );
}
