/**
 * Loading a space with the caller's access: what every family that works on a space calls first
 * (404 for a space the caller may not see, as for one that does not exist).
 */
import type { Executor } from "../../db/database.js";
import type { SpaceRow } from "../../db/schema.js";
import { missing } from "../../lib/errors.js";
import { type Page, paginateRows, type SortKey } from "../../lib/pagination.js";
import { contentLevel, type OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { atLeast, type Role } from "../../permissions/roles.js";
import { spacePermissionsForLevel } from "./spaces.policy.js";
import { getSpace, getSpacesByIds, type SpaceNodeRow, spaceRowsNow } from "./spaces.queries.js";
import type { SpacePermissionsValue } from "./spaces.schemas.js";

export interface LoadedSpace {
  space: SpaceRow;
  access: OrgAccess;
  level: Role | null;
  permissions: SpacePermissionsValue;
}

export const spaceNotFound = (id: string) => missing(`No space with id "${id}".`);

/** A space with the caller's access and permissions, or undefined when missing. */
export async function loadSpace(db: Executor, actor: Actor, id: string): Promise<LoadedSpace | undefined> {
  // Nearly every request loads a space: its kept rows answer without a promise each where they can.
  const [space] = spaceRowsNow(db, id) ?? [await getSpace(db, id)];
  if (!space) return undefined;
  const access = actor.access.forOrgNow(space.orgId) ?? (await actor.access.forOrg(space.orgId));
  const level = contentLevel(access, space);
  return { space, access, level, permissions: spacePermissionsForLevel(level, space) };
}

/**
 * A space the caller may view: 404 when it is missing or they may not (outsiders cannot tell);
 * a deleted space is visible to its admins only.
 */
export async function requireSpace(db: Executor, actor: Actor, id: string): Promise<LoadedSpace> {
  const loaded = await loadSpace(db, actor, id);
  if (!loaded?.permissions.view) throw spaceNotFound(id);
  return loaded;
}

/** A space that is not deleted: writes other than restore and delete need one. */
export async function requireLiveSpace(db: Executor, actor: Actor, id: string): Promise<LoadedSpace> {
  const loaded = await requireSpace(db, actor, id);
  if (loaded.space.deletedAt) {
    throw missing(`Space "${id}" is deleted; restore it first with POST /v1/spaces/${id}/restore.`);
  }
  return loaded;
}

/**
 * The spaces among `nodes` that `access` may read, with the level it has on each, in the order
 * given: one in-memory resolution over nodes loaded once (e.g. `listSpaceNodes` of an organization).
 */
export function readableSpaceNodes(access: OrgAccess, nodes: readonly SpaceNodeRow[]): (SpaceNodeRow & { level: Role })[] {
  const readable: (SpaceNodeRow & { level: Role })[] = [];
  for (const node of nodes) {
    const level = contentLevel(access, node);
    if (level && atLeast(level, "read")) readable.push({ ...node, level });
  }
  return readable;
}

/**
 * One page of the spaces among `nodes` that `access` may view, in the order of `keys`. Visibility
 * is resolved in memory from the organization's access (loaded once), then only the page's rows
 * are read in full.
 */
export async function pageOfVisibleSpaces(
  db: Executor,
  access: OrgAccess,
  nodes: readonly SpaceNodeRow[],
  keys: Omit<SortKey<SpaceNodeRow>, "column">[],
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<{ space: SpaceRow; level: Role }>> {
  const page = paginateRows(readableSpaceNodes(access, nodes), keys, options);
  const rows = new Map(
    (
      await getSpacesByIds(
        db,
        page.rows.map((n) => n.id),
      )
    ).map((r) => [r.id, r]),
  );
  const items: { space: SpaceRow; level: Role }[] = [];
  for (const node of page.rows) {
    const space = rows.get(node.id);
    // A space deleted between the two reads is left out of this page.
    if (space && !space.deletedAt) items.push({ space, level: node.level });
  }
  return { ...page, rows: items };
}
