import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createOrgWithRoles, createUser } from "../../../test/helpers/factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe("GET /v1/user and /v1/users/{userId}", () => {
  it("shows the caller to themselves, and a user to people sharing an organization with them", async () => {
    const { owner, members } = await createOrgWithRoles(ctx);
    const me = await ctx.as(owner).get("/v1/user");
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ object: "user", id: owner.id, displayName: "Owner", email: owner.email });
    const colleague = await ctx.as(members.read).get(`/v1/users/${owner.id}`);
    expect(colleague.status).toBe(200);
    expect(colleague.body).toMatchObject({ object: "user", id: owner.id, displayName: "Owner" });
    expect((await ctx.as(members.guest).get(`/v1/users/${members.edit.id}`)).status).toBe(200);
  });

  it("answers 404 for a user who shares no organization with the caller, as for one that does not exist", async () => {
    const { owner, outsider } = await createOrgWithRoles(ctx);
    const hidden = await ctx.as(outsider).get(`/v1/users/${owner.id}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.message).toBe(`No user with id "${owner.id}".`);
    const missing = await ctx.as(outsider).get("/v1/users/nobody");
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe('No user with id "nobody".');
  });

  it("requires a token", async () => {
    const user = await createUser(ctx);
    expect((await ctx.anonymous.get(`/v1/users/${user.id}`)).status).toBe(401);
    expect((await ctx.anonymous.patch(`/v1/users/${user.id}`, { displayName: "X" })).status).toBe(401);
  });
});

describe("PATCH /v1/users/{userId}", () => {
  it("updates the caller's own name and photo, and clears the photo with null", async () => {
    const user = await createUser(ctx);
    const res = await ctx
      .as(user)
      .patch(`/v1/users/${user.id}`, { displayName: "Ada Lovelace", photoURL: "https://img.example.test/ada.png" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, displayName: "Ada Lovelace", photoURL: "https://img.example.test/ada.png" });
    expect((await ctx.as(user).get("/v1/user")).body.displayName).toBe("Ada Lovelace");
    const cleared = await ctx.as(user).patch(`/v1/users/${user.id}`, { photoURL: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.photoURL).toBeUndefined();
    expect(cleared.body.displayName).toBe("Ada Lovelace");
  });

  it("refuses someone else's profile: 403 to a colleague, 404 to an outsider, and nothing changes", async () => {
    const { owner, members, outsider } = await createOrgWithRoles(ctx);
    const colleague = await ctx.as(members.admin).patch(`/v1/users/${owner.id}`, { displayName: "Hijacked" });
    expect(colleague.status).toBe(403);
    expect(colleague.body.error.message).toBe("You can only update your own profile.");
    expect((await ctx.as(outsider).patch(`/v1/users/${owner.id}`, { displayName: "Hijacked" })).status).toBe(404);
    expect((await ctx.as(owner).get("/v1/user")).body.displayName).toBe("Owner");
  });

  it("answers precise 400s for an empty body, an empty or 65-character name and a photo that is not a URL", async () => {
    const user = await createUser(ctx, { displayName: "Before" });
    const cases: [unknown, RegExp][] = [
      [{}, /^The request body must set at least 1 property\.$/],
      [{ displayName: "" }, /displayName/],
      [{ displayName: "x".repeat(65) }, /displayName.*64/],
      [{ photoURL: "not a url" }, /photoURL/],
    ];
    for (const [body, message] of cases) {
      const res = await ctx.as(user).patch(`/v1/users/${user.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    expect((await ctx.as(user).get("/v1/user")).body.displayName).toBe("Before");
  });
});
