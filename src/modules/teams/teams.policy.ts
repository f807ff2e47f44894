import type { OrgAccess } from "../../permissions/access.js";
import type { TeamPermissionsValue } from "./teams.schemas.js";

/**
 * What the caller may do with a team. Members other than guests see every team (as they may list
 * them); organization admins manage every team, and a team's owners manage that team: rename it
 * and change its members. Creating and deleting teams is for organization admins only (the
 * organization's `admin` permission).
 */
export function teamPermissions(access: Pick<OrgAccess, "membership" | "ownedTeamIds">, team: { id: string }): TeamPermissionsValue {
  const membership = access.membership;
  const role = membership?.role ?? null;
  const admin = !!membership && (role === "admin" || access.ownedTeamIds.includes(team.id));
  return {
    view: (!!membership && role !== null) || admin,
    admin,
  };
}
