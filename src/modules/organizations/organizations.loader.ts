/** Loading an organization with the caller's access: 404 for outsiders, as for one that does not exist. */
import type { Executor } from "../../db/database.js";
import type { OrganizationRow } from "../../db/schema.js";
import { missing } from "../../lib/errors.js";
import type { OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { organizationPermissions } from "./organizations.policy.js";
import { getOrganization } from "./organizations.queries.js";
import type { OrganizationPermissionsValue } from "./organizations.schemas.js";

export interface LoadedOrganization {
  org: OrganizationRow;
  access: OrgAccess;
  permissions: OrganizationPermissionsValue;
}

/**
 * Loads an organization with the caller's access and permissions. Answers 404 when it does not
 * exist or the caller is not a member: outsiders cannot tell the two apart.
 */
export async function requireOrganization(db: Executor, actor: Actor, orgId: string): Promise<LoadedOrganization> {
  const org = await getOrganization(db, orgId);
  const access = org ? await actor.access.forOrg(org.id) : undefined;
  if (!org || !access?.membership) throw missing(`No organization with id "${orgId}" that you are a member of.`);
  return { org, access, permissions: organizationPermissions(access) };
}
