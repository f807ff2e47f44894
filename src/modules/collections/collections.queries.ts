import type { Executor } from "../../db/database.js";
import type { CollectionRow, CollectionsTable } from "../../db/schema.js";
import { nowIso } from "../../lib/time.js";

export function getCollection(db: Executor, id: string): Promise<CollectionRow | undefined> {
  return db.selectFrom("collections").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function getCollectionsByIds(db: Executor, ids: readonly string[]): Promise<CollectionRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom("collections").selectAll().where("id", "in", ids).execute();
}

/** What access resolution and list ordering need of every collection of an organization. */
export interface CollectionNodeRow {
  id: string;
  parentId: string | null;
  defaultLevel: string | null;
  createdAt: string;
}

export function listCollectionNodes(db: Executor, orgId: string): Promise<CollectionNodeRow[]> {
  return db.selectFrom("collections").select(["id", "parentId", "defaultLevel", "createdAt"]).where("orgId", "=", orgId).execute();
}

export async function insertCollection(
  db: Executor,
  input: { id: string; orgId: string; parentId: string | null; title: string; position: string },
): Promise<CollectionRow> {
  const now = nowIso();
  const row: CollectionRow = {
    id: input.id,
    orgId: input.orgId,
    parentId: input.parentId,
    title: input.title,
    description: null,
    // New content follows its parent (or the organization's roles at the top level).
    defaultLevel: "inherit",
    position: input.position,
    createdAt: now,
    updatedAt: now,
  };
  await db.insertInto("collections").values(row).execute();
  return row;
}

export async function updateCollection(
  db: Executor,
  id: string,
  changes: Partial<Pick<CollectionsTable, "title" | "description" | "defaultLevel">>,
): Promise<void> {
  await db
    .updateTable("collections")
    .set({ ...changes, updatedAt: nowIso() })
    .where("id", "=", id)
    .execute();
}

/** Removes collections (their nested collections go with them through the foreign key too). */
export async function deleteCollections(db: Executor, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom("collections").where("id", "in", ids).execute();
}

/** Re-homes collections in another organization (a transfer); `top` becomes top-level at `position`. */
export async function moveCollectionsToOrganization(
  db: Executor,
  input: { ids: readonly string[]; orgId: string; top: { id: string; position: string } },
): Promise<void> {
  const now = nowIso();
  await db.updateTable("collections").set({ orgId: input.orgId, updatedAt: now }).where("id", "in", input.ids).execute();
  await db.updateTable("collections").set({ parentId: null, position: input.top.position }).where("id", "=", input.top.id).execute();
}

/* The spaces of a collection tree, as deleting and transferring the tree changes them. */

/** Every space (deleted ones included) directly in one of these collections. */
export async function listSpacesIn(
  db: Executor,
  parentIds: readonly string[],
): Promise<{ id: string; deletedAt: string | null; gitSync: string | null }[]> {
  if (parentIds.length === 0) return [];
  return db.selectFrom("spaces").select(["id", "deletedAt", "gitSync"]).where("parentId", "in", parentIds).execute();
}

/**
 * The spaces of a deleted collection tree: live ones become deleted, and all go to the top level
 * (each at its given key) so that a restore puts them back where they can be found.
 */
export async function detachSpacesOfDeletedTree(
  db: Executor,
  input: { placements: readonly { id: string; position: string }[]; actorId: string },
): Promise<void> {
  const now = nowIso();
  for (const placement of input.placements) {
    await db.updateTable("spaces").set({ parentId: null, position: placement.position }).where("id", "=", placement.id).execute();
  }
  const ids = input.placements.map((p) => p.id);
  if (ids.length === 0) return;
  await db
    .updateTable("spaces")
    .set({ deletedAt: now, deletedBy: input.actorId })
    .where("id", "in", ids)
    .where("deletedAt", "is", null)
    .execute();
}

/** Re-homes spaces in another organization (a transfer of them or of their collection). */
export async function moveSpacesToOrganization(db: Executor, ids: readonly string[], orgId: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable("spaces").set({ orgId, updatedAt: nowIso() }).where("id", "in", ids).execute();
}
