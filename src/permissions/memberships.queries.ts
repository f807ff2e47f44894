/**
 * Membership rows of an organization as the other families need them (is this user a member, add
 * one): the data `access.ts` resolves roles from, below every module. Listing and managing members
 * is the members family's (src/modules/members).
 */
import type { Executor } from "../db/database.js";
import type { MemberRow } from "../db/schema.js";
import { nowIso } from "../lib/time.js";
import type { Role } from "./roles.js";

export function getMember(db: Executor, orgId: string, userId: string): Promise<MemberRow | undefined> {
  return db.selectFrom("members").selectAll().where("orgId", "=", orgId).where("userId", "=", userId).executeTakeFirst();
}

/** Adds a member; an existing membership is left as it is. Returns true when it was added. */
export async function addMember(
  db: Executor,
  input: { orgId: string; userId: string; role: Role | null; sso?: boolean },
): Promise<boolean> {
  const result = await db
    .insertInto("members")
    .values({
      orgId: input.orgId,
      userId: input.userId,
      role: input.role,
      sso: input.sso ? 1 : 0,
      disabled: 0,
      joinedAt: nowIso(),
      lastSeenAt: null,
    })
    .onConflict((oc) => oc.columns(["orgId", "userId"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The subset of `userIds` that are members (guests and disabled members included) of the organization. */
/** Records that the member was seen now (the API's ping). */
export async function markMemberSeen(db: Executor, orgId: string, userId: string): Promise<void> {
  await db.updateTable("members").set({ lastSeenAt: nowIso() }).where("orgId", "=", orgId).where("userId", "=", userId).execute();
}

export async function existingMemberIds(db: Executor, orgId: string, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db.selectFrom("members").select("userId").where("orgId", "=", orgId).where("userId", "in", userIds).execute();
  return new Set(rows.map((r) => r.userId));
}

/** Whether the user has a membership (enabled or not) in any organization but `orgId`. */
export async function belongsToAnotherOrganization(db: Executor, userId: string, orgId: string): Promise<boolean> {
  const row = await db
    .selectFrom("members")
    .select("orgId")
    .where("userId", "=", userId)
    .where("orgId", "!=", orgId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
