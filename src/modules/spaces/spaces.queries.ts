import type { Kysely } from "kysely";
import type { Executor } from "../../db/database.js";
import { prepared } from "../../db/prepared.js";
import type { Database, SpaceRow, SpacesTable } from "../../db/schema.js";
import { nowIso } from "../../lib/time.js";

const spaceById = prepared<{ id: string }, SpaceRow>(
  (db, param) => (db as Kysely<Database>).selectFrom("spaces").selectAll().where("id", "=", param("id")),
  { cache: true },
);

/**
 * Inside a transaction: holds the space's row lock until it ends (a no-op update), so that writes
 * which read, then change, something of the space (its Git sync state, its next change request
 * number) run one at a time on PostgreSQL. SQLite runs one writer at a time anyway.
 */
export async function lockSpaceRow(trx: Executor, spaceId: string): Promise<void> {
  await trx
    .updateTable("spaces")
    .set((eb) => ({ updatedAt: eb.ref("updatedAt") }))
    .where("id", "=", spaceId)
    .execute();
}

export async function getSpace(db: Executor, id: string): Promise<SpaceRow | undefined> {
  return (await spaceById(db, { id }))[0];
}

/** getSpace's rows (none or the space) without a promise when they are at hand (prepared's `now`); undefined when they must be waited for. */
export function spaceRowsNow(db: Executor, id: string): readonly SpaceRow[] | undefined {
  return spaceById.now(db, { id });
}

const spacesByIds = prepared<{ ids: readonly string[] }, SpaceRow>((db, _param, list) =>
  (db as Kysely<Database>).selectFrom("spaces").selectAll().where("id", "in", list("ids")),
);

export async function getSpacesByIds(db: Executor, ids: readonly string[]): Promise<SpaceRow[]> {
  if (ids.length === 0) return [];
  return spacesByIds(db, { ids });
}

/** What access resolution and list ordering need of a space. */
export interface SpaceNodeRow {
  id: string;
  parentId: string | null;
  defaultLevel: string | null;
  createdAt: string;
  position: string;
}

/** Spaces that are not deleted, of an organization or (with `parentId`) directly in one collection. */
export function listSpaceNodes(db: Executor, filter: { orgId: string; parentId?: string }): Promise<SpaceNodeRow[]> {
  return filter.parentId === undefined
    ? spaceNodesOfOrg(db, filter)
    : spaceNodesInCollection(db, { orgId: filter.orgId, parentId: filter.parentId });
}

const spaceNodesOfOrg = prepared<{ orgId: string }, SpaceNodeRow>((db, param) => liveSpaceNodes(db as Kysely<Database>, param("orgId")));

const spaceNodesInCollection = prepared<{ orgId: string; parentId: string }, SpaceNodeRow>((db, param) =>
  liveSpaceNodes(db as Kysely<Database>, param("orgId")).where("parentId", "=", param("parentId")),
);

function liveSpaceNodes(db: Kysely<Database>, orgId: string) {
  return db
    .selectFrom("spaces")
    .select(["id", "parentId", "defaultLevel", "createdAt", "position"])
    .where("orgId", "=", orgId)
    .where("deletedAt", "is", null);
}

export async function insertSpace(db: Executor, row: SpaceRow): Promise<void> {
  await db.insertInto("spaces").values(row).execute();
}

/** A first revision: no parents, `edits`, holding `treeHash` (null for an empty space). */
export async function insertFirstRevision(
  db: Executor,
  input: { id: string; spaceId: string; treeHash: string | null; createdBy: string },
): Promise<void> {
  await db
    .insertInto("revisions")
    .values({
      id: input.id,
      spaceId: input.spaceId,
      parents: JSON.stringify([]),
      type: "edits",
      treeHash: input.treeHash,
      git: null,
      mergedFrom: null,
      createdBy: input.createdBy,
      createdAt: nowIso(),
    })
    .execute();
}

export async function updateSpace(
  db: Executor,
  id: string,
  changes: Partial<Pick<SpacesTable, "title" | "emoji" | "iconUrl" | "editMode" | "defaultLevel" | "language" | "mergeRules">>,
): Promise<void> {
  await db
    .updateTable("spaces")
    .set({ ...changes, updatedAt: nowIso() })
    .where("id", "=", id)
    .execute();
}

export async function markSpaceDeleted(db: Executor, id: string, actorId: string): Promise<void> {
  await db
    .updateTable("spaces")
    .set({ deletedAt: nowIso(), deletedBy: actorId })
    .where("id", "=", id)
    .where("deletedAt", "is", null)
    .execute();
}

/** Clears `deletedAt`; `position` moves it (its old key was taken meanwhile). */
export async function markSpaceRestored(db: Executor, id: string, position?: string): Promise<void> {
  await db
    .updateTable("spaces")
    .set({ deletedAt: null, deletedBy: null, updatedAt: nowIso(), ...(position ? { position } : {}) })
    .where("id", "=", id)
    .execute();
}

/** Puts one space at a parent and key (a transfer). */
export async function placeSpace(
  db: Executor,
  id: string,
  placement: { orgId: string; parentId: string | null; position: string },
): Promise<void> {
  await db
    .updateTable("spaces")
    .set({ ...placement, updatedAt: nowIso() })
    .where("id", "=", id)
    .execute();
}

/**
 * Deletes the spaces deleted before `cutoff` for good; returns how many. Grants and invite links
 * point at spaces without a foreign key (they target spaces or collections), so they go explicitly;
 * revisions and everything else of the space follow through their foreign keys.
 */
export async function purgeSpacesDeletedBefore(trx: Executor, cutoff: string): Promise<number> {
  const ids = (
    await trx.selectFrom("spaces").select("id").where("deletedAt", "is not", null).where("deletedAt", "<", cutoff).execute()
  ).map((r) => r.id);
  if (ids.length === 0) return 0;
  await trx.deleteFrom("grants").where("targetType", "=", "space").where("targetId", "in", ids).execute();
  await trx.deleteFrom("linkInvites").where("targetType", "=", "space").where("targetId", "in", ids).execute();
  await trx.deleteFrom("spaces").where("id", "in", ids).execute();
  return ids.length;
}

/** The space's Git sync state as stored (JSON text), or null; undefined when there is no such space. */
export async function getSpaceGitSync(db: Executor, spaceId: string): Promise<string | null | undefined> {
  return (await db.selectFrom("spaces").select("gitSync").where("id", "=", spaceId).executeTakeFirst())?.gitSync;
}

export async function setSpaceGitSync(db: Executor, spaceId: string, gitSync: string | null): Promise<void> {
  await db.updateTable("spaces").set({ gitSync }).where("id", "=", spaceId).execute();
}
