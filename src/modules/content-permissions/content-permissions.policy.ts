import type { OrgAccess } from "../../permissions/access.js";
import { atLeast, type Role } from "../../permissions/roles.js";

export interface ContentPermissionsPolicy {
  /** The object is visible (else 404). */
  view: boolean;
  /** May read who has access: admins of the object, and members who see it (not guests, who cannot list members either). */
  list: boolean;
  /** May grant, change and remove access: admins of the object. */
  manage: boolean;
}

export function contentPermissionsPolicy(access: OrgAccess, level: Role | null): ContentPermissionsPolicy {
  const view = atLeast(level, "read");
  const manage = atLeast(level, "admin");
  const guest = access.membership?.role === null;
  return { view, list: manage || (view && !guest), manage };
}

/**
 * Who may list and set the grants on a site: the same rule as for content, from the site's own
 * permissions (`admin` there: organization admins, the site's creator, the admin level on the site).
 */
export function siteGrantsPolicy(access: OrgAccess, site: { view: boolean; admin: boolean }): ContentPermissionsPolicy {
  const guest = access.membership?.role === null;
  return { view: site.view, list: site.admin || (site.view && !guest), manage: site.admin };
}
