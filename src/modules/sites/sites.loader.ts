/**
 * Loading a site (or an organization's sites) with the caller's access: the object, the access and
 * the permissions the policy gives, for the routes to authorize and present.
 */
import type { Db, Executor } from "../../db/database.js";
import type { SiteRow, SpaceRow } from "../../db/schema.js";
import { missing } from "../../lib/errors.js";
import { contentLevel, type OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { atLeast, type Role } from "../../permissions/roles.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { type SpaceCounts, spaceActivityCounts } from "../spaces/space-activity.queries.js";
import { getSpacesByIds } from "../spaces/spaces.queries.js";
import { findActiveShareLink } from "./share-links.queries.js";
import { sitePermissions } from "./sites.policy.js";
import { getSite, lockSiteRow, siteSpaceCounts, siteSpaceNodes } from "./sites.queries.js";
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

/** What presenting sites needs besides their rows, loaded for the whole page at once. */
export interface SitesContext {
  /** Each site's count of site spaces. */
  siteSpaces: ReadonlyMap<string, number>;
  /** The caller's permissions on each site, which depend on the site spaces the caller cannot read. */
  permissions: ReadonlyMap<string, SitePermissionsValue>;
}

export async function loadSitesContext(db: Executor, access: OrgAccess, sites: readonly SiteRow[]): Promise<SitesContext> {
  const ids = sites.map((s) => s.id);
  const [counts, unreadable] = await Promise.all([siteSpaceCounts(db, ids), unreadableSiteSpaces(db, access, ids)]);
  return {
    siteSpaces: counts,
    permissions: new Map(sites.map((site) => [site.id, sitePermissions(access, site, unreadable.get(site.id))])),
  };
}

/** The spaces of a structure's visible site spaces (each once), with their activity counts, for the structure presenter. */
export async function loadStructureSpaces(
  db: Executor,
  model: SiteModel,
): Promise<{ spaces: SpaceRow[]; counts: ReadonlyMap<string, SpaceCounts> }> {
  const spaces = [...new Map(model.siteSpaces.filter((s) => !s.hidden).map((s) => [s.space.id, s.space])).values()];
  return {
    spaces,
    counts: await spaceActivityCounts(
      db,
      spaces.map((space) => space.id),
    ),
  };
}

/** A share key given to a read: it must open an active share link of the site (404 otherwise). */
export async function verifiedShareKey(db: Executor, siteId: string, shareKey: string | undefined): Promise<string | undefined> {
  if (shareKey === undefined) return undefined;
  if (!(await findActiveShareLink(db, siteId, shareKey))) {
    throw missing(`No active share link of site "${siteId}" has this shareKey.`);
  }
  return shareKey;
}

/**
 * Runs a write in a transaction holding the site's row lock, over the site and its structure read
 * inside it: concurrent writes to one site follow each other, each checked against what the one
 * before it left (unique paths, positions).
 */
export function inSiteTransaction<T>(db: Db, site: SiteRow, fn: (trx: Executor, model: SiteModel) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await lockSiteRow(trx, site.id);
    const current = (await getSite(trx, site.orgId, site.id)) ?? site;
    return fn(trx, await loadSiteModel(trx, current));
  });
}
