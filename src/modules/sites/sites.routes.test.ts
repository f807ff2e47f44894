import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, TEST_PUBLIC_URL, type TestContext } from "../../../test/helpers/app.js";
import { createOrgWithRoles } from "../../../test/helpers/factories.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, createSpace, grant } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function scenario() {
  const base = await createOrgWithSpace(ctx, { title: "User Guide" });
  const other = await createOrgWithSpace(ctx, { title: "Theirs" });
  const otherSite = await createSite(ctx, other.owner, other.org.id, { title: "Their site" });
  return { ...base, other, otherSite };
}

describe("POST /v1/orgs/{organizationId}/sites", () => {
  it("requires a token", async () => {
    const { org } = await scenario();
    expect((await ctx.anonymous.post(`/v1/orgs/${org.id}/sites`, {})).status).toBe(401);
  });

  it("creates an unpublished site whose spaces become site spaces", async () => {
    const { org, owner, space } = await scenario();
    const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/sites`, { title: "Product Docs", spaces: [space.id] });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${TEST_PUBLIC_URL}/v1/orgs/${org.id}/sites/${res.body.id}`);
    expect(res.body).toMatchObject({
      object: "site",
      type: "basic",
      title: "Product Docs",
      basename: expect.stringMatching(/^product-docs(-\d+)?$/),
      visibility: "public",
      published: false,
      siteSpaces: 1,
      adaptiveContent: { enabled: false },
      agentsContext: "included",
      urls: { location: res.headers.location, app: `${TEST_PUBLIC_URL}/app/o/${org.id}/sites/${res.body.id}` },
      permissions: { view: true, edit: true, publish: true, manageShareLinks: true, admin: true },
    });
    expect(res.body.urls.published).toBeUndefined();
    const rows = await ctx.db.selectFrom("siteSpaces").select(["spaceId", "path", "sectionId"]).where("siteId", "=", res.body.id).execute();
    expect(rows).toEqual([{ spaceId: space.id, path: "user-guide", sectionId: null }]);
  });

  it("takes its title from the first space and a free basename", async () => {
    const { org, owner, space } = await scenario();
    const first = await createSite(ctx, owner, org.id, { spaces: [space.id] });
    const second = await createSite(ctx, owner, org.id, { spaces: [space.id] });
    expect(first.title).toBe("User Guide");
    expect(second.basename).not.toBe(first.basename);
  });

  it("refuses bad input with a precise 400 and writes nothing", async () => {
    const { org, owner, other } = await scenario();
    const before = await ctx.db.selectFrom("sites").select("id").where("orgId", "=", org.id).execute();
    const foreign = await ctx.as(owner).post(`/v1/orgs/${org.id}/sites`, { spaces: [other.space.id] });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toBe(`body.spaces[0] names space "${other.space.id}", which does not exist in this organization.`);
    const short = await ctx.as(owner).post(`/v1/orgs/${org.id}/sites`, { title: "x" });
    expect(short.status).toBe(400);
    expect(short.body.error.message).toBe("body.title must be at least 2 characters long.");
    const badType = await ctx.as(owner).post(`/v1/orgs/${org.id}/sites`, { type: "gold" });
    expect(badType.status).toBe(400);
    expect(badType.body.error.message).toMatch(/^body\.type must be one of: "basic"/);
    expect(await ctx.db.selectFrom("sites").select("id").where("orgId", "=", org.id).execute()).toEqual(before);
  });

  it("needs the create role, and the edit level on each space", async () => {
    const { org, owner, members, outsider, space } = await scenario();
    const res = await ctx.as(members.edit).post(`/v1/orgs/${org.id}/sites`, {});
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe("Only members with the create role or higher can create sites.");
    expect((await ctx.as(outsider).post(`/v1/orgs/${org.id}/sites`, {})).status).toBe(404);
    // A creator who may only read the space cannot publish it.
    const readOnly = await createSpace(ctx, owner, org.id, { title: "Private" });
    await ctx.as(owner).patch(`/v1/spaces/${readOnly.id}`, { defaultLevel: null });
    await grant(ctx, owner, { space: readOnly.id }, "read", { users: [members.create.id] });
    const refused = await ctx.as(members.create).post(`/v1/orgs/${org.id}/sites`, { spaces: [readOnly.id] });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(`You need at least the edit level on space "${readOnly.id}" to show it on a site.`);
    expect((await ctx.as(members.create).post(`/v1/orgs/${org.id}/sites`, { spaces: [space.id] })).status).toBe(201);
  });
});

