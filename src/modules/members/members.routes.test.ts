import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { addMemberToOrg, createOrganization, createOrgWithRoles, createUser } from "../../../test/helpers/factories.js";
import {
  createLinkInvite,
  createTeam,
  grantSpace,
  insertSpace,
  putTeamMember,
  spreadCreationTimes,
} from "../../../test/helpers/teams.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const ids = (items: { id: string }[]) => items.map((i) => i.id);

/** Sets distinct join (and optionally last-seen) times so that orderings are deterministic. */
async function setTimes(orgId: string, user: TestUser, joinedAt: string, lastSeenAt: string | null = null) {
  await ctx.db.updateTable("members").set({ joinedAt, lastSeenAt }).where("orgId", "=", orgId).where("userId", "=", user.id).execute();
}

describe("GET /v1/orgs/{organizationId}/members", () => {
  it("requires a token", async () => {
    const { org } = await createOrgWithRoles(ctx);
    const res = await ctx.anonymous.get(`/v1/orgs/${org.id}/members`);
    expect(res.status).toBe(401);
  });

  it("rejects an unknown role filter and an unknown sort with precise messages", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const role = await ctx.as(owner).get(`/v1/orgs/${org.id}/members?role=superuser`);
    expect(role.status).toBe(400);
    expect(role.body.error.message).toBe(
      'query parameter "role" must be one of: "admin", "create", "review", "edit", "comment", "read", "guest".',
    );
    const sort = await ctx.as(owner).get(`/v1/orgs/${org.id}/members?sort=title`);
    expect(sort.status).toBe(400);
    expect(sort.body.error.message).toBe('query parameter "sort" must be one of: "joinedAt", "lastSeenAt".');
  });

  it("answers 404 to outsiders and 403 to guests", async () => {
    const { org, members, outsider } = await createOrgWithRoles(ctx);
    expect((await ctx.as(outsider).get(`/v1/orgs/${org.id}/members`)).status).toBe(404);
    const guest = await ctx.as(members.guest).get(`/v1/orgs/${org.id}/members`);
    expect(guest.status).toBe(403);
    expect(guest.body.error.message).toBe("Guests cannot see the organization's members.");
  });

  it("lists members newest first by default, with their user, role and counts", async () => {
    const owner = await createUser(ctx, { displayName: "Olga Owner" });
    const org = await createOrganization(ctx, owner);
    const reader = await createUser(ctx, { displayName: "Rita Reader" });
    const guest = await createUser(ctx, { displayName: "Gus Guest" });
    await addMemberToOrg(ctx, org.id, reader, "read");
    await addMemberToOrg(ctx, org.id, guest, null);
    await setTimes(org.id, owner, "2024-01-01T00:00:00.000Z");
    await setTimes(org.id, reader, "2024-01-02T00:00:00.000Z", "2024-03-01T00:00:00.000Z");
    await setTimes(org.id, guest, "2024-01-03T00:00:00.000Z");

    // Counts: two live spaces granted to the reader, one deleted space (not counted), one team.
    const live1 = await insertSpace(ctx, org.id);
    const live2 = await insertSpace(ctx, org.id);
    const deleted = await insertSpace(ctx, org.id, { deleted: true });
    for (const space of [live1, live2, deleted]) await grantSpace(ctx, org.id, space, { type: "user", id: reader.id });
    await createTeam(ctx, owner, org.id, { title: "Readers", members: [reader.id] });
    // The reader's grants and teams in another organization do not count here.
    const otherOwner = await createUser(ctx);
    const other = await createOrganization(ctx, otherOwner);
    await addMemberToOrg(ctx, other.id, reader, "read");
    await grantSpace(ctx, other.id, await insertSpace(ctx, other.id), { type: "user", id: reader.id });
    await createTeam(ctx, otherOwner, other.id, { members: [reader.id] });

    const res = await ctx.as(reader).get(`/v1/orgs/${org.id}/members`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(3);
    expect(ids(res.body.items)).toEqual([guest.id, reader.id, owner.id]);
    expect(res.body.items[1]).toEqual({
      object: "member",
      id: reader.id,
      role: "read",
      user: {
        object: "user",
        id: reader.id,
        displayName: "Rita Reader",
        email: reader.email,
        urls: { location: `${ctx.urls.base}/v1/users/${reader.id}` },
      },
      disabled: false,
      joinedAt: "2024-01-02T00:00:00.000Z",
      lastSeenAt: "2024-03-01T00:00:00.000Z",
      sso: false,
      spaces: 2,
      teams: 1,
    });
    expect(res.body.items[0]).toMatchObject({ role: null, spaces: 0, teams: 0 });
    expect(res.body.items[0]).not.toHaveProperty("lastSeenAt");

    const asc = await ctx.as(reader).get(`/v1/orgs/${org.id}/members?order=asc`);
    expect(ids(asc.body.items)).toEqual([owner.id, reader.id, guest.id]);
  });

  it("filters by role, by guest, and by text in the name or email, case-insensitively", async () => {
    const owner = await createUser(ctx, { displayName: "Olga Owner", email: "olga@filters.test" });
    const org = await createOrganization(ctx, owner);
    const editor = await createUser(ctx, { displayName: "Eddie Editor", email: "eddie@filters.test" });
    const guest = await createUser(ctx, { displayName: "Gus", email: "gus.100%_sure@filters.test" });
    await addMemberToOrg(ctx, org.id, editor, "edit");
    await addMemberToOrg(ctx, org.id, guest, null);
    const get = async (query: string) => (await ctx.as(owner).get(`/v1/orgs/${org.id}/members?${query}`)).body;

    expect(ids((await get("role=edit")).items)).toEqual([editor.id]);
    expect(ids((await get("role=guest")).items)).toEqual([guest.id]);
    expect((await get("role=admin")).count).toBe(1);
    expect(ids((await get("search=EDDIE")).items)).toEqual([editor.id]);
    expect(ids((await get("search=olga%40FILTERS")).items)).toEqual([owner.id]);
    // LIKE wildcards in the text match literally.
    expect(ids((await get("search=100%25_")).items)).toEqual([guest.id]);
    expect((await get("search=%25")).count).toBe(1);
    expect((await get("search=nobody")).count).toBe(0);
  });

  it("sorts by lastSeenAt listing only members seen at least once", async () => {
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const early = await createUser(ctx);
    const late = await createUser(ctx);
    const never = await createUser(ctx);
    for (const u of [early, late, never]) await addMemberToOrg(ctx, org.id, u, "read");
    await setTimes(org.id, owner, "2024-01-01T00:00:00.000Z");
    await setTimes(org.id, early, "2024-01-05T00:00:00.000Z", "2024-02-01T00:00:00.000Z");
    await setTimes(org.id, late, "2024-01-02T00:00:00.000Z", "2024-02-05T00:00:00.000Z");
    const res = await ctx.as(owner).get(`/v1/orgs/${org.id}/members?sort=lastSeenAt`);
    expect(res.body.count).toBe(2);
    expect(ids(res.body.items)).toEqual([late.id, early.id]);
    const asc = await ctx.as(owner).get(`/v1/orgs/${org.id}/members?sort=lastSeenAt&order=asc`);
    expect(ids(asc.body.items)).toEqual([early.id, late.id]);
  });

  it("pages with cursors without gaps or repeats, also when join times are equal", async () => {
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const everyone = [owner];
    for (let i = 0; i < 6; i++) {
      const u = await createUser(ctx);
      await addMemberToOrg(ctx, org.id, u, "read");
      everyone.push(u);
    }
    // Same join time for all: the user id breaks the tie.
    for (const u of everyone) await setTimes(org.id, u, "2024-01-01T00:00:00.000Z");
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await ctx.as(owner).get(`/v1/orgs/${org.id}/members?limit=4${page ? `&page=${page}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(7);
      seen.push(...ids(res.body.items));
      page = res.body.next?.page;
    } while (page);
    expect(seen).toEqual(
      everyone
        .map((u) => u.id)
        .sort()
        .reverse(),
    );
  });
});

