import type { OrgAccess } from "../../permissions/access.js";
import { atLeast, type Role } from "../../permissions/roles.js";

/** Members see that invite links exist (403 rather than 404); only admins manage them. */
export function linkInvitePermissions(access: Pick<OrgAccess, "membership">): { view: boolean; admin: boolean } {
  const membership = access.membership;
  return { view: !!membership, admin: membership?.role === "admin" };
}

/**
 * An organization invite is redundant for a caller who already has its role or a higher one; any
 * membership covers a guest invite.
 */
export function isInviteRedundant(access: Pick<OrgAccess, "membership">, invite: { role: Role | null }): boolean {
  const membership = access.membership;
  if (!membership) return false;
  return invite.role === null || atLeast(membership.role, invite.role);
}
