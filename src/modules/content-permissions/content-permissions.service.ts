import type { Executor } from "../../db/database.js";
import { announceAccessChange } from "../../lib/access-changes.js";
import { missing } from "../../lib/errors.js";
import { nowIso } from "../../lib/time.js";
import { deleteGrant, type PrincipalType, type TargetType, upsertGrant } from "../../permissions/grants.queries.js";
import { existingMemberIds } from "../../permissions/memberships.queries.js";
import type { Role } from "../../permissions/roles.js";
import { existingTeamIds } from "./content-permissions.queries.js";

export interface ContentTarget {
  type: TargetType;
  id: string;
  orgId: string;
}

/**
 * 404 naming the first id that is not a member (guests count) or a team of the target's
 * organization, so that nothing is written when any id is wrong.
 */
export async function assertPrincipalsInOrganization(
  db: Executor,
  orgId: string,
  principals: { users: readonly string[]; teams: readonly string[] },
): Promise<void> {
  const [members, teams] = await Promise.all([
    existingMemberIds(db, orgId, principals.users),
    existingTeamIds(db, orgId, principals.teams),
  ]);
  const user = principals.users.find((id) => !members.has(id));
  if (user) throw missing(`No member with id "${user}" in this organization.`);
  const team = principals.teams.find((id) => !teams.has(id));
  if (team) throw missing(`No team with id "${team}" in this organization.`);
}

/** Sets (or, with a null role, removes) the grants of users and teams on one object. Run inside a transaction. */
export async function setGrants(
  trx: Executor,
  input: { target: ContentTarget; role: Role | null; users: readonly string[]; teams: readonly string[] },
): Promise<void> {
  const { target, role } = input;
  const principals: { type: PrincipalType; id: string }[] = [
    ...input.users.map((id) => ({ type: "user" as const, id })),
    ...input.teams.map((id) => ({ type: "team" as const, id })),
  ];
  // One request grants at one time, so its grants list in id order.
  const createdAt = nowIso();
  for (const principal of principals) {
    const key = { targetId: target.id, principalType: principal.type, principalId: principal.id };
    if (role === null) await deleteGrant(trx, key);
    else await upsertGrant(trx, { ...key, orgId: target.orgId, targetType: target.type, role, createdAt });
  }
  announceAccessChange({ kind: "content", orgId: target.orgId });
}
