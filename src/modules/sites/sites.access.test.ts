/**
 * Every site operation: 401 without a token, 404 for an outsider, and 404 for a site of another
 * organization addressed through the caller's own organization.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { addSection, createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe("every site operation", () => {
  it("answers 401 without a token and 404 to outsiders and for another organization's site", async () => {
    const { org, owner, outsider, space } = await createOrgWithSpace(ctx);
    const site = await createSite(ctx, owner, org.id, { spaces: [space.id] });
    const section = await addSection(ctx, owner, org.id, site.id, { spaceId: space.id });
    const group = (await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.id}/section-groups`, { title: "G" })).body;
    const link = (await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.id}/share-links`, { name: "L" })).body;
    const ss = section.siteSpaces[0]?.id ?? "";
    const mine = await createOrgWithSpace(ctx);
    const routes: [string, string, unknown?][] = [
      ["GET", ""],
      ["PATCH", "", { title: "New title" }],
      ["DELETE", ""],
      ["POST", "/publish"],
      ["POST", "/unpublish"],
      ["GET", "/published"],
      ["GET", "/structure"],
      ["PATCH", "/structure/sort", { item: { type: "site-section", id: section.id }, position: {} }],
      ["GET", "/site-spaces"],
      ["POST", "/site-spaces", { spaceId: space.id }],
      ["PATCH", `/site-spaces/${ss}`, { path: "p" }],
      ["DELETE", `/site-spaces/${ss}`],
      ["POST", `/site-spaces/${ss}/move`, {}],
      ["GET", "/sections"],
      ["POST", "/sections", { spaceId: space.id }],
      ["PATCH", `/sections/${section.id}`, { title: "Title" }],
      ["DELETE", `/sections/${section.id}`],
      ["POST", `/sections/${section.id}/move`, {}],
      ["GET", "/section-groups"],
      ["POST", "/section-groups", { title: "G" }],
      ["PATCH", `/section-groups/${group.id}`, { title: "G2" }],
      ["DELETE", `/section-groups/${group.id}`],
      ["POST", `/section-groups/${group.id}/sections`, { sectionId: section.id }],
      ["DELETE", `/section-groups/${group.id}/sections/${section.id}`],
      ["POST", `/section-groups/${group.id}/move`, {}],
      ["GET", "/share-links"],
      ["POST", "/share-links", { name: "L" }],
      ["PATCH", `/share-links/${link.id}`, { active: false }],
      ["DELETE", `/share-links/${link.id}`],
      ["GET", "/adaptive-schema"],
      ["PUT", "/adaptive-schema", { jsonSchema: { type: "object", properties: {}, additionalProperties: false } }],
      ["GET", "/adaptive-schema/template-conditions"],
      ["GET", "/publishing/auth"],
      ["PATCH", "/publishing/auth", { backend: "custom" }],
      ["POST", "/publishing/auth/regenerate"],
      ["GET", "/publishing/preview"],
    ];
    const send = (user: Parameters<TestContext["as"]>[0] | null, method: string, url: string, body: unknown) => {
      const requester = user === null ? ctx.anonymous : ctx.as(user);
      if (method === "GET") return requester.get(url);
      if (method === "DELETE") return requester.delete(url);
      if (method === "POST") return requester.post(url, body ?? {});
      if (method === "PUT") return requester.put(url, body);
      return requester.patch(url, body);
    };
    for (const [method, path, body] of routes) {
      const url = `/v1/orgs/${org.id}/sites/${site.id}${path}`;
      expect((await send(null, method, url, body)).status, `${method} ${path} anonymous`).toBe(401);
      expect((await send(outsider, method, url, body)).status, `${method} ${path} outsider`).toBe(404);
      const foreign = `/v1/orgs/${mine.org.id}/sites/${site.id}${path}`;
      const res = await send(mine.owner, method, foreign, body);
      // Deleting a site that is not there answers 204, as for one that does not exist.
      expect(res.status, `${method} ${path} through another organization`).toBe(method === "DELETE" && path === "" ? 204 : 404);
    }
    // Nothing was changed by any of them.
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/sites/${site.id}`)).body).toMatchObject({ title: site.title, published: false });
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/sites/${site.id}/share-links`)).body.items[0]).toMatchObject({ active: true });
  });
});
