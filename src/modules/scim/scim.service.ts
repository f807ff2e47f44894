/**
 * SCIM provisioning of an organization's members and teams, in the transaction the caller opens.
 * The SCIM client is the organization's identity provider: the accounts it creates are vouched for
 * by this organization only (as a SAML sign-in's, README "Email addresses and organizations"), and
 * it never takes over an account it did not create: an address whose account exists outside the
 * organization is refused (invite it instead), and it changes an address only of an account this
 * organization vouches for and that belongs to no other organization.
 */
import type { Executor } from "../../db/database.js";
import { conflicting, invalid, missing } from "../../lib/errors.js";
import { addMember, belongsToAnotherOrganization, getMember } from "../../permissions/memberships.queries.js";
import { isRole } from "../../permissions/roles.js";
import { removeMember } from "../members/members.service.js";
import { getOrganization } from "../organizations/organizations.queries.js";
import {
  deleteTeam,
  deleteTeamMembers,
  getTeam,
  insertTeamMembers,
  renameTeam,
  teamMemberIds,
  teamRolesOf,
} from "../teams/teams.queries.js";
import { createTeam } from "../teams/teams.service.js";
import { vouchedByOrganization } from "../users/users.policy.js";
import { getUserByEmail, getUserById, insertUser, normalizeEmail, updateUser } from "../users/users.queries.js";
import { setExternalId, setMemberDisabled, setUserEmail, touchTeam } from "./scim.queries.js";
import type { UserChange } from "./scim-patch.model.js";

const DISPLAY_NAME_MAX = 64;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export const userNotFound = (id: string) => `No user with id "${id}" is a member of this organization.`;
export const groupNotFound = (id: string) => `No group with id "${id}" in this organization.`;

function emailOf(userName: string | undefined): string {
  if (userName === undefined || !EMAIL.test(userName.trim()) || userName.length > 254) {
    throw invalid(`invalidValue: userName must be the member's email address, got "${String(userName).slice(0, 100)}".`);
  }
  return normalizeEmail(userName);
}

function displayNameOf(change: UserChange, fallback: string): string {
  const name = change.displayName?.trim() || [change.givenName, change.familyName].filter(Boolean).join(" ").trim();
  return (name || fallback).slice(0, DISPLAY_NAME_MAX);
}

/** POST /Users: a new account and membership (SSO, the organization's default role). */
export async function createScimUser(trx: Executor, orgId: string, change: UserChange): Promise<string> {
  const email = emailOf(change.userName);
  const existing = await getUserByEmail(trx, email);
  if (existing) {
    if (await getMember(trx, orgId, existing.id))
      throw conflicting(`uniqueness: ${email} is already a member of this organization (id "${existing.id}").`);
    throw conflicting(
      `uniqueness: an account with the email ${email} exists outside this organization; SCIM does not take it over. An organization admin can invite it (POST /v1/orgs/{org}/invites).`,
    );
  }
  const org = await getOrganization(trx, orgId);
  const user = await insertUser(trx, {
    email,
    displayName: displayNameOf(change, email.split("@")[0] ?? email),
    verification: { via: "idp", orgId },
    pending: false,
  });
  await addMember(trx, { orgId, userId: user.id, role: org && isRole(org.defaultRole) ? org.defaultRole : "read", sso: true });
  if (change.active === false) await setMemberDisabled(trx, orgId, user.id, true);
  if (change.externalId) await setExternalId(trx, orgId, "User", user.id, change.externalId);
  return user.id;
}

