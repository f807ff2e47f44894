import type { Executor } from "../../db/database.js";
import { conflicting, missing } from "../../lib/errors.js";
import { getMember } from "../../permissions/memberships.queries.js";
import type { Role } from "../../permissions/roles.js";
import { countActiveAdmins, deleteMembership, lockOrganizationMembership, setMemberRole } from "./members.queries.js";

const LAST_ADMIN = "The organization must keep at least one active admin: promote another member to admin first.";

/** Changes a member's role, refusing to demote the last active admin. Call inside a transaction. */
export async function changeMemberRole(trx: Executor, input: { orgId: string; userId: string; role: Role | null }): Promise<void> {
  await lockOrganizationMembership(trx, input.orgId);
  const member = await getMember(trx, input.orgId, input.userId);
  if (!member) throw missing(`No member with id "${input.userId}" in this organization.`);
  await setMemberRole(trx, input.orgId, input.userId, input.role);
  if (member.role === "admin" && input.role !== "admin" && (await countActiveAdmins(trx, input.orgId)) === 0) {
    throw conflicting(LAST_ADMIN);
  }
}

/**
 * Removes a member with their team memberships, grants and invite links in the organization, refusing to remove
 * the last active admin. Returns false when the user was not a member. Call inside a transaction.
 */
export async function removeMember(trx: Executor, input: { orgId: string; userId: string }): Promise<boolean> {
  await lockOrganizationMembership(trx, input.orgId);
  const member = await getMember(trx, input.orgId, input.userId);
  if (!member) return false;
  await deleteMembership(trx, input.orgId, input.userId);
  if (member.role === "admin" && (await countActiveAdmins(trx, input.orgId)) === 0) {
    throw conflicting(LAST_ADMIN);
  }
  return true;
}