describe("GET /v1/orgs/{organizationId}/members/{userId}", () => {
  it("requires a token", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    expect((await ctx.anonymous.get(`/v1/orgs/${org.id}/members/${owner.id}`)).status).toBe(401);
  });

  it("returns a member to members, 403 to guests, 404 to outsiders and for non-members", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const res = await ctx.as(members.read).get(`/v1/orgs/${org.id}/members/${members.edit.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: "member", id: members.edit.id, role: "edit", user: { id: members.edit.id } });
    expect((await ctx.as(members.guest).get(`/v1/orgs/${org.id}/members/${owner.id}`)).status).toBe(403);
    expect((await ctx.as(outsider).get(`/v1/orgs/${org.id}/members/${owner.id}`)).status).toBe(404);
    const stranger = await ctx.as(owner).get(`/v1/orgs/${org.id}/members/${outsider.id}`);
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.message).toBe(`No member with id "${outsider.id}" in this organization.`);
  });
});

describe("PATCH /v1/orgs/{organizationId}/members/{userId}", () => {
  it("requires a token and a valid role", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    expect((await ctx.anonymous.patch(`/v1/orgs/${org.id}/members/${members.read.id}`, { role: "edit" })).status).toBe(401);
    const missing = await ctx.as(owner).patch(`/v1/orgs/${org.id}/members/${members.read.id}`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe("body.role is required.");
    const bad = await ctx.as(owner).patch(`/v1/orgs/${org.id}/members/${members.read.id}`, { role: "owner" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('body.role must be one of: "admin", "create", "review", "edit", "comment", "read", null.');
  });

  it("lets admins change a role or make a member a guest", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const res = await ctx.as(owner).patch(`/v1/orgs/${org.id}/members/${members.read.id}`, { role: "edit" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: "member", id: members.read.id, role: "edit" });
    const guest = await ctx.as(members.admin).patch(`/v1/orgs/${org.id}/members/${members.read.id}`, { role: null });
    expect(guest.body.role).toBeNull();
    // The change is effective: a guest can no longer list members.
    expect((await ctx.as(members.read).get(`/v1/orgs/${org.id}/members`)).status).toBe(403);
  });

  it("gives non-admins 403, outsiders 404, and 404 for users who are not members here", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const denied = await ctx.as(members.create).patch(`/v1/orgs/${org.id}/members/${members.read.id}`, { role: "admin" });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe("Only organization admins can change a member's role.");
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/members/${members.read.id}`)).body.role).toBe("read");
    expect((await ctx.as(outsider).patch(`/v1/orgs/${org.id}/members/${owner.id}`, { role: "read" })).status).toBe(404);
    // A member of another organization is unknown here, and their other membership is untouched.
    const other = await createOrganization(ctx, outsider);
    const res = await ctx.as(owner).patch(`/v1/orgs/${org.id}/members/${outsider.id}`, { role: "read" });
    expect(res.status).toBe(404);
    expect((await ctx.as(outsider).get(`/v1/orgs/${other.id}/members/${outsider.id}`)).body.role).toBe("admin");
  });

  it("refuses to demote the last active admin with 409, counting neither pending nor disabled admins", async () => {
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const res = await ctx.as(owner).patch(`/v1/orgs/${org.id}/members/${owner.id}`, { role: "read" });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toBe("The organization must keep at least one active admin: promote another member to admin first.");
    // A pending invited admin does not count, nor does a disabled one.
    const invited = await ctx
      .as(owner)
      .post(`/v1/orgs/${org.id}/invites`, { emails: [{ email: "pending-admin@members.test", role: "admin" }] });
    expect(invited.body.invited).toBe(1);
    const disabled = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, disabled, "admin");
    await ctx.db.updateTable("members").set({ disabled: 1 }).where("userId", "=", disabled.id).execute();
    expect((await ctx.as(owner).patch(`/v1/orgs/${org.id}/members/${owner.id}`, { role: "read" })).status).toBe(409);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/members/${owner.id}`)).body.role).toBe("admin");

    const second = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, second, "admin");
    const demoted = await ctx.as(owner).patch(`/v1/orgs/${org.id}/members/${owner.id}`, { role: "read" });
    expect(demoted.status).toBe(200);
    expect(demoted.body.role).toBe("read");
  });

  it("keeps one admin when two admins demote each other at the same time", async () => {
    const a = await createUser(ctx);
    const org = await createOrganization(ctx, a);
    const b = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, b, "admin");
    const results = await Promise.all([
      ctx.as(a).patch(`/v1/orgs/${org.id}/members/${b.id}`, { role: "read" }),
      ctx.as(b).patch(`/v1/orgs/${org.id}/members/${a.id}`, { role: "read" }),
    ]);
    const admins = await ctx.db.selectFrom("members").select("userId").where("orgId", "=", org.id).where("role", "=", "admin").execute();
    expect(admins).toHaveLength(1);
    // The second request either found itself demoted (403) or saw the last admin (409).
    expect(results.map((r) => r.status).sort()).toEqual(results.some((r) => r.status === 409) ? [200, 409] : [200, 403]);
  });
});

describe("DELETE /v1/orgs/{organizationId}/members/{userId}", () => {
  it("requires a token and answers a malformed body with 400", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    expect((await ctx.anonymous.delete(`/v1/orgs/${org.id}/members/${members.read.id}`)).status).toBe(401);
    const res = await ctx.as(owner).delete(`/v1/orgs/${org.id}/members/${members.read.id}`, { rawBody: "{" });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^The request body is not valid JSON: /);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/members/${members.read.id}`)).status).toBe(200);
  });

  it("removes a member with their team memberships, grants and invite links in this organization only", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const target = members.edit;
    await ctx.as(owner).patch(`/v1/orgs/${org.id}/members/${target.id}`, { role: "admin" });
    await createLinkInvite(ctx, target, org.id, "read");
    const ownersLink = await createLinkInvite(ctx, owner, org.id, "read");
    const team = await createTeam(ctx, owner, org.id, { members: [target.id, members.read.id] });
    const space = await insertSpace(ctx, org.id);
    await grantSpace(ctx, org.id, space, { type: "user", id: target.id });
    await grantSpace(ctx, org.id, space, { type: "user", id: members.read.id });
    const otherOwner = await createUser(ctx);
    const other = await createOrganization(ctx, otherOwner);
    await addMemberToOrg(ctx, other.id, target, "read");
    const otherTeam = await createTeam(ctx, otherOwner, other.id, { members: [target.id] });
    await grantSpace(ctx, other.id, await insertSpace(ctx, other.id), { type: "user", id: target.id });

    const res = await ctx.as(owner).delete(`/v1/orgs/${org.id}/members/${target.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/members/${target.id}`)).status).toBe(404);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/teams/${team.id}`)).body.members).toBe(1);
    const grants = await ctx.db.selectFrom("grants").select(["orgId", "principalId"]).where("principalId", "=", target.id).execute();
    expect(grants).toEqual([{ orgId: other.id, principalId: target.id }]);
    expect((await ctx.as(otherOwner).get(`/v1/orgs/${other.id}/members/${target.id}`)).body).toMatchObject({ teams: 1, spaces: 1 });
    expect((await ctx.as(otherOwner).get(`/v1/orgs/${other.id}/teams/${otherTeam.id}`)).body.members).toBe(1);
    const links = await ctx.db.selectFrom("linkInvites").select("id").where("orgId", "=", org.id).execute();
    expect(links.map((l) => l.id)).toEqual([ownersLink.id]);
    // The removed user no longer sees the organization.
    expect((await ctx.as(target).get(`/v1/orgs/${org.id}`)).status).toBe(404);
  });

  it("answers 204 when the user is not a member, also for another organization's member", async () => {
    const { org, owner, outsider } = await createOrgWithRoles(ctx);
    const other = await createOrganization(ctx, outsider);
    expect((await ctx.as(owner).delete(`/v1/orgs/${org.id}/members/nobody`)).status).toBe(204);
    expect((await ctx.as(owner).delete(`/v1/orgs/${org.id}/members/${outsider.id}`)).status).toBe(204);
    expect((await ctx.as(outsider).get(`/v1/orgs/${other.id}`)).status).toBe(200);
  });

  it("lets anyone leave, gives non-admins 403 for others, and outsiders 404", async () => {
    const { org, members, outsider } = await createOrgWithRoles(ctx);
    const denied = await ctx.as(members.create).delete(`/v1/orgs/${org.id}/members/${members.read.id}`);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe("Only organization admins can remove other members; you can remove yourself.");
    expect((await ctx.as(outsider).delete(`/v1/orgs/${org.id}/members/${members.read.id}`)).status).toBe(404);
    expect((await ctx.as(members.guest).delete(`/v1/orgs/${org.id}/members/${members.guest.id}`)).status).toBe(204);
    expect((await ctx.as(members.guest).get(`/v1/orgs/${org.id}`)).status).toBe(404);
  });

  it("refuses to remove the last admin with 409", async () => {
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const res = await ctx.as(owner).delete(`/v1/orgs/${org.id}/members/${owner.id}`);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/at least one active admin/);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}`)).status).toBe(200);
  });
});

