import type { DialectName, Executor } from "../../db/database.js";
import { containsInsensitive } from "../../db/dialect.js";
import type { MemberRow, UserRow } from "../../db/schema.js";
import { type Page, paginate, type SortKey } from "../../lib/pagination.js";
import type { Role } from "../../permissions/roles.js";

/** A membership with its user, as members are presented. */
export interface MemberWithUser extends MemberRow {
  user: UserRow;
}

/** Membership counts shown on a member: direct space grants and teams, within the organization. */
export interface MemberCounts {
  spaces: number;
  teams: number;
}

const memberColumns = [
  "members.orgId",
  "members.userId",
  "members.role",
  "members.sso",
  "members.disabled",
  "members.joinedAt",
  "members.lastSeenAt",
] as const;

const userColumns = [
  "users.id as uId",
  "users.email as uEmail",
  "users.displayName as uDisplayName",
  "users.photoUrl as uPhotoUrl",
  "users.emailVerified as uEmailVerified",
  "users.emailVerifiedVia as uEmailVerifiedVia",
  "users.emailVouchedBy as uEmailVouchedBy",
  "users.pending as uPending",
  "users.createdAt as uCreatedAt",
  "users.updatedAt as uUpdatedAt",
] as const;

export type JoinedMemberRow = MemberRow & {
  uId: string;
  uEmail: string;
  uDisplayName: string;
  uPhotoUrl: string | null;
  uEmailVerified: 0 | 1;
  uEmailVerifiedVia: string | null;
  uEmailVouchedBy: string | null;
  uPending: 0 | 1;
  uCreatedAt: string;
  uUpdatedAt: string;
};

export function toMemberWithUser(row: JoinedMemberRow): MemberWithUser {
  const {
    uId,
    uEmail,
    uDisplayName,
    uPhotoUrl,
    uEmailVerified,
    uEmailVerifiedVia,
    uEmailVouchedBy,
    uPending,
    uCreatedAt,
    uUpdatedAt,
    ...member
  } = row;
  return {
    ...member,
    user: {
      id: uId,
      email: uEmail,
      displayName: uDisplayName,
      photoUrl: uPhotoUrl,
      emailVerified: uEmailVerified,
      emailVerifiedVia: uEmailVerifiedVia,
      emailVouchedBy: uEmailVouchedBy,
      pending: uPending,
      createdAt: uCreatedAt,
      updatedAt: uUpdatedAt,
    },
  };
}

/** The organization's members joined to their users; shape rows with `toMemberWithUser`. */
export function membersWithUsers(db: Executor, orgId: string) {
  return db
    .selectFrom("members")
    .innerJoin("users", "users.id", "members.userId")
    .select(memberColumns)
    .select(userColumns)
    .where("members.orgId", "=", orgId)
    .$castTo<JoinedMemberRow>();
}

export async function getMemberWithUser(db: Executor, orgId: string, userId: string): Promise<MemberWithUser | undefined> {
  const row = await membersWithUsers(db, orgId).where("members.userId", "=", userId).executeTakeFirst();
  return row ? toMemberWithUser(row) : undefined;
}

/** The organization's members among `userIds` (others, including other organizations' users, are left out). */
export async function getMembersWithUsers(db: Executor, orgId: string, userIds: string[]): Promise<MemberWithUser[]> {
  if (userIds.length === 0) return [];
  const rows = await membersWithUsers(db, orgId).where("members.userId", "in", userIds).execute();
  return rows.map(toMemberWithUser);
}

/** The organization's members whose (lower-cased) email is among `emails`. */
export async function getMembersByEmails(db: Executor, orgId: string, emails: string[]): Promise<MemberWithUser[]> {
  if (emails.length === 0) return [];
  const rows = await membersWithUsers(db, orgId).where("users.email", "in", emails).execute();
  return rows.map(toMemberWithUser);
}

export interface ListMembersOptions {
  page?: string | undefined;
  limit?: number | undefined;
  order: "asc" | "desc";
  /** A role, or `guest` for members without one. */
  role?: Role | "guest" | undefined;
  /** Case-insensitive text matched against display name and email. */
  search?: string | undefined;
  /** `lastSeenAt` lists only members seen at least once. */
  sort: "joinedAt" | "lastSeenAt";
}

