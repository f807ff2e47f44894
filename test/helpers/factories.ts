/**
 * Test data builders. Users and tokens are created directly (there is no API for them); everything
 * else goes through the API as a real client would, so factories exercise the same code paths.
 */
import { expect } from "vitest";
import { randomBase62 } from "../../src/lib/ids.js";
import { createApiToken } from "../../src/modules/users/tokens.queries.js";
import { insertUser } from "../../src/modules/users/users.queries.js";
import { addMember } from "../../src/permissions/memberships.queries.js";
import type { Role } from "../../src/permissions/roles.js";
import type { TestContext, TestUser } from "./app.js";

export async function createUser(
  ctx: TestContext,
  overrides: { email?: string; displayName?: string; emailVerified?: boolean } = {},
): Promise<TestUser> {
  const suffix = randomBase62(8).toLowerCase();
  const user = await insertUser(ctx.db, {
    email: overrides.email ?? `user-${suffix}@example.test`,
    displayName: overrides.displayName ?? `User ${suffix}`,
    emailVerified: overrides.emailVerified ?? true,
    pending: false,
  });
  const { token } = await createApiToken(ctx.db, user.id);
  return { id: user.id, email: user.email, displayName: user.displayName, token };
}

/** Creates an organization through the API; `owner` becomes its admin. */
export async function createOrganization(ctx: TestContext, owner: TestUser, title = "Test Org"): Promise<{ id: string }> {
  const res = await ctx.as(owner).post("/v1/orgs", { title });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

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
