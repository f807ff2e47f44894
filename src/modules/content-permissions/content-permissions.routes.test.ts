import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { addMemberToOrg, createOrgWithRoles, createUser } from "../../../test/helpers/factories.js";
import { createCollection, createSpace, createTeam, grant, snapshot } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** The same behaviour on spaces and on collections. */
for (const kind of ["space", "collection"] as const) {
  const setup = async () => {
    const fixture = await createOrgWithRoles(ctx);
    const { org, owner } = fixture;
    const target = kind === "space" ? await createSpace(ctx, owner, org.id) : await createCollection(ctx, owner, org.id);
    const base = `/v1/${kind === "space" ? "spaces" : "collections"}/${target.id}/permissions`;
    const ref = kind === "space" ? { space: target.id } : { collection: target.id };
    return { ...fixture, target, base, ref };
  };

  describe(`${kind} permissions`, () => {
    it("grants users and teams a level, lists them, changes and removes them", async () => {
      const { org, owner, members, base } = await setup();
      const team = await createTeam(ctx, org.id, [members.read, members.guest], { title: "Writers", owner: members.read });
      expect((await ctx.anonymous.post(base, { role: "edit", users: [members.guest.id] })).status).toBe(401);

      const invite = await ctx.as(owner).post(base, { role: "edit", users: [members.guest.id, members.comment.id] });
      expect(invite.status).toBe(204);
      expect((await ctx.as(owner).post(base, { role: "review", teams: [team.id] })).status).toBe(204);

      const users = await ctx.as(owner).get(`${base}/users`);
      expect(users.status).toBe(200);
      expect(users.body.count).toBe(2);
      // Granted in one request: same grant time, then by user id.
      const expected = [members.guest.id, members.comment.id].sort();
      expect(users.body.items.map((i: { permission: string; user: { id: string } }) => [i.user.id, i.permission])).toEqual(
        expected.map((id) => [id, "edit"]),
      );
      const guestItem = users.body.items.find((i: { user: { id: string } }) => i.user.id === members.guest.id);
      expect(guestItem.user).toMatchObject({
        object: "user",
        displayName: "Guest",
        urls: { location: `http://quire.test/v1/users/${members.guest.id}` },
      });
      const paged = await ctx.as(owner).get(`${base}/users?limit=1`);
      const rest = await ctx.as(owner).get(`${base}/users?limit=1&page=${paged.body.next.page}`);
      expect(rest.body.items.map((i: { user: { id: string } }) => i.user.id)).toEqual([expected[1]]);

      const teams = await ctx.as(members.read).get(`${base}/teams`);
      expect(teams.status).toBe(200);
      expect(teams.body.items).toEqual([
        {
          permission: "review",
          team: {
            object: "team",
            id: team.id,
            title: "Writers",
            members: 2,
            spaces: kind === "space" ? 1 : 0,
            createdAt: expect.any(String),
            permissions: { admin: true, view: true },
          },
        },
      ]);

      expect((await ctx.as(owner).patch(`${base}/users/${members.guest.id}`, { role: "read" })).status).toBe(204);
      expect((await ctx.as(owner).patch(`${base}/teams/${team.id}`, { role: "admin" })).status).toBe(204);
      const after = await ctx.as(owner).get(`${base}/users`);
      expect(after.body.items.find((i: { user: { id: string } }) => i.user.id === members.guest.id).permission).toBe("read");
      expect((await ctx.as(owner).get(`${base}/teams`)).body.items[0].permission).toBe("admin");

      expect((await ctx.as(owner).delete(`${base}/users/${members.guest.id}`)).status).toBe(204);
      expect((await ctx.as(owner).delete(`${base}/teams/${team.id}`)).status).toBe(204);
      // Already gone: still 204.
      expect((await ctx.as(owner).delete(`${base}/teams/${team.id}`)).status).toBe(204);
      expect((await ctx.as(owner).get(`${base}/teams`)).body).toEqual({ items: [], count: 0 });
      // A null role removes, like DELETE.
      expect((await ctx.as(owner).post(base, { role: null, users: [members.comment.id] })).status).toBe(204);
      expect((await ctx.as(owner).get(`${base}/users`)).body.count).toBe(0);
    });

    it("rejects ids outside the organization with 404 naming the id, and writes nothing", async () => {
      const { org, owner, members, base } = await setup();
      const other = await createOrgWithRoles(ctx);
      const foreignTeam = await createTeam(ctx, other.org.id, [other.owner]);
      const before = await snapshot(ctx, org.id);
      const user = await ctx.as(owner).post(base, { role: "read", users: [members.read.id, other.members.read.id] });
      expect(user.status).toBe(404);
      expect(user.body.error.message).toBe(`No member with id "${other.members.read.id}" in this organization.`);
      const team = await ctx.as(owner).post(base, { role: "read", teams: [foreignTeam.id] });
      expect(team.status).toBe(404);
      expect(team.body.error.message).toBe(`No team with id "${foreignTeam.id}" in this organization.`);
      expect(await snapshot(ctx, org.id)).toEqual(before);
      expect(await snapshot(ctx, other.org.id)).toMatchObject({ grants: [] });
    });

    it("validates the body with exact messages", async () => {
      const { owner, members, base } = await setup();
      const cases: [unknown, string][] = [
        [{ role: "edit" }, "Give body.users or body.teams: the ids of the users or teams whose access to set."],
        [{ users: [members.read.id] }, "body.role is required."],
        [
          { role: "owner", users: [members.read.id] },
          'body.role must be one of: "admin", "create", "review", "edit", "comment", "read", null.',
        ],
        [{ role: "read", users: [] }, "body.users must have at least 1 items."],
      ];
      for (const [body, message] of cases) {
        const res = await ctx.as(owner).post(base, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.message).toBe(message);
      }
      const patch = await ctx.as(owner).patch(`${base}/users/${members.read.id}`, {});
      expect(patch.body.error.message).toBe("body.role is required.");
      for (const list of ["users", "teams", "aggregate"]) {
        const res = await ctx.as(owner).get(`${base}/${list}?limit=5000`);
        expect(res.status).toBe(400);
        expect(res.body.error.message).toBe('query parameter "limit" must be at most 1000.');
      }
    });

    it("answers 404 to PATCH of a principal without a grant", async () => {
      const { owner, members, base, target } = await setup();
      const res = await ctx.as(owner).patch(`${base}/users/${members.read.id}`, { role: "edit" });
      expect(res.status).toBe(404);
      expect(res.body.error.message).toMatch(new RegExp(`^The user "${members.read.id}" has no permission on ${kind} "${target.id}"`));
      expect((await ctx.as(owner).patch(`${base}/teams/nope`, { role: "edit" })).status).toBe(404);
    });

    it("lets only admins of the object manage it: readers 403, outsiders and guests 404", async () => {
      const { org, owner, members, outsider, base, ref } = await setup();
      const before = await snapshot(ctx, org.id);
      for (const user of [members.create, members.read]) {
        const res = await ctx.as(user).post(base, { role: "admin", users: [user.id] });
        expect(res.status).toBe(403);
        expect(res.body.error.message).toMatch(/^Only admins of .* can manage who has access to it\.$/);
        expect((await ctx.as(user).delete(`${base}/users/${members.edit.id}`)).status).toBe(403);
      }
      for (const user of [members.guest, outsider]) {
        expect((await ctx.as(user).post(base, { role: "admin", users: [user.id] })).status).toBe(404);
        expect((await ctx.as(user).get(`${base}/users`)).status).toBe(404);
      }
      expect(await snapshot(ctx, org.id)).toEqual(before);
      // Members who see the object may read who has access; a guest with a grant may not.
      expect((await ctx.as(members.read).get(`${base}/users`)).status).toBe(200);
      await grant(ctx, owner, ref, "read", { users: [members.guest.id] });
      const guest = await ctx.as(members.guest).get(`${base}/aggregate`);
      expect(guest.status).toBe(403);
      expect(guest.body.error.message).toMatch(/^Guests cannot list who has access to/);
      // An admin grant makes a guest able to manage the object.
      await grant(ctx, owner, ref, "admin", { users: [members.guest.id] });
      expect((await ctx.as(members.guest).post(base, { role: "read", users: [members.edit.id] })).status).toBe(204);
    });

    it("aggregates everyone's effective level: defaults, admins, grants through teams and parent collections", async () => {
      const { org, owner, members, base, ref, target } = await setup();
      const team = await createTeam(ctx, org.id, [members.guest]);
      await grant(ctx, owner, ref, "comment", { teams: [team.id] });
      await grant(ctx, owner, ref, "create", { users: [members.read.id] });
      const levels = async (query = "") => {
        const res = await ctx.as(owner).get(`${base}/aggregate${query}`);
        expect(res.status).toBe(200);
        return Object.fromEntries(
          res.body.items.map((i: { permission: string; user: { displayName: string } }) => [i.user.displayName, i.permission]),
        );
      };
      expect(await levels()).toEqual({
        Owner: "admin",
        "Member admin": "admin",
        "Member create": "create",
        "Member review": "review",
        "Member edit": "edit",
        "Member comment": "comment",
        "Member read": "create",
        Guest: "comment",
      });
      expect(await levels("?role=create")).toEqual({ "Member create": "create", "Member read": "create" });
      const bad = await ctx.as(owner).get(`${base}/aggregate?role=guest`);
      expect(bad.body.error.message).toBe('query parameter "role" must be one of: "admin", "create", "review", "edit", "comment", "read".');

      // No default access: only admins and grants remain.
      await ctx.as(owner).patch(`/v1/${kind === "space" ? "spaces" : "collections"}/${target.id}`, { defaultLevel: null });
      expect(await levels()).toEqual({ Owner: "admin", "Member admin": "admin", "Member read": "create", Guest: "comment" });

      // A grant on a parent collection reaches the space inside it.
      if (kind === "space") {
        const parent = await createCollection(ctx, owner, org.id);
        const nested = await createSpace(ctx, owner, org.id, { parent: parent.id });
        const stranger = await createUser(ctx, { displayName: "Late guest" });
        await addMemberToOrg(ctx, org.id, stranger, null);
        await grant(ctx, owner, { collection: parent.id }, "review", { users: [stranger.id] });
        const res = await ctx.as(owner).get(`/v1/spaces/${nested.id}/permissions/aggregate?role=review`);
        expect(res.body.items.map((i: { user: { id: string } }) => i.user.id)).toEqual([members.review.id, stranger.id]);
      }
    });
  });
}