describe("GET /v1/orgs/{organizationId}/sites", () => {
  it("lists with filters by space, title, published and type, and pages", async () => {
    const { org, owner, space } = await scenario();
    const a = await createSite(ctx, owner, org.id, { title: "Alpha Docs", spaces: [space.id] });
    const b = await createSite(ctx, owner, org.id, { title: "Beta Guide", type: "premium" });
    await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${b.id}/publish`);
    const ids = async (query: string) => {
      const res = await ctx.as(owner).get(`/v1/orgs/${org.id}/sites${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.items.map((s: { id: string }) => s.id);
    };
    expect(await ids("")).toEqual([a.id, b.id]);
    expect(await ids(`?space=${space.id}`)).toEqual([a.id]);
    expect(await ids("?title=GUIDE")).toEqual([b.id]);
    expect(await ids("?published=true")).toEqual([b.id]);
    expect(await ids("?published=false")).toEqual([a.id]);
    expect(await ids("?type=premium")).toEqual([b.id]);
    const first = await ctx.as(owner).get(`/v1/orgs/${org.id}/sites?limit=1`);
    expect(first.body).toMatchObject({ count: 2, items: [{ id: a.id }], next: { page: expect.any(String) } });
    const second = await ctx.as(owner).get(`/v1/orgs/${org.id}/sites?limit=1&page=${first.body.next.page}`);
    expect(second.body.items.map((s: { id: string }) => s.id)).toEqual([b.id]);
    expect(second.body.next).toBeUndefined();
  });

  it("answers 401, 404 to outsiders, nothing to guests, and permissions per role", async () => {
    const { org, owner, members, outsider } = await scenario();
    await createSite(ctx, owner, org.id, { title: "Docs" });
    expect((await ctx.anonymous.get(`/v1/orgs/${org.id}/sites`)).status).toBe(401);
    expect((await ctx.as(outsider).get(`/v1/orgs/${org.id}/sites`)).status).toBe(404);
    expect((await ctx.as(members.guest).get(`/v1/orgs/${org.id}/sites`)).body).toEqual({ items: [], count: 0 });
    const permissions = async (user: typeof owner) => (await ctx.as(user).get(`/v1/orgs/${org.id}/sites`)).body.items[0].permissions;
    expect(await permissions(members.admin)).toEqual({ view: true, edit: true, publish: true, manageShareLinks: true, admin: true });
    expect(await permissions(members.create)).toEqual({ view: true, edit: true, publish: true, manageShareLinks: true, admin: false });
    expect(await permissions(members.edit)).toEqual({ view: true, edit: false, publish: false, manageShareLinks: false, admin: false });
    expect(await permissions(members.read)).toEqual({ view: true, edit: false, publish: false, manageShareLinks: false, admin: false });
  });
});

