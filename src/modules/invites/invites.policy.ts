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

// Practical address check: one @, no spaces or brackets, a dotted domain with a letter TLD.
const EMAIL = /^[^\s@"<>(),;:\\[\]]+@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** Whether a (normalized) address may be invited: the API's invitations and the app's check it alike. */
export function isInvitableEmail(email: string): boolean {
  return EMAIL.test(email);
}
