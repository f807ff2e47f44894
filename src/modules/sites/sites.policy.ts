import type { OrgAccess } from "../../permissions/access.js";
import { atLeast } from "../../permissions/roles.js";
import type { SitePermissionsValue } from "./sites.schemas.js";

/**
 * What the caller may do with a site, from their organization role (sites have no grants of their
 * own). Members with a role see every site of the organization (guests see none); members who may
 * create content (role `create` or `admin`) change sites, publish them and manage their share links;
 * organization admins, and the member who created the site while they may still create content,
 * delete it and manage its visitor authentication. docs/permissions.md and the README's "Sites"
 * section have the table.
 */
export function sitePermissions(
  access: Pick<OrgAccess, "membership" | "userId">,
  site: { createdBy: string | null },
): SitePermissionsValue {
  const role = access.membership?.role ?? null;
  const creator = atLeast(role, "create");
  return {
    view: atLeast(role, "read"),
    edit: creator,
    publish: creator,
    manageShareLinks: creator,
    admin: role === "admin" || (creator && site.createdBy === access.userId),
  };
}
