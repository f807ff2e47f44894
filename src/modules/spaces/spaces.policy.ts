import { type ContentNode, contentLevel, type OrgAccess } from "../../permissions/access.js";
import { atLeast, type Role } from "../../permissions/roles.js";
import type { SpacePermissionsValue } from "./spaces.schemas.js";

export interface SpacePolicyInput {
  editMode: string;
  deletedAt: string | null;
}

const NOTHING: SpacePermissionsValue = {
  view: false,
  access: false,
  admin: false,
  viewInviteLinks: false,
  edit: false,
  triggerGitSync: false,
  comment: false,
  merge: false,
  review: false,
  installIntegration: false,
};

/**
 * What a caller with this level on a space may do (docs/permissions.md has the table). Edits and
 * merges (and a Git sync, which writes content) need the space to be in live edit mode. A deleted
 * space is visible to its admins only, who may restore or delete it and nothing else.
 */
export function spacePermissionsForLevel(level: Role | null, space: SpacePolicyInput): SpacePermissionsValue {
  if (space.deletedAt) {
    const admin = atLeast(level, "admin");
    return { ...NOTHING, view: admin, admin };
  }
  const live = space.editMode === "live";
  return {
    view: atLeast(level, "read"),
    access: atLeast(level, "read"),
    comment: atLeast(level, "comment"),
    edit: atLeast(level, "edit") && live,
    review: atLeast(level, "review"),
    merge: atLeast(level, "review") && live,
    admin: atLeast(level, "admin"),
    viewInviteLinks: atLeast(level, "admin"),
    installIntegration: atLeast(level, "admin"),
    triggerGitSync: atLeast(level, "edit") && live,
  };
}

export function spacePermissions(access: OrgAccess, space: ContentNode & SpacePolicyInput): SpacePermissionsValue {
  return spacePermissionsForLevel(contentLevel(access, space), space);
}
