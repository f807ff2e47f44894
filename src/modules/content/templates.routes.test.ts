import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { contractClient } from "../../../test/helpers/contract.js";
import { createOrgWithRoles } from "../../../test/helpers/factories.js";
import { createSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe("POST /v1/spaces/{spaceId}/content/template", () => {
  it("adds the template's pages to the content, searchable", async () => {
    const { owner, org } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id);
    const res = await ctx.as(owner).post(`/v1/spaces/${space.id}/content/template`, { id: "getting-started" });
    expect(res.status).toBe(204);
    const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body;
    expect(content.pages.map((p: { title: string }) => p.title)).toEqual(["Welcome", "Getting started"]);
    expect(content.parents).toEqual([space.revision]);
    await ctx.as(owner).post(`/v1/spaces/${space.id}/content/template`, { id: "faq" });
    const after = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body;
    expect(after.pages.map((p: { title: string }) => p.title)).toEqual(["Welcome", "Getting started", "FAQ"]);
    await ctx.worker.drain();
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=quickstart`)).body.count).toBeGreaterThan(0);
  });

  it("refuses unknown templates and parameters with the list of what exists, readers with 403", async () => {
    const { owner, org, members, outsider } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id);
    const unknown = await ctx.as(owner).post(`/v1/spaces/${space.id}/content/template`, { id: "blog" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/api-reference, changelog, faq, getting-started/);
    const badParam = await ctx
      .as(owner)
      .post(`/v1/spaces/${space.id}/content/template`, { id: "faq", params: { contentRefs: { spec: { kind: "openapi", spec: "x" } } } });
    expect(badParam.body.error.message).toMatch(/takes none/);
    expect((await ctx.as(members.read).post(`/v1/spaces/${space.id}/content/template`, { id: "faq" })).status).toBe(403);
    expect((await ctx.as(outsider).post(`/v1/spaces/${space.id}/content/template`, { id: "faq" })).status).toBe(404);
    expect((await ctx.anonymous.post(`/v1/spaces/${space.id}/content/template`, { id: "faq" })).status).toBe(401);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body.pages).toEqual([]);
  });

  it("works through @gitbook/api (204 per the seeds)", async () => {
    const { owner, org } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id);
    const client = contractClient(await ctx.listen(), owner.token);
    const res = await client.spaces.applyTemplateToSpace(space.id, {
      id: "api-reference",
      params: { contentRefs: { spec: { kind: "openapi", spec: "petstore" } } },
    } as never);
    expect(res.status).toBe(204);
  });
});
