import type { Executor } from "../../db/database.js";
import type { TeamRow } from "../../db/schema.js";
import { announceAccessChange } from "../../lib/access-changes.js";
import { invalid, missing } from "../../lib/errors.js";
import type { Actor } from "../../permissions/actor.js";
import { getMembersByEmails, getMembersWithUsers } from "../members/members.queries.js";
import { type LoadedOrganization, requireOrganization } from "../organizations/organizations.loader.js";
import { normalizeEmail } from "../users/users.queries.js";
import { teamPermissions } from "./teams.policy.js";
import { deleteTeamMembers, getTeam, insertTeam, insertTeamMembers, setTeamMemberRole, teamRolesOf } from "./teams.queries.js";
import type { TeamMemberRoleValue, TeamPermissionsValue, UpdateTeamMembersValue } from "./teams.schemas.js";

export interface LoadedTeam extends LoadedOrganization {
  team: TeamRow;
  teamPermissions: TeamPermissionsValue;
}

/**
 * Loads a team of an organization the caller belongs to, with the caller's permissions on it.
 * 404 when the organization is not theirs or it has no such team (another organization's team
 * included); authorize() then hides it from callers who may not view it.
 */
export async function requireTeam(db: Executor, actor: Actor, orgId: string, teamId: string): Promise<LoadedTeam> {
  const loaded = await requireOrganization(db, actor, orgId);
  const team = await getTeam(db, loaded.org.id, teamId);
  if (!team) throw missing(teamNotFound(teamId));
  return { ...loaded, team, teamPermissions: teamPermissions(loaded.access, team) };
}

export function teamNotFound(teamId: string): string {
  return `No team with id "${teamId}" in this organization.`;
}

/** Creates a team with the given organization members (role `member`). Call inside a transaction. */
export async function createTeam(trx: Executor, input: { orgId: string; title: string; memberIds: string[] }): Promise<TeamRow> {
  const memberIds = [...new Set(input.memberIds)];
  const found = new Set((await getMembersWithUsers(trx, input.orgId, memberIds)).map((m) => m.userId));
  const unknown = memberIds.find((id) => !found.has(id));
  if (unknown !== undefined) throw invalid(`body.members names "${unknown}", which is not a member of this organization.`);
  const team = await insertTeam(trx, { orgId: input.orgId, title: input.title });
  await insertTeamMembers(
    trx,
    team.id,
    memberIds.map((userId) => ({ userId, role: "member" })),
  );
  return team;
}

/**
 * Applies a bulk change to a team's members, all or nothing. `add` and `remove` take user ids or
 * emails of organization members; a user in both is removed. `memberships` sets roles and adds the
 * users it names who are not in the team yet (unless they are removed). Call inside a transaction.
 */
export async function updateTeamMembers(
  trx: Executor,
  input: { orgId: string; teamId: string; change: UpdateTeamMembersValue },
): Promise<void> {
  const { add = [], remove = [], memberships = {} } = input.change;
  const resolved = await resolveMembers(trx, input.orgId, [
    ...add.map((ref) => ({ ref, field: "body.add" })),
    ...remove.map((ref) => ({ ref, field: "body.remove" })),
    ...Object.keys(memberships).map((ref) => ({ ref, field: "body.memberships" })),
  ]);
  const removed = new Set(remove.map((ref) => resolved.get(ref)!));
  const wanted = new Map<string, TeamMemberRoleValue | undefined>();
  for (const ref of add) {
    const userId = resolved.get(ref)!;
    if (!removed.has(userId) && !wanted.has(userId)) wanted.set(userId, undefined);
  }
  for (const [ref, membership] of Object.entries(memberships)) {
    const userId = resolved.get(ref)!;
    if (!removed.has(userId)) wanted.set(userId, membership.role);
  }

  const current = await teamRolesOf(trx, input.teamId, [...wanted.keys()]);
  const added = [...wanted].filter(([userId]) => !current.has(userId)).map(([userId, role]) => ({ userId, role: role ?? "member" }));
  await insertTeamMembers(trx, input.teamId, added);
  for (const [userId, role] of wanted) {
    const was = current.get(userId);
    if (was && role && was !== role) await setTeamMemberRole(trx, input.teamId, userId, role);
  }
  await deleteTeamMembers(trx, input.teamId, [...removed]);
  announceAccessChange({ kind: "organization", orgId: input.orgId });
}

/** Adds an organization member to a team, or changes their role when `role` is given. Call inside a transaction. */
export async function putTeamMember(
  trx: Executor,
  input: { orgId: string; teamId: string; userId: string; role: TeamMemberRoleValue | undefined },
): Promise<void> {
  const [member] = await getMembersWithUsers(trx, input.orgId, [input.userId]);
  if (!member) throw missing(`No member with id "${input.userId}" in this organization.`);
  const current = (await teamRolesOf(trx, input.teamId, [input.userId])).get(input.userId);
  if (!current) await insertTeamMembers(trx, input.teamId, [{ userId: input.userId, role: input.role ?? "member" }]);
  else if (input.role && input.role !== current) await setTeamMemberRole(trx, input.teamId, input.userId, input.role);
  announceAccessChange({ kind: "organization", orgId: input.orgId, userId: input.userId });
}

/** Maps each reference (user id, or email when it contains "@") to an organization member's id; 400 names the first unknown one. */
async function resolveMembers(trx: Executor, orgId: string, refs: { ref: string; field: string }[]): Promise<Map<string, string>> {
  const emails = [...new Set(refs.filter((r) => r.ref.includes("@")).map((r) => normalizeEmail(r.ref)))];
  const ids = [...new Set(refs.filter((r) => !r.ref.includes("@")).map((r) => r.ref))];
  const [byId, byEmail] = await Promise.all([getMembersWithUsers(trx, orgId, ids), getMembersByEmails(trx, orgId, emails)]);
  const idSet = new Set(byId.map((m) => m.userId));
  const emailToId = new Map(byEmail.map((m) => [m.user.email, m.userId]));
  const resolved = new Map<string, string>();
  for (const { ref, field } of refs) {
    const userId = ref.includes("@") ? emailToId.get(normalizeEmail(ref)) : idSet.has(ref) ? ref : undefined;
    if (!userId) throw invalid(`${field} names "${ref}", which is not a member of this organization.`);
    resolved.set(ref, userId);
  }
  return resolved;
}
