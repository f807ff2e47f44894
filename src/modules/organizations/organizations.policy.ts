import type { OrgAccess } from "../../permissions/access.js";
import { atLeast } from "../../permissions/roles.js";
import type { OrganizationPermissionsValue } from "./organizations.schemas.js";

/**
 * What the caller may do with an organization. Members (guests included) may view it; guests
 * (null role) may not list members or teams; creating content needs `create`; the rest is admin.
 */
export function organizationPermissions(access: Pick<OrgAccess, "membership" | "ownedTeamIds"> | undefined): OrganizationPermissionsValue {
  const membership = access?.membership;
  const role = membership?.role ?? null;
  const member = !!membership;
  const admin = role === "admin";
  const nonGuest = member && role !== null;
  return {
    view: member,
    admin,
    ownTeam: (access?.ownedTeamIds.length ?? 0) > 0,
    createContent: atLeast(role, "create"),
    createOpenAPISpec: atLeast(role, "create"),
    ingestConversations: admin,
    viewBilling: admin,
    listMembers: nonGuest,
    listTeams: nonGuest,
    listIntegrations: nonGuest,
    listInstallations: admin,
    installIntegration: admin,
  };
}
