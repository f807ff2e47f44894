/** SCIM tokens, the identity provider's external ids, and the member and team rows SCIM reads and writes. */
import type { Executor } from "../../db/database.js";
import type { ScimTokenRow } from "../../db/schema.js";
import { hashToken, newId, randomBase62 } from "../../lib/ids.js";
import { nowIso } from "../../lib/time.js";
import type { ScimFilter } from "./scim-filter.model.js";

export const SCIM_TOKEN_PREFIX = "qscim_";

export async function insertScimToken(
  db: Executor,
  input: { orgId: string; label: string; createdBy: string | null },
): Promise<{ row: ScimTokenRow; token: string }> {
  const token = SCIM_TOKEN_PREFIX + randomBase62(40);
  const row: ScimTokenRow = {
    id: newId(),
    orgId: input.orgId,
    label: input.label,
    tokenHash: hashToken(token),
    createdBy: input.createdBy,
    createdAt: nowIso(),
    lastUsedAt: null,
    revokedAt: null,
  };
  await db.insertInto("scimTokens").values(row).execute();
  return { row, token };
}

export function listScimTokens(db: Executor, orgId: string): Promise<ScimTokenRow[]> {
  return db.selectFrom("scimTokens").selectAll().where("orgId", "=", orgId).orderBy("createdAt").orderBy("id").execute();
}

/** Revokes a token of the organization; false when it has no such token. */
export async function revokeScimToken(db: Executor, orgId: string, id: string): Promise<boolean> {
  const found = await db
    .selectFrom("scimTokens")
    .select(["id", "revokedAt"])
    .where("orgId", "=", orgId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!found) return false;
  if (found.revokedAt === null) await db.updateTable("scimTokens").set({ revokedAt: nowIso() }).where("id", "=", id).execute();
  return true;
}

/** The live token with this value (by its hash); undefined when unknown or revoked. */
export async function activeScimToken(db: Executor, token: string): Promise<ScimTokenRow | undefined> {
  const row = await db.selectFrom("scimTokens").selectAll().where("tokenHash", "=", hashToken(token)).executeTakeFirst();
  return row && row.revokedAt === null ? row : undefined;
}

export async function touchScimToken(db: Executor, id: string): Promise<void> {
  await db.updateTable("scimTokens").set({ lastUsedAt: nowIso() }).where("id", "=", id).execute();
}

export type ScimResourceType = "User" | "Group";

export async function externalIdsOf(db: Executor, orgId: string, type: ScimResourceType, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("scimExternalIds")
    .select(["resourceId", "externalId"])
    .where("orgId", "=", orgId)
    .where("resourceType", "=", type)
    .where("resourceId", "in", ids)
    .execute();
  return new Map(rows.map((r) => [r.resourceId, r.externalId]));
}

export async function setExternalId(
  db: Executor,
  orgId: string,
  type: ScimResourceType,
  id: string,
  externalId: string | null,
): Promise<void> {
  await db.deleteFrom("scimExternalIds").where("orgId", "=", orgId).where("resourceType", "=", type).where("resourceId", "=", id).execute();
  if (externalId !== null)
    await db.insertInto("scimExternalIds").values({ orgId, resourceType: type, resourceId: id, externalId }).execute();
}

export interface ScimMemberRow {
  userId: string;
  email: string;
  displayName: string;
  disabled: number;
  joinedAt: string;
  updatedAt: string;
}

/** One page of the organization's members that match every filter (`userName`, `externalId`, `id`, `emails.value`). */
export async function findScimUsers(
  db: Executor,
  orgId: string,
  filters: ScimFilter[],
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: ScimMemberRow[] }> {
  let query = db.selectFrom("members").innerJoin("users", "users.id", "members.userId").where("members.orgId", "=", orgId);
  for (const { attribute, value } of filters) {
    if (attribute === "username" || attribute === "emails.value" || attribute === "emails")
      query = query.where("users.email", "=", value.trim().toLowerCase());
    else if (attribute === "id") query = query.where("users.id", "=", value);
    else if (attribute === "externalid") {
      query = query.where("users.id", "in", (qb) =>
        qb
          .selectFrom("scimExternalIds")
          .select("resourceId")
          .where("orgId", "=", orgId)
          .where("resourceType", "=", "User")
          .where("externalId", "=", value),
      );
    }
  }
  const count = await query.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirst();
  const rows = await query
    .select(["users.id as userId", "users.email", "users.displayName", "members.disabled", "members.joinedAt", "users.updatedAt"])
    .orderBy("members.joinedAt")
    .orderBy("users.id")
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  return { total: Number(count?.n ?? 0), rows };
}

