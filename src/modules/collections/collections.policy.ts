import { type ContentNode, contentLevel, type OrgAccess } from "../../permissions/access.js";
import { atLeast, type Role } from "../../permissions/roles.js";
import type { CollectionPermissionsValue } from "./collections.schemas.js";

/** What a caller with this level on a collection may do (docs/permissions.md has the table). */
export function collectionPermissionsForLevel(level: Role | null): CollectionPermissionsValue {
  return {
    view: atLeast(level, "read"),
    admin: atLeast(level, "admin"),
    viewInviteLinks: atLeast(level, "admin"),
    create: atLeast(level, "create"),
  };
}

export function collectionPermissions(access: OrgAccess, collection: ContentNode): CollectionPermissionsValue {
  return collectionPermissionsForLevel(contentLevel(access, collection));
}

/**
 * Whether the caller may create content (or move content) into a collection, or at the top level
 * of the organization when `parent` is null: top level needs the organization role `create`.
 */
export function canCreateIn(access: OrgAccess, parent: ContentNode | null): boolean {
  if (!access.membership) return false;
  if (!parent) return atLeast(access.membership.role, "create");
  return collectionPermissions(access, parent).create;
}
