import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { responseErrors0202 } from "../../../test/helpers/contract-0202.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, createSpace, createTeam, setDefaultLevel } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function scenario() {
  const base = await createOrgWithSpace(ctx, { title: "Guide" });
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Docs", spaces: [base.space.id] });
  const other = await createOrgWithSpace(ctx);
  const otherSite = await createSite(ctx, other.owner, other.org.id);
  const otherTeam = await createTeam(ctx, other.org.id, [other.owner]);
  const url = `/v1/orgs/${base.org.id}/sites/${site.id}`;
  return { ...base, site, url, other, otherSite, otherTeam };
}

describe("site permissions (0.202)", () => {
  it("a grant of edit lets a reader change the site, is listed in 0.202's shape, and its removal takes it back", async () => {
    const { owner, members, url } = await scenario();
    const reader = members.read;
    expect((await ctx.as(reader).patch(url, { title: "Mine" })).status).toBe(403);
    expect((await ctx.as(reader).get(url)).body.permissions).toMatchObject({ view: true, edit: false });

    const set = await ctx.as(owner).patch(`${url}/permissions/users/${reader.id}`, { role: "edit" });
    expect(set.status, JSON.stringify(set.body)).toBe(204);
    expect((await ctx.as(reader).get(url)).body.permissions).toMatchObject({ view: true, edit: true, publish: true, admin: false });
    const renamed = await ctx.as(reader).patch(url, { title: "Mine" });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.title).toBe("Mine");
    // Edit is not admin: no deleting the site, no managing who has access.
    expect((await ctx.as(reader).delete(url)).status).toBe(403);
    expect((await ctx.as(reader).patch(`${url}/permissions/users/${members.comment.id}`, { role: "read" })).status).toBe(403);

    const list = await ctx.as(owner).get(`${url}/permissions/users`);
    expect(list.status).toBe(200);
    expect(responseErrors0202("listUserPermissionsInSite", 200, list.body)).toEqual([]);
    expect(list.body.items).toEqual([{ permission: "edit", user: expect.objectContaining({ id: reader.id, object: "user" }) }]);
    // Members who see the site may read the list.
    expect((await ctx.as(members.comment).get(`${url}/permissions/users`)).status).toBe(200);

    // Setting again replaces the level; no role removes the grant.
    expect((await ctx.as(owner).patch(`${url}/permissions/users/${reader.id}`, { role: "read" })).status).toBe(204);
    expect((await ctx.as(owner).get(`${url}/permissions/users`)).body.items).toMatchObject([{ permission: "read" }]);
    expect((await ctx.as(reader).patch(url, { title: "Again" })).status).toBe(403);
    expect((await ctx.as(owner).patch(`${url}/permissions/users/${reader.id}`, {})).status).toBe(204);
    expect((await ctx.as(owner).get(`${url}/permissions/users`)).body).toEqual({ items: [], count: 0 });
  });

  it("a team's grant reaches its members: admin lets them delete the site and manage its grants", async () => {
    const { owner, members, org, url, site } = await scenario();
    const team = await createTeam(ctx, org.id, [members.comment]);
    const set = await ctx.as(owner).patch(`${url}/permissions/teams/${team.id}`, { role: "admin" });
    expect(set.status, JSON.stringify(set.body)).toBe(204);
    const list = await ctx.as(owner).get(`${url}/permissions/teams`);
    expect(responseErrors0202("listTeamPermissionsInSite", 200, list.body)).toEqual([]);
    expect(list.body.items).toEqual([{ permission: "admin", team: expect.objectContaining({ id: team.id }) }]);

    expect((await ctx.as(members.comment).get(url)).body.permissions).toMatchObject({ edit: true, admin: true });
    expect((await ctx.as(members.comment).patch(`${url}/permissions/users/${members.read.id}`, { role: "edit" })).status).toBe(204);
    // Other members of the organization are not in the team.
    expect((await ctx.as(members.review).patch(url, { title: "No" })).status).toBe(403);
    expect((await ctx.as(members.comment).delete(url)).status).toBe(204);
    expect(await ctx.db.selectFrom("grants").select("principalId").where("targetId", "=", site.id).execute()).toEqual([]);
  });

  it("a guest sees only the sites granted to them", async () => {
    const { owner, members, org, url, site } = await scenario();
    const second = await createSite(ctx, owner, org.id, { title: "Other" });
    expect((await ctx.as(members.guest).get(url)).status).toBe(404);
    expect((await ctx.as(members.guest).get(`/v1/orgs/${org.id}/sites`)).body).toEqual({ items: [], count: 0 });

    expect((await ctx.as(owner).patch(`${url}/permissions/users/${members.guest.id}`, { role: "read" })).status).toBe(204);
    expect((await ctx.as(members.guest).get(url)).status).toBe(200);
    const listed = await ctx.as(members.guest).get(`/v1/orgs/${org.id}/sites`);
    expect(listed.body.items.map((s: { id: string }) => s.id)).toEqual([site.id]);
    expect(listed.body.items.map((s: { id: string }) => s.id)).not.toContain(second.id);
    expect((await ctx.as(members.guest).patch(url, { title: "No" })).status).toBe(403);
    // Guests cannot list members, so not who has access either.
    expect((await ctx.as(members.guest).get(`${url}/permissions/users`)).status).toBe(403);
  });

  it("a granted editor still cannot publish spaces they cannot read", async () => {
    const { owner, members, org, url } = await scenario();
    const secret = await createSpace(ctx, owner, org.id, { title: "Secret" });
    await setDefaultLevel(ctx, owner, { space: secret.id }, null);
    expect((await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: secret.id })).status).toBe(201);
    expect((await ctx.as(owner).patch(`${url}/permissions/users/${members.read.id}`, { role: "admin" })).status).toBe(204);
    const publish = await ctx.as(members.read).post(`${url}/publish`);
    expect(publish.status).toBe(403);
    expect(publish.body.error.message).toContain("cannot read");
  });

  it("refuses who may not manage grants, other organizations' ids and bad bodies", async () => {
    const { owner, members, outsider, org, url, other, otherSite, otherTeam } = await scenario();
    const target = `${url}/permissions/users/${members.read.id}`;
    for (const who of [members.create, members.edit, members.read]) {
      const res = await ctx.as(who).patch(target, { role: "admin" });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toMatch(/can change who has access/);
    }
    expect((await ctx.as(members.guest).patch(target, { role: "admin" })).status).toBe(404);
    expect((await ctx.as(outsider).patch(target, { role: "admin" })).status).toBe(404);
    expect((await ctx.as(outsider).get(`${url}/permissions/users`)).status).toBe(404);
    expect((await ctx.anonymous.get(`${url}/permissions/users`)).status).toBe(401);
    // The site of another organization, through this one's address, and the other way round.
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/sites/${otherSite.id}/permissions/users`)).status).toBe(404);
    expect(
      (await ctx.as(owner).patch(`/v1/orgs/${other.org.id}/sites/${otherSite.id}/permissions/users/${owner.id}`, { role: "read" })).status,
    ).toBe(404);
    // Principals of another organization.
    const foreignUser = await ctx.as(owner).patch(`${url}/permissions/users/${outsider.id}`, { role: "read" });
    expect(foreignUser.status).toBe(404);
    expect(foreignUser.body.error.message).toBe(`No member with id "${outsider.id}" in this organization.`);
    const foreignTeam = await ctx.as(owner).patch(`${url}/permissions/teams/${otherTeam.id}`, { role: "read" });
    expect(foreignTeam.status).toBe(404);
    expect(foreignTeam.body.error.message).toBe(`No team with id "${otherTeam.id}" in this organization.`);
    for (const body of [{ role: "owner" }, { role: 3 }, { role: "" }]) {
      const res = await ctx.as(owner).patch(target, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message).toMatch(/body.role/);
    }
    // Nothing was written by any refusal.
    expect(await ctx.db.selectFrom("grants").selectAll().where("targetType", "=", "site").where("orgId", "=", org.id).execute()).toEqual(
      [],
    );
  });
});
