import type { DialectName, Executor } from "../../db/database.js";
import { containsInsensitive } from "../../db/dialect.js";
import type { TeamRow } from "../../db/schema.js";
import { newId } from "../../lib/ids.js";
import { type Page, paginate } from "../../lib/pagination.js";
import { nowIso } from "../../lib/time.js";
import { type MemberWithUser, membersWithUsers, toMemberWithUser } from "../members/members.queries.js";
import type { TeamMemberRoleValue } from "./teams.schemas.js";

/** Counts shown on a team. */
export interface TeamCounts {
  members: number;
  /** Non-deleted spaces the team has a grant on. */
  spaces: number;
}

/** A team of this organization; another organization's team id finds nothing. */
export function getTeam(db: Executor, orgId: string, teamId: string): Promise<TeamRow | undefined> {
  return db.selectFrom("teams").selectAll().where("orgId", "=", orgId).where("id", "=", teamId).executeTakeFirst();
}

export interface ListTeamsOptions {
  page?: string | undefined;
  limit?: number | undefined;
  title?: string | undefined;
  /** Only the teams this user owns. */
  ownedBy?: string | undefined;
}

/** One page of the organization's teams, oldest first. */
export function listTeams(db: Executor, dialect: DialectName, orgId: string, options: ListTeamsOptions): Promise<Page<TeamRow>> {
  let query = db.selectFrom("teams").selectAll("teams").where("teams.orgId", "=", orgId);
  const title = options.title?.trim();
  if (title) query = query.where(containsInsensitive(dialect, "teams.title", title));
  if (options.ownedBy) {
    const ownedBy = options.ownedBy;
    query = query.where("teams.id", "in", (eb) =>
      eb
        .selectFrom("teamMembers")
        .select("teamMembers.teamId")
        .where("teamMembers.userId", "=", ownedBy)
        .where("teamMembers.role", "=", "owner"),
    );
  }
  return paginate(
    query,
    [
      { column: "teams.createdAt", direction: "asc", value: (r) => r.createdAt },
      { column: "teams.id", direction: "asc", value: (r) => r.id },
    ],
    options,
  );
}

export interface TeamOfMember extends TeamRow {
  memberRole: TeamMemberRoleValue;
}

/** One page of the organization's teams that a user belongs to, with their role in each. */
export async function listTeamsOfMember(
  db: Executor,
  dialect: DialectName,
  orgId: string,
  userId: string,
  options: { page?: string | undefined; limit?: number | undefined; title?: string | undefined },
): Promise<Page<TeamOfMember>> {
  let query = db
    .selectFrom("teams")
    .innerJoin("teamMembers", "teamMembers.teamId", "teams.id")
    .selectAll("teams")
    .select("teamMembers.role as memberRole")
    .where("teams.orgId", "=", orgId)
    .where("teamMembers.userId", "=", userId);
  const title = options.title?.trim();
  if (title) query = query.where(containsInsensitive(dialect, "teams.title", title));
  const page = await paginate(
    query,
    [
      { column: "teams.createdAt", direction: "asc", value: (r) => r.createdAt },
      { column: "teams.id", direction: "asc", value: (r) => r.id },
    ],
    options,
  );
  return { ...page, rows: page.rows.map((r) => ({ ...r, memberRole: asTeamRole(r.memberRole) })) };
}

/** Member and space counts for many teams, in two queries. */
export async function teamCounts(db: Executor, orgId: string, teamIds: string[]): Promise<Map<string, TeamCounts>> {
  const counts = new Map<string, TeamCounts>(teamIds.map((id) => [id, { members: 0, spaces: 0 }]));
  if (teamIds.length === 0) return counts;
  const [members, spaces] = await Promise.all([
    db
      .selectFrom("teamMembers")
      .select(["teamMembers.teamId", (eb) => eb.fn.countAll<number>().as("count")])
      .where("teamMembers.teamId", "in", teamIds)
      .groupBy("teamMembers.teamId")
      .execute(),
    db
      .selectFrom("grants")
      .innerJoin("spaces", "spaces.id", "grants.targetId")
      .select(["grants.principalId as teamId", (eb) => eb.fn.countAll<number>().as("count")])
      .where("grants.orgId", "=", orgId)
      .where("grants.principalType", "=", "team")
      .where("grants.targetType", "=", "space")
      .where("grants.principalId", "in", teamIds)
      .where("spaces.orgId", "=", orgId)
      .where("spaces.deletedAt", "is", null)
      .groupBy("grants.principalId")
      .execute(),
  ]);
  for (const row of members) counts.get(row.teamId)!.members = Number(row.count);
  for (const row of spaces) counts.get(row.teamId)!.spaces = Number(row.count);
  return counts;
}

