import type { Executor } from "../../db/database.js";
import type { UserRow } from "../../db/schema.js";
import { notAllowed } from "../../lib/errors.js";
import { getGrantRole, upsertGrant } from "../../permissions/grants.queries.js";
import { addMember, getMember } from "../../permissions/memberships.queries.js";
import { atLeast, isRole, type Role } from "../../permissions/roles.js";
import { getCollection } from "../collections/collections.queries.js";
import { setMemberRole, usersInOtherOrganizations } from "../members/members.queries.js";
import { getSpace } from "../spaces/spaces.queries.js";
import { insertUser } from "../users/users.queries.js";
import { getUsersByEmails } from "./invites.queries.js";
import type { InviteUsersResult } from "./invites.schemas.js";

/** Longest display name accepted elsewhere (PATCH /users/{id}). */
const DISPLAY_NAME_MAX = 64;

/**
 * Adds people to an organization by email, all or nothing. Known users become members with their
 * role; unknown addresses get a pending account (`quire tokens create --user <email>` activates
 * it). Existing members are left unchanged and not counted. An SSO invite of someone who belongs
 * to another organization adds them without SSO (their login cannot be bound to this
 * organization's identity provider) and reports the email. Call inside a transaction.
 * `invites` must hold normalized, distinct emails.
 */
export async function inviteUsers(
  trx: Executor,
  input: { orgId: string; invites: { email: string; role: Role | null }[]; sso: boolean },
): Promise<InviteUsersResult> {
  const existing = new Map(
    (
      await getUsersByEmails(
        trx,
        input.invites.map((i) => i.email),
      )
    ).map((u) => [u.email, u]),
  );
  const users: { user: UserRow; role: Role | null; email: string }[] = [];
  for (const invite of input.invites) {
    const user =
      existing.get(invite.email) ??
      (await insertUser(trx, {
        email: invite.email,
        displayName: invite.email.slice(0, invite.email.lastIndexOf("@")).slice(0, DISPLAY_NAME_MAX),
        emailVerified: false,
        pending: true,
      }));
    users.push({ user, role: invite.role, email: invite.email });
  }
  const elsewhere = input.sso
    ? await usersInOtherOrganizations(
        trx,
        input.orgId,
        users.map((u) => u.user.id),
      )
    : new Set<string>();
  const added: string[] = [];
  const failedSSOEmails: string[] = [];
  for (const { user, role, email } of users) {
    const sso = input.sso && !elsewhere.has(user.id);
    if (await addMember(trx, { orgId: input.orgId, userId: user.id, role, sso })) {
      added.push(user.id);
      if (input.sso && !sso) failedSSOEmails.push(email);
    }
  }
  return { users: added, invited: added.length, ...(input.sso ? { failedSSOEmails } : {}) };
}

/**
 * Makes the user a member with the invite's role. An existing member keeps a higher role and is
 * raised to the invite's role otherwise; a membership disabled by an admin stays disabled.
 * Call inside a transaction.
 */
export async function joinWithInvite(trx: Executor, input: { orgId: string; userId: string; role: Role | null }): Promise<void> {
  const member = await getMember(trx, input.orgId, input.userId);
  if (!member) {
    await addMember(trx, { orgId: input.orgId, userId: input.userId, role: input.role });
    return;
  }
  if (member.disabled) throw notAllowed("Your membership of this organization has been disabled; an invite link cannot restore it.");
  const current = isRole(member.role) ? member.role : null;
  const raise = input.role !== null && (current === null || !atLeast(current, input.role));
  if (raise) await setMemberRole(trx, input.orgId, input.userId, input.role);
}

/**
 * Using an invite link to a space or a collection: the holder becomes a member of the
 * organization (a guest when new: the link gives access to that content, not to the rest) and is
 * granted the link's level on the content, keeping a higher grant they already have. False, with
 * nothing changed, when the content is gone (deleted, or moved to another organization).
 * Call inside a transaction.
 */
export async function joinWithContentInvite(
  trx: Executor,
  input: { orgId: string; userId: string; target: { type: "space" | "collection"; id: string }; level: Role },
): Promise<boolean> {
  const content = input.target.type === "space" ? await getSpace(trx, input.target.id) : await getCollection(trx, input.target.id);
  if (!content || content.orgId !== input.orgId || ("deletedAt" in content && content.deletedAt)) return false;
  await joinWithInvite(trx, { orgId: input.orgId, userId: input.userId, role: null });
  const key = { targetId: input.target.id, principalType: "user" as const, principalId: input.userId };
  const existing = await getGrantRole(trx, key);
  if (existing && atLeast(existing, input.level)) return true;
  await upsertGrant(trx, { ...key, orgId: input.orgId, targetType: input.target.type, role: input.level });
  return true;
}
