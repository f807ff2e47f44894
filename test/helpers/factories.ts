/**
 * Test data builders. Users, tokens and organizations are created directly, as the operator's
 * command line does (there is no API for the first two, and the API refuses the third by default);
 * everything else goes through the API as a real client would, so factories exercise the same code paths.
 */
import { randomBase62 } from "../../src/lib/ids.js";
import { createOrganization as createOrganizationAsOperator } from "../../src/modules/organizations/organizations.service.js";
import { createApiToken } from "../../src/modules/users/tokens.queries.js";
import type { EmailVerification } from "../../src/modules/users/users.policy.js";
import { insertUser } from "../../src/modules/users/users.queries.js";
import { addMember } from "../../src/permissions/memberships.queries.js";
import type { Role } from "../../src/permissions/roles.js";
import type { TestContext, TestUser } from "./app.js";

export async function createUser(
  ctx: TestContext,
  overrides: { email?: string; displayName?: string; emailVerified?: boolean; verification?: EmailVerification } = {},
): Promise<TestUser> {
  const suffix = randomBase62(8).toLowerCase();
  const user = await insertUser(ctx.db, {
    email: overrides.email ?? `user-${suffix}@example.test`,
    displayName: overrides.displayName ?? `User ${suffix}`,
    verification: overrides.verification ?? (overrides.emailVerified === false ? { via: null } : { via: "operator" }),
    pending: false,
  });
  const { token } = await createApiToken(ctx.db, user.id);
  return { id: user.id, email: user.email, displayName: user.displayName, token };
}

/**
 * Creates an organization as an operator does (`quire orgs create`: the API refuses it unless
 * QUIRE_ORG_CREATION=users); `owner` becomes its admin.
 */
export async function createOrganization(ctx: TestContext, owner: TestUser, title = "Test Org"): Promise<{ id: string }> {
  // Organizations list oldest first, ties by id: keep each one later than the one before, as the
  // round trip of a request through the API did, so that lists show them in creation order.
  while (Date.now() <= lastOrganizationMs) await new Promise((resolve) => setTimeout(resolve, 1));
  const org = await ctx.db.transaction().execute((trx) => createOrganizationAsOperator(trx, { title, ownerId: owner.id }));
  lastOrganizationMs = Date.parse(org.createdAt);
  return { id: org.id };
}
let lastOrganizationMs = 0;

/** Adds a member with a role (null = guest) directly, for arranging permission scenarios. */
export async function addMemberToOrg(ctx: TestContext, orgId: string, user: TestUser, role: Role | null): Promise<void> {
  await addMember(ctx.db, { orgId, userId: user.id, role });
}

/** An organization with an owner (admin) and one member per role, plus a guest and an outsider. */
export async function createOrgWithRoles(ctx: TestContext) {
  const owner = await createUser(ctx, { displayName: "Owner" });
  const org = await createOrganization(ctx, owner);
  const members = {} as Record<Role | "guest", TestUser>;
  for (const role of ["admin", "create", "review", "edit", "comment", "read"] as const) {
    members[role] = await createUser(ctx, { displayName: `Member ${role}` });
    await addMemberToOrg(ctx, org.id, members[role], role);
  }
  members.guest = await createUser(ctx, { displayName: "Guest" });
  await addMemberToOrg(ctx, org.id, members.guest, null);
  const outsider = await createUser(ctx, { displayName: "Outsider" });
  return { org, owner, members, outsider };
}
