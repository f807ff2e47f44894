/**
 * Who reads a site's insights: its editors and admins (what readers search and ask is the writers'
 * business, not every member's who can see the site). A member who only sees the site is refused.
 */
import type { SitePermissionsValue } from "../sites/sites.schemas.js";

export const INSIGHTS_MESSAGE =
  "Only the site's editors and admins (members with the create role, or the edit level on this site) can read its insights.";

export function mayReadInsights(permissions: Pick<SitePermissionsValue, "edit">): boolean {
  return permissions.edit;
}
