/**
 * Grant rows (a user's or team's level on a space or collection): the data `access.ts` resolves
 * levels from. Written by the families that create, copy, move and delete content objects and by the
 * content-permissions routes, so they live here, below every module.
 */
import type { Executor } from "../db/database.js";
import { nowIso } from "../lib/time.js";
import { type ContentNode, contentLevel, type OrgAccess } from "./access.js";
import { atLeast, isRole, type Role } from "./roles.js";

/** A site's grants are its site permissions (sites.policy.ts `siteLevel`). */
export type TargetType = "space" | "collection" | "site";
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

/**
 * Makes the creator of a space or collection its admin when their level would otherwise be lower
 * (a member with the `create` role could not rename or delete what they just created).
 */
export async function grantCreatorAdmin(
  trx: Executor,
  access: OrgAccess,
  node: ContentNode & { orgId: string },
  targetType: TargetType,
): Promise<void> {
  if (atLeast(contentLevel(access, node), "admin")) return;
  await upsertGrant(trx, {
    orgId: node.orgId,
    targetType,
    targetId: node.id,
    principalType: "user",
    principalId: access.userId,
    role: "admin",
  });
}