describe("GET, PATCH and DELETE /v1/orgs/{organizationId}/sites/{siteId}", () => {
  it("reads a site; another organization's site id and outsiders get 404", async () => {
    const { org, owner, members, outsider, otherSite } = await scenario();
    const site = await createSite(ctx, owner, org.id);
    expect((await ctx.anonymous.get(`/v1/orgs/${org.id}/sites/${site.id}`)).status).toBe(401);
    expect((await ctx.as(members.read).get(`/v1/orgs/${org.id}/sites/${site.id}`)).body).toMatchObject({ id: site.id });
    expect((await ctx.as(outsider).get(`/v1/orgs/${org.id}/sites/${site.id}`)).status).toBe(404);
    expect((await ctx.as(members.guest).get(`/v1/orgs/${org.id}/sites/${site.id}`)).status).toBe(404);
    const foreign = await ctx.as(owner).get(`/v1/orgs/${org.id}/sites/${otherSite.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).toBe(`No site with id "${otherSite.id}" in this organization.`);
  });

  it("changes settings, and refuses bad ones with nothing written", async () => {
    const { org, owner, members, otherSite } = await scenario();
    const site = await createSite(ctx, owner, org.id, { title: "Docs" });
    const url = `/v1/orgs/${org.id}/sites/${site.id}`;
    const res = await ctx.as(owner).patch(url, {
      title: "Developer Docs",
      visibility: "share-link",
      basename: `dev-docs-${site.id.toLowerCase()}`,
      adaptiveContent: { enabled: true },
      agentsContext: "excluded",
      proxy: "example.com/docs",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      title: "Developer Docs",
      visibility: "share-link",
      basename: `dev-docs-${site.id.toLowerCase()}`,
      adaptiveContent: { enabled: true },
      agentsContext: "excluded",
      proxy: { origin: "example.com/docs", target: `${TEST_PUBLIC_URL}/s/dev-docs-${site.id.toLowerCase()}` },
    });
    expect((await ctx.as(owner).patch(url, { proxy: null })).body.proxy).toBeUndefined();

    const taken = await ctx.as(owner).patch(url, { basename: otherSite.basename, title: "Changed" });
    expect(taken.status).toBe(409);
    expect(taken.body.error.message).toBe(
      `body.basename "${otherSite.basename}" is already used by another site on this Quire; choose another.`,
    );
    const badBasename = await ctx.as(owner).patch(url, { basename: "Not Valid" });
    expect(badBasename.status).toBe(400);
    expect(badBasename.body.error.message).toMatch(/^body\.basename "Not Valid" is not valid/);
    const badProxy = await ctx.as(owner).patch(url, { proxy: "https://example.com/docs" });
    expect(badProxy.status).toBe(400);
    expect(badProxy.body.error.message).toMatch(/^body\.proxy/);
    const badDefault = await ctx.as(owner).patch(url, { defaultSiteSpace: "nope", title: "Changed" });
    expect(badDefault.status).toBe(400);
    expect(badDefault.body.error.message).toBe('body.defaultSiteSpace names site space "nope", which is not a site space of this site.');
    const badSection = await ctx.as(owner).patch(url, { defaultSiteSection: "nope" });
    expect(badSection.status).toBe(400);
    expect(badSection.body.error.message).toBe('body.defaultSiteSection names section "nope", which is not a section of this site.');
    expect((await ctx.as(owner).get(url)).body.title).toBe("Developer Docs");

    const forbidden = await ctx.as(members.edit).patch(url, { title: "Mine" });
    expect(forbidden.status).toBe(403);
    expect((await ctx.as(owner).patch(`/v1/orgs/${org.id}/sites/${otherSite.id}`, { title: "Mine" })).status).toBe(404);
  });

  it("deletes a site for admins and its creator only; 204 again afterwards", async () => {
    const { org, owner, members, space } = await scenario();
    const site = await createSite(ctx, members.create, org.id, { spaces: [space.id] });
    const url = `/v1/orgs/${org.id}/sites/${site.id}`;
    const other = await createSite(ctx, owner, org.id);
    const refused = await ctx.as(members.create).delete(`/v1/orgs/${org.id}/sites/${other.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      "Only organization admins, members with the admin level on this site and the site's creator can delete it.",
    );
    expect((await ctx.as(members.guest).delete(url)).status).toBe(204);
    expect((await ctx.as(owner).get(url)).status).toBe(200);
    expect((await ctx.as(members.create).delete(url)).status).toBe(204);
    expect((await ctx.as(owner).get(url)).status).toBe(404);
    expect((await ctx.as(owner).delete(url)).status).toBe(204);
    // The space stays.
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}`)).status).toBe(200);
  });
});

describe("publishing", () => {
  it("publishes and unpublishes; urls.published exists only while published", async () => {
    const { org, owner, members, space } = await scenario();
    const site = await createSite(ctx, owner, org.id, { spaces: [space.id] });
    const url = `/v1/orgs/${org.id}/sites/${site.id}`;
    expect((await ctx.as(members.edit).post(`${url}/publish`)).status).toBe(403);
    const published = await ctx.as(owner).post(`${url}/publish`);
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ published: true, urls: { published: `${TEST_PUBLIC_URL}/s/${site.basename}` } });
    const unpublished = await ctx.as(owner).post(`${url}/unpublish`);
    expect(unpublished.body.published).toBe(false);
    expect(unpublished.body.urls.published).toBeUndefined();
  });

  it("GET published: 404 until published, then the site and its structure", async () => {
    const { org, owner, members, outsider, space } = await scenario();
    const site = await createSite(ctx, owner, org.id, { spaces: [space.id] });
    const url = `/v1/orgs/${org.id}/sites/${site.id}`;
    expect((await ctx.as(owner).get(`${url}/published`)).status).toBe(404);
    await ctx.as(owner).post(`${url}/publish`);
    const res = await ctx.as(members.read).get(`${url}/published`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: "published-content-site",
      site: { id: site.id, published: true },
      structure: {
        type: "siteSpaces",
        structure: [
          { object: "site-space", default: true, space: { id: space.id }, urls: { published: `${TEST_PUBLIC_URL}/s/${site.basename}` } },
        ],
      },
      scripts: [],
    });
    expect((await ctx.as(outsider).get(`${url}/published`)).status).toBe(404);
    const badKey = await ctx.as(owner).get(`${url}/published?shareKey=nope`);
    expect(badKey.status).toBe(404);
    expect(badKey.body.error.message).toBe(`No active share link of site "${site.id}" has this shareKey.`);
  });
});

describe("roles", () => {
  it("gives readers a read-only view", async () => {
    const { org, members } = await createOrgWithRoles(ctx);
    const site = await createSite(ctx, members.admin, org.id);
    const res = await ctx.as(members.review).get(`/v1/orgs/${org.id}/sites/${site.id}`);
    expect(res.body.permissions).toEqual({ view: true, edit: false, publish: false, manageShareLinks: false, admin: false });
  });
});

describe("concurrent creation", () => {
  it("gives sites created at once with one title distinct basenames", async () => {
    const { org, owner } = await createOrgWithSpace(ctx);
    const title = `Same ${org.id.slice(0, 6)}`;
    const results = await Promise.all(Array.from({ length: 8 }, () => ctx.as(owner).post(`/v1/orgs/${org.id}/sites`, { title })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.basename)).size).toBe(8);
  });
});
