import type { Executor } from "../../db/database.js";
import type { OrganizationRow, OrganizationsTable } from "../../db/schema.js";
import { type Page, paginate } from "../../lib/pagination.js";
import { nowIso } from "../../lib/time.js";
import { isRole, type Role } from "../../permissions/roles.js";

export function getOrganization(db: Executor, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom("organizations").selectAll().where("id", "=", id).executeTakeFirst();
}

export interface OrganizationWithMembership extends OrganizationRow {
  memberRole: Role | null;
  ownsTeam: boolean;
}

/** The organizations the user is an enabled member of, oldest first, one page. */
export async function listOrganizationsOfUser(
  db: Executor,
  userId: string,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<OrganizationWithMembership>> {
  const query = db
    .selectFrom("organizations")
    .innerJoin("members", "members.orgId", "organizations.id")
    .selectAll("organizations")
    .select("members.role as memberRole")
    .where("members.userId", "=", userId)
    .where("members.disabled", "=", 0);
  const page = await paginate(
    query,
    [
      { column: "organizations.createdAt", direction: "asc", value: (r) => r.createdAt },
      { column: "organizations.id", direction: "asc", value: (r) => r.id },
    ],
    options,
  );
  const owned = await orgsWhereUserOwnsATeam(
    db,
    userId,
    page.rows.map((r) => r.id),
  );
  return {
    ...page,
    rows: page.rows.map((r) => ({ ...r, memberRole: isRole(r.memberRole) ? r.memberRole : null, ownsTeam: owned.has(r.id) })),
  };
}

async function orgsWhereUserOwnsATeam(db: Executor, userId: string, orgIds: string[]): Promise<Set<string>> {
  if (orgIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("teamMembers")
    .innerJoin("teams", "teams.id", "teamMembers.teamId")
    .select("teams.orgId")
    .distinct()
    .where("teamMembers.userId", "=", userId)
    .where("teamMembers.role", "=", "owner")
    .where("teams.orgId", "in", orgIds)
    .execute();
  return new Set(rows.map((r) => r.orgId));
}

/** Organizations that let people with an address at `domain` join. */
export async function listOrganizationsByEmailDomain(db: Executor, domain: string): Promise<OrganizationRow[]> {
  // email_domains is a JSON array of lower-case domains; the quoted match is exact per element.
  return db
    .selectFrom("organizations")
    .selectAll()
    .where("emailDomains", "like", `%${JSON.stringify(domain.toLowerCase())}%`)
    .orderBy("createdAt")
    .limit(100)
    .execute();
}

export interface NewOrganization {
  id: string;
  title: string;
  emailDomains?: string[];
  type?: string;
  useCase?: string | null;
  communityType?: string | null;
}

export async function insertOrganization(db: Executor, input: NewOrganization): Promise<OrganizationRow> {
  const now = nowIso();
  const row: OrganizationRow = {
    id: input.id,
    title: input.title,
    emailDomains: JSON.stringify(input.emailDomains ?? []),
    hostname: null,
    type: input.type ?? "business",
    useCase: input.useCase ?? null,
    communityType: input.communityType ?? null,
    defaultRole: null,
    defaultContent: null,
    logoUrl: null,
    sso: 0,
    ai: 1,
    inviteLinks: 1,
    mergeRules: JSON.stringify({ type: "none" }),
    agentInstructions: null,
    agentInstructionsUpdatedAt: null,
    agentInstructionsUpdatedBy: null,
    createdAt: now,
    updatedAt: now,
  };
  await db.insertInto("organizations").values(row).execute();
  return row;
}

export async function updateOrganization(
  db: Executor,
  id: string,
  changes: Partial<Omit<OrganizationsTable, "id" | "createdAt">>,
): Promise<void> {
  await db
    .updateTable("organizations")
    .set({ ...changes, updatedAt: nowIso() })
    .where("id", "=", id)
    .execute();
}

export async function isHostnameTaken(db: Executor, hostname: string, exceptOrgId: string): Promise<boolean> {
  const row = await db
    .selectFrom("organizations")
    .select("id")
    .where("hostname", "=", hostname)
    .where("id", "!=", exceptOrgId)
    .executeTakeFirst();
  return !!row;
}

/**
 * Lower-cased email domains of the organization's admins whose address is verified for every
 * organization (by an operator or a sign-in link): a listed domain lets people from anywhere join,
 * so an address only this organization's identity provider vouched for does not count.
 */
export async function verifiedAdminDomains(db: Executor, orgId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom("members")
    .innerJoin("users", "users.id", "members.userId")
    .select("users.email")
    .where("members.orgId", "=", orgId)
    .where("members.role", "=", "admin")
    .where("users.emailVerified", "=", 1)
    .execute();
  return new Set(rows.map((r) => emailDomainOf(r.email)).filter((d): d is string => !!d));
}

export function emailDomainOf(email: string): string | undefined {
  const at = email.lastIndexOf("@");
  return at > 0 ? email.slice(at + 1).toLowerCase() : undefined;
}
