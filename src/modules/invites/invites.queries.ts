import type { ExpressionBuilder } from "kysely";
import type { Executor } from "../../db/database.js";
import type { Database, HeldInvitationsTable, LinkInviteRow, UserRow } from "../../db/schema.js";
import { newId } from "../../lib/ids.js";
import { type Page, paginate } from "../../lib/pagination.js";
import { nowIso } from "../../lib/time.js";
import type { Role } from "../../permissions/roles.js";

/** What an invite link gives access to; the same table serves every kind. */
export type LinkInviteTarget = "organization" | "space" | "collection";

/**
 * An invite link works only while the admin who created it is still an enabled admin of the
 * organization: demoting them disables their links until they are admin again (removing them
 * deletes their links). A disabled link is treated as missing everywhere but DELETE.
 */
function createdByActiveAdmin(eb: ExpressionBuilder<Database, "linkInvites">) {
  return eb.exists(
    eb
      .selectFrom("members")
      .select("members.userId")
      .whereRef("members.orgId", "=", "linkInvites.orgId")
      .whereRef("members.userId", "=", "linkInvites.createdBy")
      .where("members.role", "=", "admin")
      .where("members.disabled", "=", 0),
  );
}

/** One page of the organization's enabled invite links of one kind, oldest first. */
export function listLinkInvites(
  db: Executor,
  orgId: string,
  targetType: LinkInviteTarget,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<LinkInviteRow>> {
  const query = db
    .selectFrom("linkInvites")
    .selectAll("linkInvites")
    .where("linkInvites.orgId", "=", orgId)
    .where("linkInvites.targetType", "=", targetType)
    .where(createdByActiveAdmin);
  return paginate(
    query,
    [
      { column: "linkInvites.createdAt", direction: "asc", value: (r) => r.createdAt },
      { column: "linkInvites.id", direction: "asc", value: (r) => r.id },
    ],
    options,
  );
}

/** An enabled invite link of this organization; another organization's invite id finds nothing. */
export function getLinkInvite(db: Executor, orgId: string, inviteId: string): Promise<LinkInviteRow | undefined> {
  return db
    .selectFrom("linkInvites")
    .selectAll("linkInvites")
    .where("linkInvites.orgId", "=", orgId)
    .where("linkInvites.id", "=", inviteId)
    .where(createdByActiveAdmin)
    .executeTakeFirst();
}

export async function insertLinkInvite(
  db: Executor,
  input: { orgId: string; targetType: LinkInviteTarget; targetId: string | null; role: Role | null; createdBy: string },
): Promise<LinkInviteRow> {
  const now = nowIso();
  const row: LinkInviteRow = { id: newId(), ...input, createdAt: now, updatedAt: now };
  await db.insertInto("linkInvites").values(row).execute();
  return row;
}

export async function updateLinkInviteRole(db: Executor, orgId: string, inviteId: string, role: Role | null): Promise<void> {
  await db.updateTable("linkInvites").set({ role, updatedAt: nowIso() }).where("orgId", "=", orgId).where("id", "=", inviteId).execute();
}

export async function deleteLinkInvite(db: Executor, orgId: string, inviteId: string): Promise<boolean> {
  const result = await db.deleteFrom("linkInvites").where("orgId", "=", orgId).where("id", "=", inviteId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Users with any of these (lower-cased) emails. */
export function getUsersByEmails(db: Executor, emails: string[]): Promise<UserRow[]> {
  if (emails.length === 0) return Promise.resolve([]);
  return db.selectFrom("users").selectAll().where("email", "in", emails).execute();
}

/** Holds (or renews) an email invitation of the user to the organization until `expiresAt`. */
export async function holdInvitation(
  db: Executor,
  input: { orgId: string; userId: string; role: Role | null; sso: boolean; expiresAt: string },
): Promise<void> {
  const values = { role: input.role, sso: input.sso ? (1 as const) : (0 as const), createdAt: nowIso(), expiresAt: input.expiresAt };
  await db
    .insertInto("heldInvitations")
    .values({ orgId: input.orgId, userId: input.userId, ...values })
    .onConflict((oc) => oc.columns(["orgId", "userId"]).doUpdateSet(values))
    .execute();
}

/** Takes the user's held invitations away: the unexpired ones are returned, oldest first; expired ones are dropped. */
export async function takeHeldInvitations(db: Executor, userId: string): Promise<HeldInvitationsTable[]> {
  const rows = await db
    .selectFrom("heldInvitations")
    .selectAll()
    .where("userId", "=", userId)
    .orderBy("createdAt")
    .orderBy("orgId")
    .execute();
  await db.deleteFrom("heldInvitations").where("userId", "=", userId).execute();
  const now = nowIso();
  return rows.filter((row) => row.expiresAt > now);
}
