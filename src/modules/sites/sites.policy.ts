import { notAllowed } from "../../lib/errors.js";
import type { OrgAccess } from "../../permissions/access.js";
import { atLeast, maxRole, type Role } from "../../permissions/roles.js";
import type { SitePermissionsValue, SiteVisibilityValue } from "./sites.schemas.js";

/**
 * The caller's level on a site: organization admins have `admin`, members with the organization
 * role `create` have `create`, other members `read`, guests and outsiders nothing; a grant to the
 * caller or one of their teams on the site (site permissions, `updateUserPermissionInSite`) raises
 * it, as grants raise a level on a space (they never lower one). A grant is how a guest reaches a
 * site, and how a member below `create` gets to change one.
 */
export function siteLevel(access: Pick<OrgAccess, "membership" | "grants">, siteId: string): Role | null {
  const membership = access.membership;
  if (!membership) return null;
  if (membership.role === "admin") return "admin";
  const byRole: Role | null = membership.role === "create" ? "create" : membership.role ? "read" : null;
  return maxRole(byRole, access.grants.get(siteId));
}

/** Whether the caller may create sites: the organization role `create` or `admin` (a site grant is on one site only). */
export function mayCreateSites(access: Pick<OrgAccess, "membership">): boolean {
  return atLeast(access.membership?.role ?? null, "create");
}

/**
 * What the caller may do with a site, from their level on it (`siteLevel`) and, for what lets other
 * people read the site, their access to the spaces it shows. The read level sees the site; the edit
 * level (a member with the organization role `create`, or a grant of `edit` or higher) changes it
 * and unpublishes it, and publishes it and manages its share links only while they may read every
 * space the site shows (`unreadable`: the site spaces showing a space they cannot read; unknown
 * counts as some, except for organization admins, who read everything). The admin level, and the
 * site's creator while they may still edit it, delete it and manage its visitor authentication and
 * who has access to it. docs/permissions.md and the README's "Sites" section have the table.
 */
export function sitePermissions(
  access: Pick<OrgAccess, "membership" | "userId" | "grants">,
  site: { id: string; createdBy: string | null },
  unreadable?: readonly string[],
): SitePermissionsValue {
  const level = siteLevel(access, site.id);
  const editor = atLeast(level, "edit");
  const readsEverySpace = access.membership?.role === "admin" || unreadable?.length === 0;
  return {
    view: atLeast(level, "read"),
    edit: editor,
    publish: editor && readsEverySpace,
    manageShareLinks: editor && readsEverySpace,
    admin: level === "admin" || (editor && site.createdBy === access.userId),
  };
}

// How wide each visibility's audience is: public and unlisted admit anyone (public is also indexed);
// share links and visitor tokens admit different people, so neither is narrower than the other.
const AUDIENCE: Record<SiteVisibilityValue, number> = { public: 3, unlisted: 2, "share-link": 1, "visitor-auth": 1 };

/** Whether a change of visibility may let someone read the site who could not before (any change that is not a narrowing). */
export function widensAudience(from: string, to: SiteVisibilityValue): boolean {
  if (from === to) return false;
  const before = AUDIENCE[from as SiteVisibilityValue] as number | undefined;
  return before === undefined || AUDIENCE[to] >= before;
}

/**
 * Refuses (403) an action that lets other people read spaces the site shows (publishing, share
 * links, preview links, a wider visibility, claims or conditions, the visitor-token key) when the
 * caller cannot read some of them (`unreadable`: those site spaces): nobody exposes what they may
 * not read themselves.
 */
export function refuseExposure(unreadable: readonly string[], action: string): void {
  if (unreadable.length === 0) return;
  const one = unreadable.length === 1;
  const shown = unreadable
    .slice(0, 5)
    .map((id) => `"${id}"`)
    .join(", ");
  const more = unreadable.length > 5 ? ` and ${unreadable.length - 5} more` : "";
  throw notAllowed(
    `You cannot ${action}: ${one ? "site space" : "site spaces"} ${shown}${more} of this site ${one ? "shows a space" : "show spaces"} you cannot read, and this would let others read ${one ? "it" : "them"}. Ask an organization admin (or a member who can read ${one ? "that space" : "those spaces"}) to do it, or take ${one ? "that site space" : "those site spaces"} off the site first.`,
  );
}

/** 403 unless the caller's permissions (on a site they may see) allow the action. */
export function allow(allowed: boolean, message: string): void {
  if (!allowed) throw notAllowed(message);
}
