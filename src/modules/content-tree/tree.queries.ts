import type { Executor } from "../../db/database.js";
import { nowIso } from "../../lib/time.js";
import type { Sibling } from "./positions.model.js";

/**
 * Children of a parent collection (or of the organization's top level when `parentId` is null):
 * collections and spaces that are not deleted. Deleted spaces keep their key but take no place in
 * the order; a restore that finds its key taken moves the space to the end.
 */
export async function listSiblings(db: Executor, orgId: string, parentId: string | null): Promise<Sibling[]> {
  const [collections, spaces] = await Promise.all([
    db
      .selectFrom("collections")
      .select(["id", "position"])
      .where("orgId", "=", orgId)
      .$if(parentId === null, (qb) => qb.where("parentId", "is", null))
      .$if(parentId !== null, (qb) => qb.where("parentId", "=", parentId as string))
      .execute(),
    db
      .selectFrom("spaces")
      .select(["id", "position"])
      .where("orgId", "=", orgId)
      .where("deletedAt", "is", null)
      .$if(parentId === null, (qb) => qb.where("parentId", "is", null))
      .$if(parentId !== null, (qb) => qb.where("parentId", "=", parentId as string))
      .execute(),
  ]);
  return [
    ...collections.map((c) => ({ kind: "collection" as const, id: c.id, position: c.position })),
    ...spaces.map((s) => ({ kind: "space" as const, id: s.id, position: s.position })),
  ];
}

/** Writes new sibling keys (and the parent when given), as computed by planMove/positionsFor. */
export async function writePositions(
  db: Executor,
  updates: readonly Sibling[],
  placement?: { kind: Sibling["kind"]; id: string; parentId: string | null },
): Promise<void> {
  const now = nowIso();
  for (const update of updates) {
    const moved = placement && placement.kind === update.kind && placement.id === update.id;
    const table = update.kind === "space" ? "spaces" : "collections";
    await db
      .updateTable(table)
      .set({ position: update.position, ...(moved ? { parentId: placement.parentId, updatedAt: now } : {}) })
      .where("id", "=", update.id)
      .execute();
  }
}
