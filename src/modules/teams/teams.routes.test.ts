import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createOrganization, createOrgWithRoles } from "../../../test/helpers/factories.js";
import { createTeam, grantSpace, insertSpace, putTeamMember, spreadCreationTimes } from "../../../test/helpers/teams.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const ids = (items: { id: string }[]) => items.map((i) => i.id);

/** An organization with roles, a team owned by the `edit` member, and another organization with its own team. */
async function scenario() {
  const base = await createOrgWithRoles(ctx);
  const { org, owner, members, outsider } = base;
  const team = await createTeam(ctx, owner, org.id, { title: "Writers", members: [members.read.id] });
  await putTeamMember(ctx, owner, org.id, team.id, members.edit.id, "owner");
  await spreadCreationTimes(ctx, [
    { table: "teams", id: team.id },
    { table: "teamMembers", teamId: team.id, userId: members.read.id },
    { table: "teamMembers", teamId: team.id, userId: members.edit.id },
  ]);
  const otherOrg = await createOrganization(ctx, outsider);
  const otherTeam = await createTeam(ctx, outsider, otherOrg.id, { title: "Theirs" });
  return { ...base, team, teamOwner: members.edit, otherOrg, otherTeam };
}

async function teamMemberIds(orgId: string, teamId: string, as: Parameters<TestContext["as"]>[0]) {
  const res = await ctx.as(as).get(`/v1/orgs/${orgId}/teams/${teamId}/members`);
  expect(res.status).toBe(200);
  return Object.fromEntries(
    res.body.items.map((i: { organization: { id: string }; team: { role: string } }) => [i.organization.id, i.team.role]),
  );
}