describe("every permission route", () => {
  it("answers 401 without a token, and a precise 400 for an id over 100 characters", async () => {
    const { owner } = await createOrgWithRoles(ctx);
    const long = "i".repeat(101);
    for (const prefix of ["spaces", "collections"]) {
      const routes: [string, string, unknown?][] = [
        ["POST", `/v1/${prefix}/ID/permissions`, { role: "read", users: ["u"] }],
        ["GET", `/v1/${prefix}/ID/permissions/users`],
        ["GET", `/v1/${prefix}/ID/permissions/teams`],
        ["GET", `/v1/${prefix}/ID/permissions/aggregate`],
        ["PATCH", `/v1/${prefix}/ID/permissions/users/u`, { role: "read" }],
        ["PATCH", `/v1/${prefix}/ID/permissions/teams/t`, { role: "read" }],
        ["DELETE", `/v1/${prefix}/ID/permissions/users/u`],
        ["DELETE", `/v1/${prefix}/ID/permissions/teams/t`],
      ];
      for (const [method, path, body] of routes) {
        const send = (requester: typeof ctx.anonymous, url: string) =>
          method === "GET"
            ? requester.get(url)
            : method === "DELETE"
              ? requester.delete(url)
              : method === "POST"
                ? requester.post(url, body)
                : requester.patch(url, body);
        expect((await send(ctx.anonymous, path.replace("ID", "x"))).status, `${method} ${path}`).toBe(401);
        const res = await send(ctx.as(owner), path.replace("ID", long));
        expect(res.status, `${method} ${path}`).toBe(400);
        expect(res.body.error.message, `${method} ${path}`).toMatch(/must be at most 100 characters long/);
      }
    }
  });
});

describe("permissions of a deleted space", () => {
  it("are frozen until the space is restored", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id);
    await ctx.as(owner).delete(`/v1/spaces/${space.id}`);
    const res = await ctx.as(owner).post(`/v1/spaces/${space.id}/permissions`, { role: "read", users: [members.guest.id] });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe(`Space "${space.id}" is deleted; restore it first with POST /v1/spaces/${space.id}/restore.`);
  });
});
