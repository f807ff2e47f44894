/**
 * What the sites' routes present, loaded in bulk for a page or a structure and then handed to the
 * pure presenters, and the small checks every site route shares.
 */
import type { Db, Executor } from "../../db/database.js";
import type { SiteRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { missing, notAllowed } from "../../lib/errors.js";
import type { OrgAccess } from "../../permissions/access.js";
import { spaceActivityCounts } from "../spaces/space-activity.queries.js";
import { presentSpacesFor } from "../spaces/spaces.presenter.js";
import { findActiveShareLink } from "./share-links.queries.js";
import { unreadableSiteSpaces } from "./sites.loader.js";
import { sitePermissions } from "./sites.policy.js";
import { presentSite } from "./sites.presenter.js";
import { getSite, lockSiteRow, siteSpaceCounts } from "./sites.queries.js";
import type { SiteModel } from "./structure.model.js";
import type { StructureContext } from "./structure.presenter.js";
import { loadSiteModel } from "./structure.queries.js";

/** 403 unless the caller's permissions (on a site they may see) allow the action. */
export function allow(allowed: boolean, message: string): void {
  if (!allowed) throw notAllowed(message);
}

/** Sites as the caller sees them, with their site space counts and the caller's reach loaded for the whole page at once. */
export async function presentSitesFor(db: Executor, access: OrgAccess, sites: readonly SiteRow[], urls: Urls) {
  const ids = sites.map((s) => s.id);
  const [counts, unreadable] = await Promise.all([siteSpaceCounts(db, ids), unreadableSiteSpaces(db, access, ids)]);
  return sites.map((site) =>
    presentSite(site, { siteSpaces: counts.get(site.id) ?? 0, permissions: sitePermissions(access, site, unreadable.get(site.id)) }, urls),
  );
}

export async function presentSiteFor(db: Executor, access: OrgAccess, site: SiteRow, urls: Urls) {
  const [presented] = await presentSitesFor(db, access, [site], urls);
  if (!presented) throw new Error("presentSitesFor returned nothing for one site");
  return presented;
}

/** What the structure presenter needs: the model and the spaces of its visible site spaces, presented for the caller. */
export async function structureContext(
  db: Executor,
  access: OrgAccess,
  model: SiteModel,
  urls: Urls,
  shareKey?: string,
): Promise<StructureContext> {
  const rows = [...new Map(model.siteSpaces.filter((s) => !s.hidden).map((s) => [s.space.id, s.space])).values()];
  const presented = presentSpacesFor(
    access,
    rows,
    await spaceActivityCounts(
      db,
      rows.map((space) => space.id),
    ),
    urls,
  );
  return { model, spaces: new Map(presented.map((s) => [s.id, s])), urls, shareKey };
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