describe("GET /v1/orgs/{organizationId}/teams", () => {
  it("requires a token", async () => {
    const { org } = await scenario();
    expect((await ctx.anonymous.get(`/v1/orgs/${org.id}/teams`)).status).toBe(401);
  });

  it("lists teams oldest first with counts and the caller's permissions", async () => {
    const { org, owner, members, team, teamOwner } = await scenario();
    const second = await createTeam(ctx, owner, org.id, { title: "Reviewers" });
    await spreadCreationTimes(ctx, [
      { table: "teams", id: team.id },
      { table: "teams", id: second.id },
    ]);
    const live = await insertSpace(ctx, org.id);
    const deleted = await insertSpace(ctx, org.id, { deleted: true });
    await grantSpace(ctx, org.id, live, { type: "team", id: team.id });
    await grantSpace(ctx, org.id, deleted, { type: "team", id: team.id });

    const res = await ctx.as(members.read).get(`/v1/orgs/${org.id}/teams`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.items).toEqual([
      {
        object: "team",
        id: team.id,
        title: "Writers",
        members: 2,
        spaces: 1,
        createdAt: expect.any(String),
        permissions: { view: true, admin: false },
      },
      {
        object: "team",
        id: second.id,
        title: "Reviewers",
        members: 0,
        spaces: 0,
        createdAt: expect.any(String),
        permissions: { view: true, admin: false },
      },
    ]);
    const asOwner = await ctx.as(teamOwner).get(`/v1/orgs/${org.id}/teams`);
    expect(asOwner.body.items.map((t: { permissions: { admin: boolean } }) => t.permissions.admin)).toEqual([true, false]);
    const asAdmin = await ctx.as(members.admin).get(`/v1/orgs/${org.id}/teams`);
    expect(asAdmin.body.items.map((t: { permissions: { admin: boolean } }) => t.permissions.admin)).toEqual([true, true]);
  });

  it("filters by title and by the teams a member can manage", async () => {
    const { org, owner, members, team, teamOwner } = await scenario();
    const second = await createTeam(ctx, owner, org.id, { title: "Reviewers" });
    await spreadCreationTimes(ctx, [
      { table: "teams", id: team.id },
      { table: "teams", id: second.id },
    ]);
    const get = async (query: string) => ids((await ctx.as(members.read).get(`/v1/orgs/${org.id}/teams?${query}`)).body.items);
    expect(await get("title=wRiT")).toEqual([team.id]);
    expect(await get("title=nothing")).toEqual([]);
    expect(await get(`owner=${teamOwner.id}`)).toEqual([team.id]);
    expect(await get(`owner=${members.admin.id}`)).toEqual([team.id, second.id]);
    expect(await get(`owner=${members.read.id}`)).toEqual([]);
    expect(await get(`owner=${members.admin.id}&title=review`)).toEqual([second.id]);
    await ctx.db.updateTable("members").set({ disabled: 1 }).where("orgId", "=", org.id).where("userId", "=", teamOwner.id).execute();
    expect(await get(`owner=${teamOwner.id}`)).toEqual([]);
  });

  it("answers 400 for an owner who is not a member here, 403 to guests, 404 to outsiders", async () => {
    const { org, owner, members, outsider } = await scenario();
    const res = await ctx.as(owner).get(`/v1/orgs/${org.id}/teams?owner=${outsider.id}`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(`query parameter "owner" names "${outsider.id}", which is not a member of this organization.`);
    const guest = await ctx.as(members.guest).get(`/v1/orgs/${org.id}/teams`);
    expect(guest.status).toBe(403);
    expect(guest.body.error.message).toBe("Guests cannot list the organization's teams.");
    expect((await ctx.as(outsider).get(`/v1/orgs/${org.id}/teams`)).status).toBe(404);
  });
});

describe("PUT /v1/orgs/{organizationId}/teams", () => {
  it("creates a team with members, 201 and a Location header", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const res = await ctx.as(members.admin).put(`/v1/orgs/${org.id}/teams`, {
      title: "Support",
      members: [members.read.id, members.guest.id, members.read.id],
    });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${ctx.urls.base}/v1/orgs/${org.id}/teams/${res.body.id}`);
    expect(res.body).toEqual({
      object: "team",
      id: expect.any(String),
      title: "Support",
      members: 2,
      spaces: 0,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      permissions: { view: true, admin: true },
    });
    expect(await teamMemberIds(org.id, res.body.id, owner)).toEqual({ [members.read.id]: "member", [members.guest.id]: "member" });
  });

  it("rejects bad titles and non-members with precise messages, creating nothing", async () => {
    const { org, owner, outsider } = await createOrgWithRoles(ctx);
    const empty = await ctx.as(owner).put(`/v1/orgs/${org.id}/teams`, { title: "" });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toBe("body.title must be at least 1 characters long.");
    const long = await ctx.as(owner).put(`/v1/orgs/${org.id}/teams`, { title: "t".repeat(65) });
    expect(long.body.error.message).toBe("body.title must be at most 64 characters long.");
    const stranger = await ctx.as(owner).put(`/v1/orgs/${org.id}/teams`, { title: "X", members: [owner.id, outsider.id] });
    expect(stranger.status).toBe(400);
    expect(stranger.body.error.message).toBe(`body.members names "${outsider.id}", which is not a member of this organization.`);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/teams`)).body.count).toBe(0);
  });

  it("answers 401, 403 to non-admins and 404 to outsiders", async () => {
    const { org, members, outsider } = await createOrgWithRoles(ctx);
    expect((await ctx.anonymous.put(`/v1/orgs/${org.id}/teams`, { title: "X" })).status).toBe(401);
    const denied = await ctx.as(members.create).put(`/v1/orgs/${org.id}/teams`, { title: "X" });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe("Only organization admins can create teams.");
    expect((await ctx.as(outsider).put(`/v1/orgs/${org.id}/teams`, { title: "X" })).status).toBe(404);
  });
});

