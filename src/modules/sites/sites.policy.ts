import { notAllowed } from "../../lib/errors.js";
import type { OrgAccess } from "../../permissions/access.js";
import { atLeast } from "../../permissions/roles.js";
import type { SitePermissionsValue, SiteVisibilityValue } from "./sites.schemas.js";

/**
 * What the caller may do with a site, from their organization role (sites have no grants of their
 * own) and, for what lets other people read the site, their access to the spaces it shows. Members
 * with a role see every site of the organization (guests see none); members who may create content
 * (role `create` or `admin`) change sites and unpublish them; they publish them and manage their
 * share links only while they may read every space the site shows (`unreadable`: the site spaces
 * showing a space they cannot read; unknown counts as some, except for organization admins, who
 * read everything). Organization admins, and the member who created the site while they may still
 * create content, delete it and manage its visitor authentication. docs/permissions.md and the
 * README's "Sites" section have the table.
 */
export function sitePermissions(
  access: Pick<OrgAccess, "membership" | "userId">,
  site: { createdBy: string | null },
  unreadable?: readonly string[],
): SitePermissionsValue {
  const role = access.membership?.role ?? null;
  const creator = atLeast(role, "create");
  const readsEverySpace = role === "admin" || unreadable?.length === 0;
  return {
    view: atLeast(role, "read"),
    edit: creator,
    publish: creator && readsEverySpace,
    manageShareLinks: creator && readsEverySpace,
    admin: role === "admin" || (creator && site.createdBy === access.userId),
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
