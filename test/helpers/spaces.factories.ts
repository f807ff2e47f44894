/**
 * Builders for collections, spaces, teams and grants. Collections, spaces and grants go through the
 * API like a client's; teams and Git sync state are written directly (their APIs belong to other
 * modules), and so is a deletion date in the past (time cannot be advanced through the API).
 */
import { expect } from "vitest";
import { newId } from "../../src/lib/ids.js";
import { isoDaysAgo, nowIso } from "../../src/lib/time.js";
import type { Role } from "../../src/permissions/roles.js";
import type { TestContext, TestUser } from "./app.js";
import { createOrgWithRoles } from "./factories.js";

export interface CreatedSpace {
  id: string;
  title: string;
  parent?: string;
  revision: string;
  [key: string]: any;
}

export async function createSpace(
  ctx: TestContext,
  user: TestUser,
  orgId: string,
  body: Record<string, unknown> = {},
): Promise<CreatedSpace> {
  const res = await ctx.as(user).post(`/v1/orgs/${orgId}/spaces`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** An organization with a member of every role (see createOrgWithRoles) and one space its owner created. */
export async function createOrgWithSpace(ctx: TestContext, body: Record<string, unknown> = {}) {
  const roles = await createOrgWithRoles(ctx);
  return { ...roles, space: await createSpace(ctx, roles.owner, roles.org.id, body) };
}

export async function createCollection(
  ctx: TestContext,
  user: TestUser,
  orgId: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string; [key: string]: any }> {
  const res = await ctx.as(user).post(`/v1/orgs/${orgId}/collections`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Grants `role` on a space or collection to users or teams through the API (as an admin of it). */
export async function grant(
  ctx: TestContext,
  admin: TestUser,
  target: { space: string } | { collection: string },
  role: Role | null,
  principals: { users?: string[]; teams?: string[] },
): Promise<void> {
  const path = "space" in target ? `/v1/spaces/${target.space}` : `/v1/collections/${target.collection}`;
  const res = await ctx.as(admin).post(`${path}/permissions`, { role, ...principals });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
}

/** Sets a space's or collection's default level through the API. */
export async function setDefaultLevel(
  ctx: TestContext,
  admin: TestUser,
  target: { space: string } | { collection: string },
  defaultLevel: Role | "inherit" | null,
): Promise<void> {
  const path = "space" in target ? `/v1/spaces/${target.space}` : `/v1/collections/${target.collection}`;
  const res = await ctx.as(admin).patch(path, { defaultLevel });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A team of the organization with these members (written directly: teams have their own module). */
export async function createTeam(
  ctx: TestContext,
  orgId: string,
  members: TestUser[],
  options: { title?: string; owner?: TestUser } = {},
): Promise<{ id: string }> {
  const id = newId();
  const now = nowIso();
  await ctx.db
    .insertInto("teams")
    .values({ id, orgId, title: options.title ?? "Team", createdAt: now, updatedAt: now })
    .execute();
  for (const member of members) {
    await ctx.db
      .insertInto("teamMembers")
      .values({ teamId: id, userId: member.id, role: options.owner?.id === member.id ? "owner" : "member", createdAt: now })
      .execute();
  }
  return { id };
}

/** Marks a space as Git-synchronised (Git sync has its own issue; only the state matters here). */
export async function configureGitSync(ctx: TestContext, spaceId: string): Promise<void> {
  await ctx.db
    .updateTable("spaces")
    .set({ gitSync: JSON.stringify({ repoName: "acme/docs", installationProvider: "github", updatedAt: nowIso() }) })
    .where("id", "=", spaceId)
    .execute();
}

/** Moves a deleted space's deletion date into the past. */
export async function backdateDeletion(ctx: TestContext, spaceId: string, days: number): Promise<void> {
  await ctx.db
    .updateTable("spaces")
    .set({ deletedAt: isoDaysAgo(days) })
    .where("id", "=", spaceId)
    .execute();
}

/** Row counts that a rejected request must leave unchanged. */
export async function snapshot(ctx: TestContext, orgId: string) {
  const [spaces, collections, grants, revisions] = await Promise.all([
    ctx.db.selectFrom("spaces").selectAll().where("orgId", "=", orgId).orderBy("id").execute(),
    ctx.db.selectFrom("collections").selectAll().where("orgId", "=", orgId).orderBy("id").execute(),
    ctx.db.selectFrom("grants").selectAll().where("orgId", "=", orgId).orderBy("targetId").orderBy("principalId").execute(),
    ctx.db
      .selectFrom("revisions")
      .innerJoin("spaces", "spaces.id", "revisions.spaceId")
      .select(["revisions.id", "revisions.spaceId", "revisions.treeHash"])
      .where("spaces.orgId", "=", orgId)
      .orderBy("revisions.id")
      .execute(),
  ]);
  return { spaces, collections, grants, revisions };
}
