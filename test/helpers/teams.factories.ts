/**
 * Builders for members, teams and invites scenarios. Teams and invite links go through the API;
 * spaces and grants are inserted directly because their API lives in another module.
 */
import { expect } from "vitest";
import { newId } from "../../src/lib/ids.js";
import { nowIso } from "../../src/lib/time.js";
import type { Role } from "../../src/permissions/roles.js";
import type { TestContext, TestUser } from "./app.js";

export interface TestTeam {
  id: string;
  title: string;
}

/** Creates a team through the API as `admin` (an organization admin). */
export async function createTeam(
  ctx: TestContext,
  admin: TestUser,
  orgId: string,
  input: { title?: string; members?: string[] } = {},
): Promise<TestTeam> {
  const res = await ctx.as(admin).put(`/v1/orgs/${orgId}/teams`, { title: input.title ?? "Team", members: input.members ?? [] });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Adds (or updates) a team member through the API as `actor`. */
export async function putTeamMember(
  ctx: TestContext,
  actor: TestUser,
  orgId: string,
  teamId: string,
  userId: string,
  role: "owner" | "member" = "member",
): Promise<void> {
  const res = await ctx.as(actor).put(`/v1/orgs/${orgId}/teams/${teamId}/members/${userId}`, { role });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
}

/** A space row of the organization, for counting grants. */
export async function insertSpace(ctx: TestContext, orgId: string, options: { deleted?: boolean } = {}): Promise<string> {
  const id = newId();
  const now = nowIso();
  await ctx.db
    .insertInto("spaces")
    .values({
      id,
      orgId,
      parentId: null,
      title: "Space",
      emoji: "",
      iconUrl: null,
      visibility: "private",
      editMode: "live",
      defaultLevel: "inherit",
      language: null,
      mergeRules: JSON.stringify({ type: "inherit" }),
      revisionId: newId(),
      position: "a0",
      gitSync: null,
      visitorAuth: null,
      createdBy: null,
      deletedAt: options.deleted ? now : null,
      deletedBy: null,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  return id;
}

/** A grant on a space to a user or a team. */
export async function grantSpace(
  ctx: TestContext,
  orgId: string,
  spaceId: string,
  principal: { type: "user" | "team"; id: string },
  role: Role = "read",
): Promise<void> {
  await ctx.db
    .insertInto("grants")
    .values({
      orgId,
      targetType: "space",
      targetId: spaceId,
      principalType: principal.type,
      principalId: principal.id,
      role,
      createdAt: nowIso(),
    })
    .execute();
}

/** Creates an organization invite link through the API as `admin`. */
export async function createLinkInvite(ctx: TestContext, admin: TestUser, orgId: string, role: Role | null): Promise<{ id: string }> {
  const res = await ctx.as(admin).post(`/v1/orgs/${orgId}/link-invites`, { role });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/**
 * Gives rows created in the same millisecond distinct times, in the order given, so that tests of
 * "oldest first" orderings do not depend on the id tiebreaker.
 */
export async function spreadCreationTimes(
  ctx: TestContext,
  rows: ({ table: "teams" | "linkInvites"; id: string } | { table: "teamMembers"; teamId: string; userId: string })[],
): Promise<void> {
  for (const [i, row] of rows.entries()) {
    const at = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
    if (row.table === "teamMembers") {
      await ctx.db
        .updateTable("teamMembers")
        .set({ createdAt: at })
        .where("teamId", "=", row.teamId)
        .where("userId", "=", row.userId)
        .execute();
    } else {
      await ctx.db.updateTable(row.table).set({ createdAt: at }).where("id", "=", row.id).execute();
    }
  }
}
