import type { Executor } from "../../db/database.js";
import type { OrganizationRow } from "../../db/schema.js";
import { newId } from "../../lib/ids.js";
import { addMember } from "../../permissions/memberships.queries.js";
import { insertOrganization } from "./organizations.queries.js";

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
