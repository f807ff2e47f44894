import type { SiteRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import type { SitesContext } from "./sites.loader.js";
import { SITE_FEATURES, type SitePermissionsValue, type SiteResponse } from "./sites.schemas.js";

/** The public shape of a site (`Site`). */
export function presentSite(site: SiteRow, input: { siteSpaces: number; permissions: SitePermissionsValue }, urls: Urls): SiteResponse {
  const published = urls.site(site.basename);
  return {
    object: "site",
    id: site.id,
    type: site.type as SiteResponse["type"],
    title: site.title,
    basename: site.basename,
    ...(site.proxy ? { proxy: { origin: site.proxy, target: published } } : {}),
    visibility: site.visibility as SiteResponse["visibility"],
    published: site.published === 1,
    siteSpaces: input.siteSpaces,
    createdAt: site.createdAt,
    adaptiveContent: { enabled: site.adaptiveContent === 1 },
    agentsContext: site.agentsContext as SiteResponse["agentsContext"],
    // Self-hosted: every feature Quire has, on every site, never frozen.
    features: SITE_FEATURES.map((id) => ({ id, plan: site.type as SiteResponse["type"], frozen: false })),
    urls: {
      location: urls.api(`/orgs/${site.orgId}/sites/${site.id}`),
      app: urls.app(`/o/${site.orgId}/sites/${site.id}`),
      ...(site.published === 1 ? { published } : {}),
    },
    permissions: input.permissions,
  };
}

/** Sites as the caller sees them, from what loadSitesContext loaded for all of them. */
export function presentSites(sites: readonly SiteRow[], context: SitesContext, urls: Urls): SiteResponse[] {
  return sites.map((site) => {
    const permissions = context.permissions.get(site.id);
    if (!permissions) throw new Error(`No permissions were loaded for site ${site.id}`);
    return presentSite(site, { siteSpaces: context.siteSpaces.get(site.id) ?? 0, permissions }, urls);
  });
}
