import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, TEST_PUBLIC_URL, type TestContext } from "../../../test/helpers/app.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function scenario() {
  const base = await createOrgWithSpace(ctx, { title: "Guide" });
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Private Docs", visibility: "share-link", spaces: [base.space.id] });
  const other = await createOrgWithSpace(ctx);
  const otherSite = await createSite(ctx, other.owner, other.org.id);
  const url = `/v1/orgs/${base.org.id}/sites/${site.id}`;
  return { ...base, site, url, otherSite, other };
}

describe("share links", () => {
  it("creates a link whose secret key (at least 128 bits) is in its URL and stored only hashed and sealed", async () => {
    const { owner, url, site } = await scenario();
    const res = await ctx.as(owner).post(`${url}/share-links`, { name: "Partners" });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${TEST_PUBLIC_URL}${url}/share-links/${res.body.id}`);
    expect(res.body).toMatchObject({ object: "share-link", name: "Partners", active: true, createdAt: expect.any(String) });
    const prefix = `${TEST_PUBLIC_URL}/s/${site.basename}/`;
    expect(res.body.urls.published.startsWith(prefix)).toBe(true);
    const key = res.body.urls.published.slice(prefix.length);
    // 32 base62 characters: 32 * log2(62) ≈ 190 bits.
    expect(key).toMatch(/^[0-9A-Za-z]{32}$/);
    const row = await ctx.db.selectFrom("siteShareLinks").selectAll().where("id", "=", res.body.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(key);
    const second = await ctx.as(owner).post(`${url}/share-links`, { name: "Press" });
    expect(second.body.urls.published).not.toBe(res.body.urls.published);
  });

  it("lists links; only callers who may manage them see their URLs", async () => {
    const { owner, members, outsider, url, org, otherSite } = await scenario();
    const link = (await ctx.as(owner).post(`${url}/share-links`, { name: "Partners" })).body;
    const asCreator = await ctx.as(members.create).get(`${url}/share-links`);
    expect(asCreator.body).toMatchObject({ count: 1, items: [{ id: link.id, urls: { published: link.urls.published } }] });
    const asReader = await ctx.as(members.read).get(`${url}/share-links`);
    expect(asReader.status).toBe(200);
    expect(asReader.body.items).toEqual([
      { object: "share-link", id: link.id, createdAt: link.createdAt, name: "Partners", active: true, urls: {} },
    ]);
    expect(asReader.text).not.toContain(link.urls.published.split("/").pop());
    expect((await ctx.as(members.guest).get(`${url}/share-links`)).status).toBe(404);
    expect((await ctx.as(outsider).get(`${url}/share-links`)).status).toBe(404);
    expect((await ctx.anonymous.get(`${url}/share-links`)).status).toBe(401);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/sites/${otherSite.id}/share-links`)).status).toBe(404);
  });

  it("refuses bad names and callers who may not manage links", async () => {
    const { owner, members, url } = await scenario();
    const long = await ctx.as(owner).post(`${url}/share-links`, { name: "x".repeat(51) });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe("body.name must be at most 50 characters long.");
    const missingName = await ctx.as(owner).post(`${url}/share-links`, {});
    expect(missingName.status).toBe(400);
    expect(missingName.body.error.message).toMatch(/name/);
    const forbidden = await ctx.as(members.edit).post(`${url}/share-links`, { name: "Mine" });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.message).toBe(
      "Only members with the create role, or the edit level on this site, can manage a site's share links.",
    );
    expect((await ctx.as(owner).get(`${url}/share-links`)).body.count).toBe(0);
  });

  it("renames, deactivates and deletes links; a revoked key no longer opens the site", async () => {
    const { owner, members, url } = await scenario();
    await ctx.as(owner).post(`${url}/publish`);
    const link = (await ctx.as(owner).post(`${url}/share-links`, { name: "Partners" })).body;
    const key = link.urls.published.split("/").pop();
    const published = await ctx.as(owner).get(`${url}/published?shareKey=${key}`);
    expect(published.status).toBe(200);
    expect(published.body.structure.structure[0].urls.published).toBe(link.urls.published);
    const structure = await ctx.as(owner).get(`${url}/structure?shareKey=${key}`);
    expect(structure.body.structure[0].urls.published).toBe(link.urls.published);

    const empty = await ctx.as(owner).patch(`${url}/share-links/${link.id}`, {});
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toBe("The request body must set at least 1 property.");
    expect((await ctx.as(members.edit).patch(`${url}/share-links/${link.id}`, { active: false })).status).toBe(403);
    const renamed = await ctx.as(owner).patch(`${url}/share-links/${link.id}`, { name: "Partners 2026", active: false });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "Partners 2026", active: false, urls: { published: link.urls.published } });
    expect((await ctx.as(owner).get(`${url}/published?shareKey=${key}`)).status).toBe(404);
    expect((await ctx.as(owner).get(`${url}/site-spaces?shareKey=${key}`)).status).toBe(404);
    expect((await ctx.as(owner).patch(`${url}/share-links/nope`, { active: true })).status).toBe(404);

    expect((await ctx.as(members.read).delete(`${url}/share-links/${link.id}`)).status).toBe(403);
    expect((await ctx.as(owner).delete(`${url}/share-links/${link.id}`)).status).toBe(204);
    expect((await ctx.as(owner).delete(`${url}/share-links/${link.id}`)).status).toBe(204);
    expect((await ctx.as(owner).get(`${url}/share-links`)).body.count).toBe(0);
  });

  it("a key of another site's link does not open this one", async () => {
    const { owner, url, org, space } = await scenario();
    const second = await createSite(ctx, owner, org.id, { spaces: [space.id] });
    const link = (await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${second.id}/share-links`, { name: "Other" })).body;
    await ctx.as(owner).post(`${url}/publish`);
    expect((await ctx.as(owner).get(`${url}/published?shareKey=${link.urls.published.split("/").pop()}`)).status).toBe(404);
  });
});