describe("GET /v1/orgs/{organizationId}/teams/{teamId}", () => {
  it("returns the team to members; 401, 404 to guests, outsiders and for another organization's team", async () => {
    const { org, members, team, outsider, otherTeam } = await scenario();
    expect((await ctx.anonymous.get(`/v1/orgs/${org.id}/teams/${team.id}`)).status).toBe(401);
    const res = await ctx.as(members.comment).get(`/v1/orgs/${org.id}/teams/${team.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: team.id, title: "Writers", members: 2, permissions: { view: true, admin: false } });
    expect((await ctx.as(members.guest).get(`/v1/orgs/${org.id}/teams/${team.id}`)).status).toBe(404);
    expect((await ctx.as(outsider).get(`/v1/orgs/${org.id}/teams/${team.id}`)).status).toBe(404);
    const foreign = await ctx.as(members.admin).get(`/v1/orgs/${org.id}/teams/${otherTeam.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).toBe(`No team with id "${otherTeam.id}" in this organization.`);
  });
});

describe("PATCH /v1/orgs/{organizationId}/teams/{teamId}", () => {
  it("lets admins and the team's owners rename it; others get 403, outsiders 404", async () => {
    const { org, members, team, teamOwner, outsider } = await scenario();
    expect((await ctx.anonymous.patch(`/v1/orgs/${org.id}/teams/${team.id}`, { title: "X" })).status).toBe(401);
    const renamed = await ctx.as(teamOwner).patch(`/v1/orgs/${org.id}/teams/${team.id}`, { title: "Authors" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: team.id, title: "Authors", members: 2, permissions: { view: true, admin: true } });
    expect((await ctx.as(members.admin).patch(`/v1/orgs/${org.id}/teams/${team.id}`, { title: "Editors" })).body.title).toBe("Editors");
    const denied = await ctx.as(members.read).patch(`/v1/orgs/${org.id}/teams/${team.id}`, { title: "Mine" });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe("Only organization admins and the team's owners can rename this team.");
    expect((await ctx.as(outsider).patch(`/v1/orgs/${org.id}/teams/${team.id}`, { title: "X" })).status).toBe(404);
    expect((await ctx.as(members.read).get(`/v1/orgs/${org.id}/teams/${team.id}`)).body.title).toBe("Editors");
  });

  it("requires a title", async () => {
    const { org, owner, team } = await scenario();
    const res = await ctx.as(owner).patch(`/v1/orgs/${org.id}/teams/${team.id}`, {});
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe("body.title is required.");
  });
});

describe("DELETE /v1/orgs/{organizationId}/teams/{teamId}", () => {
  it("deletes the team with its memberships and grants", async () => {
    const { org, owner, team } = await scenario();
    const space = await insertSpace(ctx, org.id);
    await grantSpace(ctx, org.id, space, { type: "team", id: team.id });
    const res = await ctx.as(owner).delete(`/v1/orgs/${org.id}/teams/${team.id}`);
    expect(res.status).toBe(204);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/teams/${team.id}`)).status).toBe(404);
    expect(await ctx.db.selectFrom("teamMembers").select("userId").where("teamId", "=", team.id).execute()).toEqual([]);
    expect(await ctx.db.selectFrom("grants").select("targetId").where("principalId", "=", team.id).execute()).toEqual([]);
  });

  it("answers 204 for a missing team and leaves another organization's team alone", async () => {
    const { org, owner, otherOrg, otherTeam, outsider } = await scenario();
    expect((await ctx.as(owner).delete(`/v1/orgs/${org.id}/teams/missing`)).status).toBe(204);
    expect((await ctx.as(owner).delete(`/v1/orgs/${org.id}/teams/${otherTeam.id}`)).status).toBe(204);
    expect((await ctx.as(outsider).get(`/v1/orgs/${otherOrg.id}/teams/${otherTeam.id}`)).status).toBe(200);
  });

  it("is for organization admins only: 401, 403 for team owners, 404 for outsiders", async () => {
    const { org, owner, team, teamOwner, outsider } = await scenario();
    expect((await ctx.anonymous.delete(`/v1/orgs/${org.id}/teams/${team.id}`)).status).toBe(401);
    const denied = await ctx.as(teamOwner).delete(`/v1/orgs/${org.id}/teams/${team.id}`);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe("Only organization admins can delete teams.");
    expect((await ctx.as(outsider).delete(`/v1/orgs/${org.id}/teams/${team.id}`)).status).toBe(404);
    const malformed = await ctx.as(owner).delete(`/v1/orgs/${org.id}/teams/${team.id}`, { rawBody: "{" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/^The request body is not valid JSON: /);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/teams/${team.id}`)).status).toBe(200);
  });
});