/** The teams of an organization among these ids (others' ids are left out). */
export function getTeamsByIds(db: Executor, orgId: string, ids: readonly string[]): Promise<TeamRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom("teams").selectAll().where("orgId", "=", orgId).where("id", "in", ids).execute();
}

export async function insertTeam(db: Executor, input: { orgId: string; title: string }): Promise<TeamRow> {
  const now = nowIso();
  const row: TeamRow = { id: newId(), orgId: input.orgId, title: input.title, createdAt: now, updatedAt: now };
  await db.insertInto("teams").values(row).execute();
  return row;
}

export async function renameTeam(db: Executor, orgId: string, teamId: string, title: string): Promise<void> {
  await db.updateTable("teams").set({ title, updatedAt: nowIso() }).where("orgId", "=", orgId).where("id", "=", teamId).execute();
}

/** Deletes a team with its memberships and its grants. Returns false when there was no such team. */
export async function deleteTeam(db: Executor, orgId: string, teamId: string): Promise<boolean> {
  const team = await getTeam(db, orgId, teamId);
  if (!team) return false;
  await db.deleteFrom("teamMembers").where("teamId", "=", team.id).execute();
  await db.deleteFrom("grants").where("orgId", "=", orgId).where("principalType", "=", "team").where("principalId", "=", team.id).execute();
  await db.deleteFrom("teams").where("id", "=", team.id).execute();
  return true;
}

export interface TeamMemberRow extends MemberWithUser {
  teamRole: TeamMemberRoleValue;
}

/** One page of a team's members with their organization membership, in the order they joined the team. */
export async function listTeamMembers(
  db: Executor,
  orgId: string,
  teamId: string,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<TeamMemberRow>> {
  const query = membersWithUsers(db, orgId)
    .innerJoin("teamMembers", "teamMembers.userId", "members.userId")
    .select(["teamMembers.role as teamRole", "teamMembers.createdAt as teamJoinedAt"])
    .where("teamMembers.teamId", "=", teamId);
  const page = await paginate(
    query,
    [
      { column: "teamMembers.createdAt", direction: "asc", value: (r) => r.teamJoinedAt },
      { column: "teamMembers.userId", direction: "asc", value: (r) => r.userId },
    ],
    options,
  );
  return {
    ...page,
    rows: page.rows.map(({ teamRole, teamJoinedAt: _joined, ...row }) => ({ ...toMemberWithUser(row), teamRole: asTeamRole(teamRole) })),
  };
}

/** Current roles in a team of the given users (absent when not in the team). */
/** The ids of every member of a team. */
export async function teamMemberIds(db: Executor, teamId: string): Promise<string[]> {
  return (await db.selectFrom("teamMembers").select("userId").where("teamId", "=", teamId).execute()).map((row) => row.userId);
}

export async function teamRolesOf(db: Executor, teamId: string, userIds: string[]): Promise<Map<string, TeamMemberRoleValue>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("teamMembers")
    .select(["userId", "role"])
    .where("teamId", "=", teamId)
    .where("userId", "in", userIds)
    .execute();
  return new Map(rows.map((r) => [r.userId, asTeamRole(r.role)]));
}

export async function insertTeamMembers(
  db: Executor,
  teamId: string,
  members: { userId: string; role: TeamMemberRoleValue }[],
): Promise<void> {
  if (members.length === 0) return;
  const now = nowIso();
  await db
    .insertInto("teamMembers")
    .values(members.map((m) => ({ teamId, userId: m.userId, role: m.role, createdAt: now })))
    .onConflict((oc) => oc.columns(["teamId", "userId"]).doNothing())
    .execute();
}

export async function setTeamMemberRole(db: Executor, teamId: string, userId: string, role: TeamMemberRoleValue): Promise<void> {
  await db.updateTable("teamMembers").set({ role }).where("teamId", "=", teamId).where("userId", "=", userId).execute();
}

/** Returns the number of memberships removed. */
export async function deleteTeamMembers(db: Executor, teamId: string, userIds: string[]): Promise<number> {
  if (userIds.length === 0) return 0;
  const result = await db.deleteFrom("teamMembers").where("teamId", "=", teamId).where("userId", "in", userIds).executeTakeFirst();
  return Number(result.numDeletedRows);
}

function asTeamRole(value: string): TeamMemberRoleValue {
  return value === "owner" ? "owner" : "member";
}