describe("POST /v1/orgs/{organizationId}/members/{userId}/sso", () => {
  it("lets admins mark a member as SSO; 401, 403, 404 otherwise", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    expect((await ctx.anonymous.post(`/v1/orgs/${org.id}/members/${members.read.id}/sso`)).status).toBe(401);
    const denied = await ctx.as(members.create).post(`/v1/orgs/${org.id}/members/${members.read.id}/sso`);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe("Only organization admins can make a member an SSO member.");
    expect((await ctx.as(outsider).post(`/v1/orgs/${org.id}/members/${members.read.id}/sso`)).status).toBe(404);
    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/members/${outsider.id}/sso`)).status).toBe(404);
    const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/members/${members.read.id}/sso`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: "member", id: members.read.id, sso: true, role: "read" });
  });

  it("answers a malformed body with 400 and changes nothing", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/members/${members.read.id}/sso`, undefined, { rawBody: "{" });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^The request body is not valid JSON: /);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/members/${members.read.id}`)).body.sso).toBe(false);
  });
});

describe("GET /v1/orgs/{organizationId}/members/{userId}/teams", () => {
  it("lists the member's teams with their role, filtered by title", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const docs = await createTeam(ctx, owner, org.id, { title: "Docs Writers", members: [members.edit.id] });
    const ops = await createTeam(ctx, owner, org.id, { title: "Ops" });
    await putTeamMember(ctx, owner, org.id, ops.id, members.edit.id, "owner");
    await createTeam(ctx, owner, org.id, { title: "Unrelated" });
    await spreadCreationTimes(ctx, [
      { table: "teams", id: docs.id },
      { table: "teams", id: ops.id },
    ]);
    const other = await createOrganization(ctx, outsider);
    await addMemberToOrg(ctx, other.id, members.edit, "read");
    await createTeam(ctx, outsider, other.id, { title: "Elsewhere", members: [members.edit.id] });

    const res = await ctx.as(members.read).get(`/v1/orgs/${org.id}/members/${members.edit.id}/teams`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.items).toEqual([
      {
        team: {
          object: "team",
          id: docs.id,
          title: "Docs Writers",
          members: 1,
          spaces: 0,
          createdAt: expect.any(String),
          permissions: { view: true, admin: false },
        },
        member: { role: "member" },
      },
      { team: expect.objectContaining({ id: ops.id, members: 1 }), member: { role: "owner" } },
    ]);
    const filtered = await ctx.as(members.edit).get(`/v1/orgs/${org.id}/members/${members.edit.id}/teams?title=DOCS`);
    expect(filtered.body.items.map((i: { team: { id: string } }) => i.team.id)).toEqual([docs.id]);
    // The team owner manages Ops, not Docs; permissions say so.
    const mine = await ctx.as(members.edit).get(`/v1/orgs/${org.id}/members/${members.edit.id}/teams`);
    expect(mine.body.items.map((i: { team: { permissions: unknown } }) => i.team.permissions)).toEqual([
      { view: true, admin: false },
      { view: true, admin: true },
    ]);
  });

  it("answers 401, 400, 403 to guests, 404 to outsiders and for non-members", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const url = `/v1/orgs/${org.id}/members/${members.read.id}/teams`;
    expect((await ctx.anonymous.get(url)).status).toBe(401);
    const long = await ctx.as(owner).get(`${url}?title=${"t".repeat(257)}`);
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe('query parameter "title" must be at most 256 characters long.');
    expect((await ctx.as(members.guest).get(url)).status).toBe(403);
    expect((await ctx.as(outsider).get(url)).status).toBe(404);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/members/${outsider.id}/teams`)).status).toBe(404);
  });
});