describe("GET /v1/orgs/{organizationId}/teams/{teamId}/members", () => {
  it("lists team members with their membership and team role", async () => {
    const { org, members, team, teamOwner } = await scenario();
    await grantSpace(ctx, org.id, await insertSpace(ctx, org.id), { type: "user", id: members.read.id });
    const res = await ctx.as(members.comment).get(`/v1/orgs/${org.id}/teams/${team.id}/members`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.items[0]).toEqual({
      organization: {
        object: "member",
        id: members.read.id,
        role: "read",
        user: expect.objectContaining({ object: "user", id: members.read.id }),
        disabled: false,
        joinedAt: expect.any(String),
        sso: false,
        spaces: 1,
        teams: 1,
      },
      team: { role: "member" },
      permissions: { view: true },
    });
    expect(res.body.items[1]).toMatchObject({ organization: { id: teamOwner.id }, team: { role: "owner" } });
    const paged = await ctx.as(members.comment).get(`/v1/orgs/${org.id}/teams/${team.id}/members?limit=1`);
    expect(paged.body.items).toHaveLength(1);
    const rest = await ctx.as(members.comment).get(`/v1/orgs/${org.id}/teams/${team.id}/members?limit=1&page=${paged.body.next.page}`);
    expect(rest.body.items[0].organization.id).toBe(teamOwner.id);
    expect(rest.body.next).toBeUndefined();
  });

  it("answers 401, 400, 404 to guests and outsiders", async () => {
    const { org, owner, members, team, outsider } = await scenario();
    const url = `/v1/orgs/${org.id}/teams/${team.id}/members`;
    expect((await ctx.anonymous.get(url)).status).toBe(401);
    const zero = await ctx.as(owner).get(`${url}?limit=0`);
    expect(zero.status).toBe(400);
    expect(zero.body.error.message).toBe('query parameter "limit" must be at least 1.');
    expect((await ctx.as(members.guest).get(url)).status).toBe(404);
    expect((await ctx.as(outsider).get(url)).status).toBe(404);
  });
});

