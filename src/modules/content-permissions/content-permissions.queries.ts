import type { Executor } from "../../db/database.js";
import type { TeamRow, UserRow } from "../../db/schema.js";
import { type Page, paginate } from "../../lib/pagination.js";

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
