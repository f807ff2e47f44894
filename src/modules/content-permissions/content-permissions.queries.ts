import type { Executor } from "../../db/database.js";
import type { TeamRow, UserRow } from "../../db/schema.js";
import { type Page, paginate } from "../../http/pagination.js";
import { nowIso } from "../../lib/time.js";
import { isRole, type Role } from "../../permissions/roles.js";

export type TargetType = "space" | "collection";
export type PrincipalType = "user" | "team";

export interface GrantKey {
  targetId: string;
  principalType: PrincipalType;
  principalId: string;
}

/** Gives a user or team a level on a space or collection, replacing any level it had there. */
export async function upsertGrant(
  db: Executor,
  input: GrantKey & { orgId: string; targetType: TargetType; role: Role; createdAt?: string },
): Promise<void> {
  await db
    .insertInto("grants")
    .values({ ...input, createdAt: input.createdAt ?? nowIso() })
    .onConflict((oc) => oc.columns(["targetId", "principalType", "principalId"]).doUpdateSet({ role: input.role }))
    .execute();
}

export async function getGrantRole(db: Executor, key: GrantKey): Promise<Role | undefined> {
  const row = await db
    .selectFrom("grants")
    .select("role")
    .where("targetId", "=", key.targetId)
    .where("principalType", "=", key.principalType)
    .where("principalId", "=", key.principalId)
    .executeTakeFirst();
  return row && isRole(row.role) ? row.role : undefined;
}

/** Returns true when a grant was removed. */
export async function deleteGrant(db: Executor, key: GrantKey): Promise<boolean> {
  const result = await db
    .deleteFrom("grants")
    .where("targetId", "=", key.targetId)
    .where("principalType", "=", key.principalType)
    .where("principalId", "=", key.principalId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Forgets every grant and invite link on these objects (deleted, or moved to another organization). */
export async function deleteAccessToTargets(db: Executor, targetIds: readonly string[]): Promise<void> {
  if (targetIds.length === 0) return;
  await db.deleteFrom("grants").where("targetId", "in", targetIds).execute();
  await db.deleteFrom("linkInvites").where("targetId", "in", targetIds).execute();
}

/** Gives `to` the same user and team grants as `from` (a duplicated space). */
export async function copyGrants(db: Executor, fromTargetId: string, to: { targetId: string; targetType: TargetType }): Promise<void> {
  const rows = await db.selectFrom("grants").selectAll().where("targetId", "=", fromTargetId).execute();
  if (rows.length === 0) return;
  const now = nowIso();
  await db
    .insertInto("grants")
    .values(rows.map((r) => ({ ...r, targetId: to.targetId, targetType: to.targetType, createdAt: now })))
    .execute();
}

export interface UserGrantRow extends UserRow {
  grantRole: string;
  grantCreatedAt: string;
}

/** Users granted a level directly on an object, oldest grant first. */
export function listUserGrants(
  db: Executor,
  targetId: string,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<UserGrantRow>> {
  const query = db
    .selectFrom("grants")
    .innerJoin("users", "users.id", "grants.principalId")
    .selectAll("users")
    .select(["grants.role as grantRole", "grants.createdAt as grantCreatedAt"])
    .where("grants.targetId", "=", targetId)
    .where("grants.principalType", "=", "user");
  return paginate(
    query,
    [
      { column: "grants.createdAt", direction: "asc", value: (r) => r.grantCreatedAt },
      { column: "grants.principalId", direction: "asc", value: (r) => r.id },
    ],
    options,
  );
}

export interface TeamGrantRow extends TeamRow {
  grantRole: string;
  grantCreatedAt: string;
}

/** Teams granted a level on an object, oldest grant first. */
export function listTeamGrants(
  db: Executor,
  targetId: string,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<TeamGrantRow>> {
  const query = db
    .selectFrom("grants")
    .innerJoin("teams", "teams.id", "grants.principalId")
    .selectAll("teams")
    .select(["grants.role as grantRole", "grants.createdAt as grantCreatedAt"])
    .where("grants.targetId", "=", targetId)
    .where("grants.principalType", "=", "team");
  return paginate(
    query,
    [
      { column: "grants.createdAt", direction: "asc", value: (r) => r.grantCreatedAt },
      { column: "grants.principalId", direction: "asc", value: (r) => r.id },
    ],
    options,
  );
}

/** The subset of `userIds` that are members (guests and disabled members included) of the organization. */
export async function existingMemberIds(db: Executor, orgId: string, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db.selectFrom("members").select("userId").where("orgId", "=", orgId).where("userId", "in", userIds).execute();
  return new Set(rows.map((r) => r.userId));
}

/** The subset of `teamIds` that are teams of the organization. */
export async function existingTeamIds(db: Executor, orgId: string, teamIds: readonly string[]): Promise<Set<string>> {
  if (teamIds.length === 0) return new Set();
  const rows = await db.selectFrom("teams").select("id").where("orgId", "=", orgId).where("id", "in", teamIds).execute();
  return new Set(rows.map((r) => r.id));
}

/** Enabled members of an organization with their join date (the order of the aggregate list). */
export function listEnabledMembers(db: Executor, orgId: string): Promise<{ userId: string; joinedAt: string }[]> {
  return db.selectFrom("members").select(["userId", "joinedAt"]).where("orgId", "=", orgId).where("disabled", "=", 0).execute();
}
