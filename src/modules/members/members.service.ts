import type { Executor } from "../../db/database.js";
import { announceAccessChange } from "../../lib/access-changes.js";
import { conflicting, missing } from "../../lib/errors.js";
import { belongsToAnotherOrganization, getMember } from "../../permissions/memberships.queries.js";
import type { Role } from "../../permissions/roles.js";
import { memberNotFound } from "./members.policy.js";
import { countActiveAdmins, deleteMembership, lockOrganizationMembership, setMemberRole, setMemberSso } from "./members.queries.js";

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
  announceAccessChange({ kind: "organization", orgId: input.orgId, userId: input.userId });
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
  announceAccessChange({ kind: "organization", orgId: input.orgId, userId: input.userId });
  return true;
}

/**
 * Marks a membership as SSO: the organization's identity provider may then sign the member in. A
 * member who also belongs to another organization is refused (as an SSO invitation leaves them a
 * plain member): the provider would otherwise open that account, and what it reaches in the other
 * organization, to whoever the provider says is them. Call inside a transaction.
 */
export async function markSsoMember(trx: Executor, input: { orgId: string; userId: string }): Promise<void> {
  if (!(await getMember(trx, input.orgId, input.userId))) throw missing(memberNotFound(input.userId));
  if (await belongsToAnotherOrganization(trx, input.userId, input.orgId)) {
    throw conflicting(
      "This member also belongs to another organization, so their account cannot be tied to this organization's single sign-on; " +
        "they keep signing in as they do now.",
    );
  }
  await setMemberSso(trx, input.orgId, input.userId, true);
}
