import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../test/helpers/app.js";
import { createOrgWithRoles } from "../../test/helpers/factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe("NUL characters in input", () => {
  it("are refused with 400 naming the field, wherever they are, on both engines", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const as = ctx.as(owner);
    const cases = [
      [await as.get(`/v1/orgs/${org.id}/members?search=a%00b`), 'query parameter "search"'],
      [await as.get(`/v1/orgs/${org.id}/members/a%00b`), 'path parameter "userId"'],
      [await as.patch(`/v1/orgs/${org.id}`, { title: "a\u0000b" }), "body.title"],
      [await as.post(`/v1/orgs/${org.id}/invites`, { emails: [{ email: "x\u0000@y.test", role: null }] }), "body.emails.0.email"],
      [await as.put(`/v1/orgs/${org.id}/teams`, { title: "T", members: [], extra: { "k\u0000": 1 } }), "body.extra.k\u0000"],
    ] as const;
    for (const [res, field] of cases) {
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(`${field} must not contain the NUL character (\\u0000).`);
    }
    expect((await as.get(`/v1/orgs/${org.id}/teams`)).body.count).toBe(0);
    expect((await as.get(`/v1/orgs/${org.id}`)).body.title).toBe("Test Org");
  });

  it("leave other text alone", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const res = await ctx.as(owner).put(`/v1/orgs/${org.id}/teams`, { title: "Ünïcödé \\u0000 literal" });
    expect(res.status).toBe(201);
    expect(res.body.title).toBe("Ünïcödé \\u0000 literal");
  });
});
