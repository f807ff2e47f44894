import type { Executor } from "../../db/database.js";
import type { OrganizationRow } from "../../db/schema.js";
import type { Actor } from "../../http/authenticate.js";
import { notFound } from "../../http/errors.js";
import { newId } from "../../lib/ids.js";
import type { OrgAccess } from "../../permissions/access.js";
import { addMember } from "../members/members.queries.js";
import { organizationPermissions } from "./organizations.policy.js";
import { getOrganization, insertOrganization } from "./organizations.queries.js";
import type { OrganizationPermissionsValue } from "./organizations.schemas.js";

/**
 * Creates an organization with its first member, the owner, as admin. Call inside a transaction:
 * an organization without an admin must never exist.
 */
export async function createOrganization(
  trx: Executor,
  input: { title: string; ownerId: string; emailDomains?: string[]; type?: string; useCase?: string; communityType?: string },
): Promise<OrganizationRow> {
  const org = await insertOrganization(trx, {
    id: newId(),
    title: input.title,
    emailDomains: (input.emailDomains ?? []).map((d) => d.toLowerCase()),
    type: input.type ?? "business",
    useCase: input.useCase ?? null,
    communityType: input.communityType ?? null,
  });
  await addMember(trx, { orgId: org.id, userId: input.ownerId, role: "admin" });
  return org;
}

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
  if (!org || !access?.membership) throw notFound(`No organization with id "${orgId}" that you are a member of.`);
  return { org, access, permissions: organizationPermissions(access) };
}
