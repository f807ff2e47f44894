import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, TEST_PUBLIC_URL, type TestContext } from "../../../test/helpers/app.js";
import { addSection, createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, createSpace } from "../../../test/helpers/spaces.factories.js";
import { verifyPreview } from "./preview.model.js";

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
  return { ...base, site, url: `/v1/orgs/${base.org.id}/sites/${site.id}`, otherSite };
}

const jsonSchema = {
  type: "object",
  properties: {
    isBetaUser: { type: "boolean", description: "Beta program member" },
    unsigned: {
      type: "object",
      description: "Unsigned claims of the site visitor.",
      properties: { language: { type: "string", description: "Language", enum: ["fr"] } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

describe("adaptive schema", () => {
  it("404 until set; PUT stores a valid schema; template conditions come from it", async () => {
    const { owner, members, url } = await scenario();
    const none = await ctx.as(owner).get(`${url}/adaptive-schema`);
    expect(none.status).toBe(404);
    expect(none.body.error.message).toMatch(/has no adaptive schema/);
    expect((await ctx.as(owner).get(`${url}/adaptive-schema/template-conditions`)).body).toEqual({ items: [] });
    const put = await ctx.as(owner).put(`${url}/adaptive-schema`, { jsonSchema });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual({ object: "site-adaptive-schema", jsonSchema, updatedAt: expect.any(String) });
    expect((await ctx.as(members.read).get(`${url}/adaptive-schema`)).body.jsonSchema).toEqual(jsonSchema);
    const conditions = await ctx.as(members.read).get(`${url}/adaptive-schema/template-conditions`);
    expect(conditions.body.items).toEqual([
      { description: "Beta program member: isBetaUser is true", condition: "visitor.claims.isBetaUser === true" },
      { description: 'Language: language is "fr"', condition: 'visitor.claims.unsigned.language === "fr"' },
    ]);
  });

  it("refuses a schema of another shape with the reason, and keeps the stored one", async () => {
    const { owner, members, outsider, url, org, otherSite } = await scenario();
    await ctx.as(owner).put(`${url}/adaptive-schema`, { jsonSchema });
    const bad = await ctx.as(owner).put(`${url}/adaptive-schema`, {
      jsonSchema: { ...jsonSchema, properties: { plan: { type: "string" } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe("body.jsonSchema.properties.plan.description is required and must be a string.");
    const missingSchema = await ctx.as(owner).put(`${url}/adaptive-schema`, {});
    expect(missingSchema.status).toBe(400);
    expect(missingSchema.body.error.message).toMatch(/jsonSchema/);
    expect((await ctx.as(owner).get(`${url}/adaptive-schema`)).body.jsonSchema).toEqual(jsonSchema);
    expect((await ctx.as(members.edit).put(`${url}/adaptive-schema`, { jsonSchema })).status).toBe(403);
    expect((await ctx.as(outsider).get(`${url}/adaptive-schema`)).status).toBe(404);
    expect((await ctx.anonymous.get(`${url}/adaptive-schema`)).status).toBe(401);
    expect((await ctx.as(owner).put(`/v1/orgs/${org.id}/sites/${otherSite.id}/adaptive-schema`, { jsonSchema })).status).toBe(404);
  });
});

describe("publishing auth", () => {
  it("shows the signing key to admins and the creator only; it is sealed at rest", async () => {
    const { owner, members, outsider, url, site } = await scenario();
    const res = await ctx.as(owner).get(`${url}/publishing/auth`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: "publishing-auth", backend: "custom", privateKey: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect((await ctx.as(members.admin).get(`${url}/publishing/auth`)).body.privateKey).toBe(res.body.privateKey);
    const refused = await ctx.as(members.create).get(`${url}/publishing/auth`);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      "Only organization admins and the site's creator can see or change its visitor authentication.",
    );
    expect((await ctx.as(members.read).get(`${url}/publishing/auth`)).status).toBe(403);
    expect((await ctx.as(outsider).get(`${url}/publishing/auth`)).status).toBe(404);
    const row = await ctx.db.selectFrom("sitePublishingAuth").selectAll().where("siteId", "=", site.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(res.body.privateKey);
  });

  it("sets the fallback URL, refuses the integration backend, and regenerates the key", async () => {
    const { owner, members, url } = await scenario();
    const before = (await ctx.as(owner).get(`${url}/publishing/auth`)).body;
    const patched = await ctx.as(owner).patch(`${url}/publishing/auth`, { backend: "custom", fallbackURL: "https://example.com/login" });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...before, fallbackURL: "https://example.com/login" });
    const integration = await ctx.as(owner).patch(`${url}/publishing/auth`, { backend: "integration" });
    expect(integration.status).toBe(400);
    expect(integration.body.error.message).toMatch(/^body\.backend "integration" is not available/);
    const badUrl = await ctx.as(owner).patch(`${url}/publishing/auth`, { backend: "custom", fallbackURL: "not a url" });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error.message).toBe("body.fallbackURL must be a valid uri.");
    expect((await ctx.as(members.create).post(`${url}/publishing/auth/regenerate`)).status).toBe(403);
    const regenerated = await ctx.as(owner).post(`${url}/publishing/auth/regenerate`);
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.privateKey).not.toBe(before.privateKey);
    expect(regenerated.body.fallbackURL).toBe("https://example.com/login");
    const cleared = await ctx.as(owner).patch(`${url}/publishing/auth`, { backend: "custom", fallbackURL: null });
    expect(cleared.body).toEqual({ object: "publishing-auth", backend: "custom", privateKey: regenerated.body.privateKey });
  });
});

describe("publishing preview", () => {
  it("answers a signed address valid one hour, for the root or a site space", async () => {
    const { owner, members, url, site, org } = await scenario();
    const root = await ctx.as(owner).get(`${url}/publishing/preview`);
    expect(root.status).toBe(200);
    const rootUrl = new URL(root.body.url);
    expect(`${rootUrl.origin}${rootUrl.pathname}`).toBe(`${TEST_PUBLIC_URL}/s/${site.basename}`);
    expect(verifyPreview(ctx.deps.secret, site.id, rootUrl.searchParams)).toBe(true);
    expect(verifyPreview(ctx.deps.secret, "another", rootUrl.searchParams)).toBe(false);
    expect(verifyPreview(ctx.deps.secret, site.id, rootUrl.searchParams, Date.now() + 2 * 60 * 60 * 1000)).toBe(false);

    const api = await createSpace(ctx, owner, org.id, { title: "API" });
    const section = await addSection(ctx, owner, org.id, site.id, { spaceId: api.id, title: "Reference" });
    const variant = (await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: api.id, sectionId: section.id })).body;
    const res = await ctx.as(owner).get(`${url}/publishing/preview?siteSpace=${variant.id}&claims=(plan:enterprise)`);
    const target = new URL(res.body.url);
    expect(target.pathname).toBe(`/s/${site.basename}/reference/${variant.path}`);
    expect(target.searchParams.get("claims")).toBe("(plan:enterprise)");
    expect(verifyPreview(ctx.deps.secret, site.id, target.searchParams)).toBe(true);
    target.searchParams.set("claims", "(plan:free)");
    expect(verifyPreview(ctx.deps.secret, site.id, target.searchParams)).toBe(false);

    const bad = await ctx.as(owner).get(`${url}/publishing/preview?siteSpace=nope`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('query parameter "siteSpace" names site space "nope", which is not in this site.');
    expect((await ctx.as(members.read).get(`${url}/publishing/preview`)).status).toBe(403);
  });
});