export interface ScimTeamRow {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
}

/** One page of the organization's teams that match every filter (`displayName`, `externalId`, `id`). */
export async function findScimGroups(
  db: Executor,
  orgId: string,
  filters: ScimFilter[],
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: ScimTeamRow[] }> {
  let query = db.selectFrom("teams").where("teams.orgId", "=", orgId);
  for (const { attribute, value } of filters) {
    if (attribute === "displayname") query = query.where("teams.title", "=", value);
    else if (attribute === "id") query = query.where("teams.id", "=", value);
    else if (attribute === "externalid") {
      query = query.where("teams.id", "in", (qb) =>
        qb
          .selectFrom("scimExternalIds")
          .select("resourceId")
          .where("orgId", "=", orgId)
          .where("resourceType", "=", "Group")
          .where("externalId", "=", value),
      );
    } else if (attribute === "members.value") {
      query = query.where("teams.id", "in", (qb) => qb.selectFrom("teamMembers").select("teamId").where("userId", "=", value));
    }
  }
  const count = await query.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirst();
  const rows = await query
    .select(["teams.id", "teams.title", "teams.createdAt", "teams.updatedAt"])
    .orderBy("teams.createdAt")
    .orderBy("teams.id")
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  return { total: Number(count?.n ?? 0), rows };
}

/** Members of teams, with their email, for presenting groups. */
export async function membersOfTeams(db: Executor, teamIds: string[]): Promise<Map<string, { userId: string; displayName: string }[]>> {
  const map = new Map<string, { userId: string; displayName: string }[]>(teamIds.map((id) => [id, []]));
  if (teamIds.length === 0) return map;
  const rows = await db
    .selectFrom("teamMembers")
    .innerJoin("users", "users.id", "teamMembers.userId")
    .select(["teamMembers.teamId", "teamMembers.userId", "users.displayName"])
    .where("teamMembers.teamId", "in", teamIds)
    .orderBy("teamMembers.createdAt")
    .orderBy("teamMembers.userId")
    .execute();
  for (const r of rows) map.get(r.teamId)?.push({ userId: r.userId, displayName: r.displayName });
  return map;
}

/** The teams of the organization each user is in (the read-only `groups` of a User). */
export async function teamsOfUsers(db: Executor, orgId: string, userIds: string[]): Promise<Map<string, { id: string; title: string }[]>> {
  const map = new Map<string, { id: string; title: string }[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return map;
  const rows = await db
    .selectFrom("teamMembers")
    .innerJoin("teams", "teams.id", "teamMembers.teamId")
    .select(["teamMembers.userId", "teams.id", "teams.title"])
    .where("teams.orgId", "=", orgId)
    .where("teamMembers.userId", "in", userIds)
    .orderBy("teams.title")
    .execute();
  for (const r of rows) map.get(r.userId)?.push({ id: r.id, title: r.title });
  return map;
}

export async function setMemberDisabled(db: Executor, orgId: string, userId: string, disabled: boolean): Promise<void> {
  await db
    .updateTable("members")
    .set({ disabled: disabled ? 1 : 0 })
    .where("orgId", "=", orgId)
    .where("userId", "=", userId)
    .execute();
}

export async function setUserEmail(db: Executor, userId: string, email: string): Promise<void> {
  await db.updateTable("users").set({ email, updatedAt: nowIso() }).where("id", "=", userId).execute();
}

export async function touchTeam(db: Executor, teamId: string): Promise<void> {
  await db.updateTable("teams").set({ updatedAt: nowIso() }).where("id", "=", teamId).execute();
}
