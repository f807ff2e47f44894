/** Loads an organization's SAML providers with the caller's access, and what presenting them needs. */
import type { Executor } from "../../db/database.js";
import type { OrganizationRow, SamlProviderRow, TeamRow } from "../../db/schema.js";
import { missing } from "../../lib/errors.js";
import type { OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { teamPermissions } from "../teams/teams.policy.js";
import { getTeamsByIds, type TeamCounts, teamCounts } from "../teams/teams.queries.js";
import type { TeamPermissionsValue } from "../teams/teams.schemas.js";
import { samlProviderPermissions } from "./saml.policy.js";
import { getSamlProvider } from "./saml.queries.js";
import type { SamlProviderPermissionsValue } from "./saml.schemas.js";

export interface LoadedSamlOrganization {
  org: OrganizationRow;
  access: OrgAccess;
  permissions: SamlProviderPermissionsValue;
}

export const samlProviderNotFound = (id: string) => `No SAML provider with id "${id}" in this organization.`;

/** The organization and the caller's access to its providers; 404 for a non-member. */
export async function loadSamlOrganization(db: Executor, actor: Actor, orgId: string): Promise<LoadedSamlOrganization> {
  const { org, access } = await requireOrganization(db, actor, orgId);
  return { org, access, permissions: samlProviderPermissions(access) };
}

/** One provider of the organization; 404 when it is not one of this organization's. */
export async function loadSamlProvider(db: Executor, orgId: string, providerId: string): Promise<SamlProviderRow> {
  const provider = await getSamlProvider(db, orgId, providerId);
  if (!provider) throw missing(samlProviderNotFound(providerId));
  return provider;
}

export interface DefaultTeams {
  teams: Map<string, { team: TeamRow; counts: TeamCounts; permissions: TeamPermissionsValue }>;
}

/** The default teams of many identity providers (SAML or OpenID Connect), with their counts and the caller's permissions, in bulk. */
export async function loadDefaultTeams(
  db: Executor,
  orgId: string,
  providers: readonly { defaultTeamId: string | null }[],
  access: OrgAccess,
): Promise<DefaultTeams> {
  const ids = [...new Set(providers.map((p) => p.defaultTeamId).filter((id): id is string => id !== null))];
  if (ids.length === 0) return { teams: new Map() };
  const rows = await getTeamsByIds(db, orgId, ids);
  const counts = await teamCounts(
    db,
    orgId,
    rows.map((t) => t.id),
  );
  return {
    teams: new Map(
      rows.map((team) => [
        team.id,
        { team, counts: counts.get(team.id) ?? { members: 0, spaces: 0 }, permissions: teamPermissions(access, team) },
      ]),
    ),
  };
}