/** PUT and PATCH /Users/{id}: applies the change to a member of the organization. */
export async function changeScimUser(trx: Executor, orgId: string, userId: string, change: UserChange): Promise<void> {
  const user = await getUserById(trx, userId);
  if (!user || !(await getMember(trx, orgId, userId))) throw missing(userNotFound(userId));
  if (change.userName !== undefined) {
    const email = emailOf(change.userName);
    if (email !== user.email) {
      if (!vouchedByOrganization(user, orgId) || (await belongsToAnotherOrganization(trx, userId, orgId))) {
        throw invalid(
          `mutability: the email address of ${user.email} cannot be changed through this organization's SCIM: the account was not created by it, or also belongs to another organization.`,
        );
      }
      if (await getUserByEmail(trx, email)) throw conflicting(`uniqueness: another account already has the email ${email}.`);
      await setUserEmail(trx, userId, email);
    }
  }
  if (change.displayName !== undefined || change.givenName !== undefined || change.familyName !== undefined) {
    // A patch of one part of the name keeps the other part (the display name is split as SCIM shows it).
    const parts = user.displayName.trim().split(/\s+/);
    const current =
      parts.length < 2
        ? { givenName: parts[0] ?? "", familyName: "" }
        : { givenName: parts.slice(0, -1).join(" "), familyName: parts.at(-1) ?? "" };
    const displayName = displayNameOf(
      change.displayName !== undefined
        ? change
        : { givenName: change.givenName ?? current.givenName, familyName: change.familyName ?? current.familyName },
      user.displayName,
    );
    if (displayName !== user.displayName) await updateUser(trx, userId, { displayName });
  }
  if (change.active !== undefined) await setMemberDisabled(trx, orgId, userId, !change.active);
  if (change.externalId !== undefined) await setExternalId(trx, orgId, "User", userId, change.externalId);
}

/** DELETE /Users/{id}: the membership ends (with its teams and grants); the account itself stays. */
export async function deleteScimUser(trx: Executor, orgId: string, userId: string): Promise<void> {
  if (!(await removeMember(trx, { orgId, userId }))) throw missing(userNotFound(userId));
  await setExternalId(trx, orgId, "User", userId, null);
}

async function checkMembers(trx: Executor, orgId: string, userIds: string[]): Promise<string[]> {
  const unique = [...new Set(userIds)];
  for (const id of unique) {
    if (!(await getMember(trx, orgId, id)))
      throw invalid(`invalidValue: members names "${id}", which is not a member of this organization.`);
  }
  return unique;
}

export async function createScimGroup(
  trx: Executor,
  orgId: string,
  input: { displayName: string; externalId?: string | undefined; members: string[] },
): Promise<string> {
  const team = await createTeam(trx, { orgId, title: input.displayName, memberIds: await checkMembers(trx, orgId, input.members) });
  if (input.externalId) await setExternalId(trx, orgId, "Group", team.id, input.externalId);
  return team.id;
}

/** PUT and PATCH /Groups/{id}: rename, external id, members set, added or removed (user ids). */
export async function changeScimGroup(
  trx: Executor,
  orgId: string,
  teamId: string,
  change: { displayName?: string; externalId?: string | null; setMembers?: string[]; addMembers?: string[]; removeMembers?: string[] },
): Promise<void> {
  const team = await getTeam(trx, orgId, teamId);
  if (!team) throw missing(groupNotFound(teamId));
  if (change.displayName !== undefined && change.displayName !== team.title) await renameTeam(trx, orgId, teamId, change.displayName);
  if (change.externalId !== undefined) await setExternalId(trx, orgId, "Group", teamId, change.externalId);
  if (change.setMembers !== undefined) {
    const wanted = new Set(await checkMembers(trx, orgId, change.setMembers));
    const current = await teamMemberIds(trx, teamId);
    await deleteTeamMembers(
      trx,
      teamId,
      current.filter((id) => !wanted.has(id)),
    );
    await insertTeamMembers(
      trx,
      teamId,
      [...wanted].map((userId) => ({ userId, role: "member" as const })),
    );
  }
  if (change.addMembers?.length) {
    const ids = await checkMembers(trx, orgId, change.addMembers);
    const present = await teamRolesOf(trx, teamId, ids);
    await insertTeamMembers(
      trx,
      teamId,
      ids.filter((id) => !present.has(id)).map((userId) => ({ userId, role: "member" as const })),
    );
  }
  if (change.removeMembers?.length) await deleteTeamMembers(trx, teamId, [...new Set(change.removeMembers)]);
  await touchTeam(trx, teamId);
}

export async function deleteScimGroup(trx: Executor, orgId: string, teamId: string): Promise<void> {
  if (!(await deleteTeam(trx, orgId, teamId))) throw missing(groupNotFound(teamId));
  await setExternalId(trx, orgId, "Group", teamId, null);
}
