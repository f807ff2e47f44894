import type { OrgAccess } from "../../permissions/access.js";

/** What the caller may do with one membership of an organization they belong to. */
export interface MemberPermissions {
  /** The caller belongs to the organization, so its memberships are not hidden from them (404 otherwise). */
  view: boolean;
  /** Read the member and list members: everyone but guests. */
  read: boolean;
  /** Change the member's role or mark them as an SSO member. */
  update: boolean;
  /** Remove the member: admins, or the member themselves (leaving the organization). */
  remove: boolean;
}

/**
 * Guests see the organization but not who else belongs to it; only admins change memberships,
 * and anyone may leave.
 */
export function memberPermissions(access: Pick<OrgAccess, "membership" | "userId">, target: { userId: string }): MemberPermissions {
  const membership = access.membership;
  const role = membership?.role ?? null;
  const member = !!membership;
  const admin = role === "admin";
  return {
    view: member,
    read: member && role !== null,
    update: admin,
    remove: admin || (member && access.userId === target.userId),
  };
}

export const memberNotFound = (userId: string) => `No member with id "${userId}" in this organization.`;
export const GUEST_FORBIDDEN = "Guests cannot see the organization's members.";