/** One page of the organization's members, keyset-paged on the sort key then the user id. */
export async function listMembers(
  db: Executor,
  dialect: DialectName,
  orgId: string,
  options: ListMembersOptions,
): Promise<Page<MemberWithUser>> {
  let query = membersWithUsers(db, orgId);
  if (options.role === "guest") query = query.where("members.role", "is", null);
  else if (options.role) query = query.where("members.role", "=", options.role);
  const search = options.search?.trim();
  if (search) {
    query = query.where((eb) =>
      eb.or([containsInsensitive(dialect, "users.displayName", search), containsInsensitive(dialect, "users.email", search)]),
    );
  }
  if (options.sort === "lastSeenAt") query = query.where("members.lastSeenAt", "is not", null);

  const keys: SortKey<JoinedMemberRow>[] =
    options.sort === "lastSeenAt"
      ? [{ column: "members.lastSeenAt", direction: options.order, value: (r) => r.lastSeenAt ?? "" }]
      : [{ column: "members.joinedAt", direction: options.order, value: (r) => r.joinedAt }];
  keys.push({ column: "members.userId", direction: options.order, value: (r) => r.userId });

  const page = await paginate(query, keys, options);
  return { ...page, rows: page.rows.map(toMemberWithUser) };
}

/** Space and team counts for many members of one organization, in two queries. */
export async function memberCounts(db: Executor, orgId: string, userIds: string[]): Promise<Map<string, MemberCounts>> {
  const counts = new Map<string, MemberCounts>(userIds.map((id) => [id, { spaces: 0, teams: 0 }]));
  if (userIds.length === 0) return counts;
  const [spaces, teams] = await Promise.all([
    db
      .selectFrom("grants")
      .innerJoin("spaces", "spaces.id", "grants.targetId")
      .select(["grants.principalId as userId", (eb) => eb.fn.countAll<number>().as("count")])
      .where("grants.orgId", "=", orgId)
      .where("grants.principalType", "=", "user")
      .where("grants.targetType", "=", "space")
      .where("grants.principalId", "in", userIds)
      .where("spaces.orgId", "=", orgId)
      .where("spaces.deletedAt", "is", null)
      .groupBy("grants.principalId")
      .execute(),
    db
      .selectFrom("teamMembers")
      .innerJoin("teams", "teams.id", "teamMembers.teamId")
      .select(["teamMembers.userId", (eb) => eb.fn.countAll<number>().as("count")])
      .where("teams.orgId", "=", orgId)
      .where("teamMembers.userId", "in", userIds)
      .groupBy("teamMembers.userId")
      .execute(),
  ]);
  for (const row of spaces) counts.get(row.userId)!.spaces = Number(row.count);
  for (const row of teams) counts.get(row.userId)!.teams = Number(row.count);
  return counts;
}

/**
 * Takes the organization's row lock for the rest of the transaction (a no-op write), so that
 * concurrent changes to its admins run one after the other and the "at least one admin" check
 * sees the other's result. SQLite serialises writers already; this is what PostgreSQL needs.
 */
export async function lockOrganizationMembership(trx: Executor, orgId: string): Promise<void> {
  await trx
    .updateTable("organizations")
    .set((eb) => ({ updatedAt: eb.ref("updatedAt") }))
    .where("id", "=", orgId)
    .execute();
}

/** Admins who can act: enabled memberships of accounts that are not pending invitations. */
export async function countActiveAdmins(db: Executor, orgId: string): Promise<number> {
  const row = await db
    .selectFrom("members")
    .innerJoin("users", "users.id", "members.userId")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("members.orgId", "=", orgId)
    .where("members.role", "=", "admin")
    .where("members.disabled", "=", 0)
    .where("users.pending", "=", 0)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function setMemberRole(db: Executor, orgId: string, userId: string, role: Role | null): Promise<void> {
  await db.updateTable("members").set({ role }).where("orgId", "=", orgId).where("userId", "=", userId).execute();
}

export async function setMemberSso(db: Executor, orgId: string, userId: string, sso: boolean): Promise<void> {
  await db
    .updateTable("members")
    .set({ sso: sso ? 1 : 0 })
    .where("orgId", "=", orgId)
    .where("userId", "=", userId)
    .execute();
}

/**
 * Removes a membership with everything that hangs on it in this organization: the user's team
 * memberships, their direct grants and the invite links they created. Other organizations are
 * untouched. Returns true when the user was a member.
 */
export async function deleteMembership(db: Executor, orgId: string, userId: string): Promise<boolean> {
  await db.deleteFrom("linkInvites").where("orgId", "=", orgId).where("createdBy", "=", userId).execute();
  await db
    .deleteFrom("teamMembers")
    .where("userId", "=", userId)
    .where("teamId", "in", (eb) => eb.selectFrom("teams").select("teams.id").where("teams.orgId", "=", orgId))
    .execute();
  await db.deleteFrom("grants").where("orgId", "=", orgId).where("principalType", "=", "user").where("principalId", "=", userId).execute();
  const result = await db.deleteFrom("members").where("orgId", "=", orgId).where("userId", "=", userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Ids of the users among `userIds` who belong to an organization other than `orgId`. */
export async function usersInOtherOrganizations(db: Executor, orgId: string, userIds: string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("members")
    .select("userId")
    .distinct()
    .where("userId", "in", userIds)
    .where("orgId", "!=", orgId)
    .execute();
  return new Set(rows.map((r) => r.userId));
}
