import type { Executor } from "../../db/database.js";
import type { UserRow } from "../../db/schema.js";
import { notAllowed } from "../../lib/errors.js";
import { getGrantRole, upsertGrant } from "../../permissions/grants.queries.js";
import { addMember, belongsToAnotherOrganization, existingMemberIds, getMember } from "../../permissions/memberships.queries.js";
import { atLeast, isRole, type Role } from "../../permissions/roles.js";
import { getCollection } from "../collections/collections.queries.js";
import { setMemberRole, usersInOtherOrganizations } from "../members/members.queries.js";
import { getSpace } from "../spaces/spaces.queries.js";
import { revokeCredentialsOfUser } from "../users/tokens.queries.js";
import { emailVerificationOf, vouchedOnlyByAnotherOrganization } from "../users/users.policy.js";
import { insertUser, setEmailVerification } from "../users/users.queries.js";
import { getUsersByEmails, holdInvitation, takeHeldInvitations } from "./invites.queries.js";
import type { InviteUsersResult } from "./invites.schemas.js";

/** Longest display name accepted elsewhere (PATCH /users/{id}). */
const DISPLAY_NAME_MAX = 64;

/** How long an email invitation held for an account vouched for by another organization waits. */
export const HELD_INVITATION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Adds people to an organization by email, all or nothing. Known users become members with their
 * role; unknown addresses get a pending account (`quire tokens create --user <email>` activates
 * it). Existing members are left unchanged and not counted. An SSO invite of someone who belongs
 * to another organization adds them without SSO (their login cannot be bound to this
 * organization's identity provider) and reports the email.
 *
 * An account whose address only another organization's identity provider vouched for (it made the
 * account at a first sign-in) is that organization's: whoever controls that provider controls the
 * account, and may have asserted any address. The invitation is held, not given to it, until an
 * operator verifies the address (`quire users verify`, which then claims it), for 30 days, and the
 * email is reported in `heldEmails`.
 *
 * Call inside a transaction. `invites` must hold normalized, distinct emails.
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
  const members = await existingMemberIds(
    trx,
    input.orgId,
    [...existing.values()].map((u) => u.id),
  );
  const expiresAt = new Date(Date.now() + HELD_INVITATION_TTL_MS).toISOString();
  const users: { user: UserRow; role: Role | null; email: string }[] = [];
  const heldEmails: string[] = [];
  for (const invite of input.invites) {
    const known = existing.get(invite.email);
    if (known && !members.has(known.id) && vouchedOnlyByAnotherOrganization(known, input.orgId)) {
      await holdInvitation(trx, { orgId: input.orgId, userId: known.id, role: invite.role, sso: input.sso, expiresAt });
      heldEmails.push(invite.email);
      continue;
    }
    const user =
      known ??
      (await insertUser(trx, {
        email: invite.email,
        displayName: invite.email.slice(0, invite.email.lastIndexOf("@")).slice(0, DISPLAY_NAME_MAX),
        verification: { via: null },
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
  return {
    users: added,
    invited: added.length,
    ...(input.sso ? { failedSSOEmails } : {}),
    ...(heldEmails.length > 0 ? { heldEmails } : {}),
  };
}

/**
 * An operator vouches for the user's address (`quire users verify`, or `quire users create` of an
 * invited account): it becomes verified for every organization. When an identity provider had
 * vouched for it, the account's API tokens and web sessions are revoked first: that provider's
 * sign-ins may have made them, and whoever made them is not the person the operator now vouches
 * for. Then the invitations held for the account (`inviteUsers`) are given to it. Call inside a
 * transaction.
 */
export async function verifyAddressByOperator(
  trx: Executor,
  user: UserRow,
): Promise<{ revokedTokens: number; endedSessions: number; joined: string[] }> {
  const revoked =
    emailVerificationOf(user).via === "idp" ? await revokeCredentialsOfUser(trx, user.id) : { revokedTokens: 0, endedSessions: 0 };
  await setEmailVerification(trx, user.id, { via: "operator" });
  const joined: string[] = [];
  for (const invitation of await takeHeldInvitations(trx, user.id)) {
    const sso = invitation.sso === 1 && !(await belongsToAnotherOrganization(trx, user.id, invitation.orgId));
    const role = isRole(invitation.role) ? invitation.role : null;
    if (await addMember(trx, { orgId: invitation.orgId, userId: user.id, role, sso })) joined.push(invitation.orgId);
  }
  return { ...revoked, joined };
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
