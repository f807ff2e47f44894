/**
 * Loading a site (or an organization's sites) with the caller's access: the object, the access and
 * the permissions the policy gives, for the routes to authorize and present.
 */
import type { Executor } from "../../db/database.js";
import type { SiteRow, SpaceRow } from "../../db/schema.js";
import { missing } from "../../lib/errors.js";
import { contentLevel, type OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { atLeast, type Role } from "../../permissions/roles.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { getSpacesByIds } from "../spaces/spaces.queries.js";
import { sitePermissions } from "./sites.policy.js";
import { getSite, siteSpaceNodes } from "./sites.queries.js";
import type { SitePermissionsValue } from "./sites.schemas.js";
import type { SiteModel } from "./structure.model.js";
import { loadSiteModel } from "./structure.queries.js";

export const siteNotFound = (id: string) => missing(`No site with id "${id}" in this organization.`);

export interface LoadedSite {
  site: SiteRow;
  access: OrgAccess;
  permissions: SitePermissionsValue;
  /** Site spaces showing a space the caller cannot read (see sites.policy.ts `refuseExposure`). */
  unreadable: string[];
}

/** The caller's access to an organization they are a member of; 404 otherwise (outsiders cannot tell). */
export async function requireOrgAccess(db: Executor, actor: Actor, orgId: string): Promise<OrgAccess> {
  return (await requireOrganization(db, actor, orgId)).access;
}

/** A site of the organization with the caller's permissions, or undefined when it is not there. */
export async function loadSite(db: Executor, actor: Actor, orgId: string, siteId: string): Promise<LoadedSite | undefined> {
  const site = await getSite(db, orgId, siteId);
  if (!site) return undefined;
  const access = await actor.access.forOrg(orgId);
  const unreadable = (await unreadableSiteSpaces(db, access, [site.id])).get(site.id) ?? [];
  return { site, access, permissions: sitePermissions(access, site, unreadable), unreadable };
}

/**
 * For each site, the site spaces showing a space of the organization the caller cannot read (by
 * site id; every id given is in the map). Organization admins read everything: no query for them.
 */
export async function unreadableSiteSpaces(db: Executor, access: OrgAccess, siteIds: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(siteIds.map((id) => [id, []]));
  if (!access.membership || access.membership.role === "admin") return result;
  for (const node of await siteSpaceNodes(db, siteIds)) {
    if (!atLeast(contentLevel(access, node), "read")) result.get(node.siteId)?.push(node.siteSpaceId);
  }
  return result;
}

/** A site the caller may see: 404 when it is missing, in another organization, or hidden from them. */
export async function requireSite(db: Executor, actor: Actor, orgId: string, siteId: string): Promise<LoadedSite> {
  const loaded = await loadSite(db, actor, orgId, siteId);
  if (!loaded?.permissions.view) throw siteNotFound(siteId);
  return loaded;
}

/** A site the caller may see, with its whole structure. */
export async function requireSiteWithModel(
  db: Executor,
  actor: Actor,
  orgId: string,
  siteId: string,
): Promise<LoadedSite & { model: SiteModel }> {
  const loaded = await requireSite(db, actor, orgId, siteId);
  return { ...loaded, model: await loadSiteModel(db, loaded.site) };
}

export interface SpaceForSite {
  space: SpaceRow;
  /** The caller's level on the space (null: none). */
  level: Role | null;
}

/** Spaces named in a request, with the caller's level on each; missing ids are absent from the map. */
export async function loadSpacesForSite(db: Executor, access: OrgAccess, ids: readonly string[]): Promise<Map<string, SpaceForSite>> {
  const spaces = await getSpacesByIds(db, [...new Set(ids)]);
  return new Map(spaces.map((space) => [space.id, { space, level: space.orgId === access.orgId ? contentLevel(access, space) : null }]));
}
