/**
 * Loading a collection with the caller's access, and checking a place where the caller adds
 * content (a collection or the top level of an organization).
 */
import type { Executor } from "../../db/database.js";
import type { CollectionRow } from "../../db/schema.js";
import { missing, notAllowed } from "../../lib/errors.js";
import type { OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { canCreateIn, collectionPermissions } from "./collections.policy.js";
import { getCollection } from "./collections.queries.js";
import type { CollectionPermissionsValue } from "./collections.schemas.js";

export interface LoadedCollection {
  collection: CollectionRow;
  access: OrgAccess;
  permissions: CollectionPermissionsValue;
}

export const collectionNotFound = (id: string) => missing(`No collection with id "${id}".`);

/** A collection with the caller's access and permissions, or undefined when missing. */
export async function loadCollection(db: Executor, actor: Actor, id: string): Promise<LoadedCollection | undefined> {
  const collection = await getCollection(db, id);
  if (!collection) return undefined;
  const access = await actor.access.forOrg(collection.orgId);
  return { collection, access, permissions: collectionPermissions(access, collection) };
}

/** Like loadCollection, but 404 when it is missing or the caller may not view it (outsiders cannot tell). */
export async function requireCollection(db: Executor, actor: Actor, id: string): Promise<LoadedCollection> {
  const loaded = await loadCollection(db, actor, id);
  if (!loaded?.permissions.view) throw collectionNotFound(id);
  return loaded;
}

/**
 * Checks that the caller may add content at a place of an organization: inside collection
 * `parentId` (404 when it is not a collection of that organization the caller can see, 403
 * without `create` on it), or at the top level (403 without the organization role `create`).
 */
export async function requireCreateDestination(
  db: Executor,
  actor: Actor,
  orgId: string,
  parentId: string | null,
): Promise<{ access: OrgAccess; parent: CollectionRow | null }> {
  const access = await actor.access.forOrg(orgId);
  if (parentId === null) {
    if (!canCreateIn(access, null)) {
      throw notAllowed("Adding content at the top level of the organization needs the organization role create or admin.");
    }
    return { access, parent: null };
  }
  const parent = await getCollection(db, parentId);
  if (!parent || parent.orgId !== orgId || !collectionPermissions(access, parent).view) {
    throw missing(`No collection with id "${parentId}" in this organization.`);
  }
  if (!canCreateIn(access, parent)) {
    throw notAllowed(`Adding content to collection "${parentId}" needs the create or admin level on it.`);
  }
  return { access, parent };
}