describe("PUT /v1/orgs/{organizationId}/teams/{teamId}/members", () => {
  it("adds by id or email, removes, sets roles; a user in add and remove is removed", async () => {
    const { org, owner, members, team, teamOwner } = await scenario();
    const res = await ctx.as(teamOwner).put(`/v1/orgs/${org.id}/teams/${team.id}/members`, {
      add: [members.comment.id, members.create.email.toUpperCase(), members.review.id],
      remove: [members.read.email, members.review.id],
      memberships: { [members.create.id]: { role: "owner" } },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(await teamMemberIds(org.id, team.id, owner)).toEqual({
      [teamOwner.id]: "owner",
      [members.comment.id]: "member",
      [members.create.id]: "owner",
    });
    // memberships alone changes a role, or adds the user it names.
    await ctx.as(owner).put(`/v1/orgs/${org.id}/teams/${team.id}/members`, {
      memberships: { [members.create.id]: { role: "member" }, [members.guest.id]: { role: "member" } },
    });
    expect(await teamMemberIds(org.id, team.id, owner)).toMatchObject({ [members.create.id]: "member", [members.guest.id]: "member" });
  });

  it("rejects an unknown user or another organization's user, changing nothing", async () => {
    const { org, owner, members, team, outsider } = await scenario();
    const before = await teamMemberIds(org.id, team.id, owner);
    const res = await ctx.as(owner).put(`/v1/orgs/${org.id}/teams/${team.id}/members`, {
      add: [members.comment.id, outsider.id],
      remove: [members.read.id],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(`body.add names "${outsider.id}", which is not a member of this organization.`);
    const byEmail = await ctx.as(owner).put(`/v1/orgs/${org.id}/teams/${team.id}/members`, { remove: ["nobody@nowhere.test"] });
    expect(byEmail.body.error.message).toBe('body.remove names "nobody@nowhere.test", which is not a member of this organization.');
    const badRole = await ctx.as(owner).put(`/v1/orgs/${org.id}/teams/${team.id}/members`, {
      memberships: { [members.read.id]: { role: "boss" } },
    });
    expect(badRole.status).toBe(400);
    expect(badRole.body.error.message).toBe(`body.memberships.${members.read.id}.role must be one of: "owner", "member".`);
    expect(await teamMemberIds(org.id, team.id, owner)).toEqual(before);
  });

  it("answers 401, 403 to members who do not own the team, 404 to outsiders", async () => {
    const { org, members, team, outsider } = await scenario();
    const url = `/v1/orgs/${org.id}/teams/${team.id}/members`;
    expect((await ctx.anonymous.put(url, { add: [] })).status).toBe(401);
    const denied = await ctx.as(members.read).put(url, { add: [members.comment.id] });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe("Only organization admins and the team's owners can change its members.");
    expect((await ctx.as(outsider).put(url, { add: [] })).status).toBe(404);
  });
});

describe("PUT and DELETE /v1/orgs/{organizationId}/teams/{teamId}/members/{userId}", () => {
  it("adds a member, changes their role, keeps it when no role is given, and removes them", async () => {
    const { org, owner, members, team, teamOwner } = await scenario();
    const url = `/v1/orgs/${org.id}/teams/${team.id}/members/${members.comment.id}`;
    expect((await ctx.as(teamOwner).put(url)).status).toBe(204);
    expect((await teamMemberIds(org.id, team.id, owner))[members.comment.id]).toBe("member");
    expect((await ctx.as(teamOwner).put(url, { role: "owner" })).status).toBe(204);
    expect((await ctx.as(teamOwner).put(url, {})).status).toBe(204);
    expect((await teamMemberIds(org.id, team.id, owner))[members.comment.id]).toBe("owner");
    // The new owner now manages the team.
    expect((await ctx.as(members.comment).patch(`/v1/orgs/${org.id}/teams/${team.id}`, { title: "Ours" })).status).toBe(200);
    const removed = await ctx.as(owner).delete(url);
    expect(removed.status).toBe(204);
    expect(await teamMemberIds(org.id, team.id, owner)).not.toHaveProperty(members.comment.id);
    expect((await ctx.as(owner).delete(url)).status).toBe(204);
  });

  it("validates the role and refuses users who are not members here", async () => {
    const { org, owner, team, outsider } = await scenario();
    const bad = await ctx.as(owner).put(`/v1/orgs/${org.id}/teams/${team.id}/members/${owner.id}`, { role: "admin" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('body.role must be one of: "owner", "member".');
    const stranger = await ctx.as(owner).put(`/v1/orgs/${org.id}/teams/${team.id}/members/${outsider.id}`);
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.message).toBe(`No member with id "${outsider.id}" in this organization.`);
  });

  it("answers 401, 403 to members who do not own the team, 404 to outsiders and for another organization's team", async () => {
    const { org, owner, members, team, outsider, otherTeam } = await scenario();
    const url = `/v1/orgs/${org.id}/teams/${team.id}/members/${members.read.id}`;
    expect((await ctx.anonymous.put(url)).status).toBe(401);
    expect((await ctx.anonymous.delete(url)).status).toBe(401);
    expect((await ctx.as(members.create).put(url, { role: "owner" })).status).toBe(403);
    const denied = await ctx.as(members.create).delete(url);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe("Only organization admins and the team's owners can change its members.");
    expect((await ctx.as(outsider).delete(url)).status).toBe(404);
    expect((await ctx.as(owner).delete(`/v1/orgs/${org.id}/teams/${otherTeam.id}/members/${outsider.id}`)).status).toBe(404);
    expect((await teamMemberIds(org.id, team.id, owner))[members.read.id]).toBe("member");
  });

  it("answers a malformed body on DELETE with 400", async () => {
    const { org, owner, members, team } = await scenario();
    const res = await ctx.as(owner).delete(`/v1/orgs/${org.id}/teams/${team.id}/members/${members.read.id}`, { rawBody: "{", headers: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^The request body is not valid JSON: /);
  });
});
