import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createOrganization, createOrgWithRoles, createUser } from "../../../test/helpers/factories.js";
import { createCollection, createSpace } from "../../../test/helpers/spaces.factories.js";
import { createLinkInvite, spreadCreationTimes } from "../../../test/helpers/teams.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function roleIn(orgId: string, userId: string) {
  const row = await ctx.db
    .selectFrom("members")
    .select(["role", "sso"])
    .where("orgId", "=", orgId)
    .where("userId", "=", userId)
    .executeTakeFirst();
  return row;
}

describe("POST /v1/orgs/{organizationId}/invites", () => {
  it("adds known users, creates pending accounts for unknown emails, and leaves members unchanged", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    await ctx.as(owner).patch(`/v1/orgs/${org.id}`, { defaultRole: "comment" });
    const known = await createUser(ctx, { email: "known@invites.test" });
    const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/invites`, {
      emails: ["Known@Invites.test", { email: "newcomer@invites.test", role: "edit" }, members.read.email, "known@invites.test"],
    });
    expect(res.status).toBe(200);
    const created = await ctx.db.selectFrom("users").selectAll().where("email", "=", "newcomer@invites.test").executeTakeFirstOrThrow();
    expect(res.body).toEqual({ users: [known.id, created.id], invited: 2 });
    expect(created).toMatchObject({ displayName: "newcomer", pending: 1, emailVerified: 0 });
    expect(await roleIn(org.id, known.id)).toEqual({ role: "comment", sso: 0 });
    expect(await roleIn(org.id, created.id)).toEqual({ role: "edit", sso: 0 });
    expect((await roleIn(org.id, members.read.id))?.role).toBe("read");
    // The pending account is listed as a member.
    const listed = await ctx.as(owner).get(`/v1/orgs/${org.id}/members?search=newcomer`);
    expect(listed.body.items).toMatchObject([{ id: created.id, role: "edit", user: { displayName: "newcomer" } }]);
  });

  it("uses the body's role as default, null for guests", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const res = await ctx
      .as(owner)
      .post(`/v1/orgs/${org.id}/invites`, { emails: ["a@guests.test", { email: "b@guests.test", role: "read" }], role: null });
    expect(res.body.invited).toBe(2);
    const [a, b] = res.body.users;
    expect((await roleIn(org.id, a))?.role).toBeNull();
    expect((await roleIn(org.id, b))?.role).toBe("read");
  });

  it("adds SSO members, but not people who belong to another organization", async () => {
    const { org, owner, outsider } = await createOrgWithRoles(ctx);
    await createOrganization(ctx, outsider);
    const free = await createUser(ctx);
    const res = await ctx
      .as(owner)
      .post(`/v1/orgs/${org.id}/invites`, { emails: [free.email, outsider.email, "fresh@sso.test"], role: "read", sso: true });
    expect(res.status).toBe(200);
    expect(res.body.invited).toBe(3);
    expect(res.body.failedSSOEmails).toEqual([outsider.email]);
    expect((await roleIn(org.id, free.id))?.sso).toBe(1);
    expect(await roleIn(org.id, outsider.id)).toEqual({ role: "read", sso: 0 });
    expect((await roleIn(org.id, res.body.users[2]))?.sso).toBe(1);
  });

  it("holds, and renews, the invitation of an account another organization's identity provider vouched for", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const elsewhere = await createOrganization(ctx, await createUser(ctx));
    const own = await createUser(ctx, { email: "own@vouched.test", verification: { via: "idp", orgId: org.id } });
    const foreign = await createUser(ctx, { email: "foreign@vouched.test", verification: { via: "idp", orgId: elsewhere.id } });
    const unknown = await createUser(ctx, { email: "unknown@vouched.test", verification: { via: "idp", orgId: null } });
    const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/invites`, {
      emails: [own.email, foreign.email, unknown.email],
      role: "comment",
      sso: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ users: [own.id], invited: 1, failedSSOEmails: [], heldEmails: [foreign.email, unknown.email] });
    expect(await roleIn(org.id, own.id)).toEqual({ role: "comment", sso: 1 });
    expect(await roleIn(org.id, foreign.id)).toBeUndefined();
    const held = () =>
      ctx.db
        .selectFrom("heldInvitations")
        .select(["role", "sso", "expiresAt"])
        .where("orgId", "=", org.id)
        .where("userId", "=", foreign.id)
        .execute();
    const [first] = await held();
    expect(first).toMatchObject({ role: "comment", sso: 1 });
    const days = (Date.parse(first!.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    // Inviting again replaces the held invitation: one row, the new role.
    await ctx.as(owner).post(`/v1/orgs/${org.id}/invites`, { emails: [foreign.email], role: "edit" });
    expect(await held()).toMatchObject([{ role: "edit", sso: 0 }]);
  });

  it("rejects an invalid email naming it, and adds no one", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/invites`, { emails: ["ok@valid.test", "not-an-email"] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('body.emails contains "not-an-email", which is not a valid email address.');
    expect(await ctx.db.selectFrom("users").select("id").where("email", "=", "ok@valid.test").execute()).toEqual([]);
    const none = await ctx.as(owner).post(`/v1/orgs/${org.id}/invites`, { emails: [] });
    expect(none.body.error.message).toBe("body.emails must have at least 1 items.");
    const many = await ctx.as(owner).post(`/v1/orgs/${org.id}/invites`, {
      emails: Array.from({ length: 101 }, (_, i) => `u${i}@many.test`),
    });
    expect(many.status).toBe(400);
    expect(many.body.error.message).toBe("body.emails must have at most 100 items.");
    const noRole = await ctx.as(owner).post(`/v1/orgs/${org.id}/invites`, { emails: [{ email: "x@roles.test" }] });
    expect(noRole.body.error.message).toBe("body.emails.0.role is required.");
    const badRole = await ctx.as(owner).post(`/v1/orgs/${org.id}/invites`, { emails: ["x@roles.test"], role: "owner" });
    expect(badRole.body.error.message).toBe('body.role must be one of: "admin", "create", "review", "edit", "comment", "read", null.');
  });

  it("answers 401, 403 to non-admins and 404 to outsiders", async () => {
    const { org, members, outsider } = await createOrgWithRoles(ctx);
    const body = { emails: ["someone@denied.test"] };
    expect((await ctx.anonymous.post(`/v1/orgs/${org.id}/invites`, body)).status).toBe(401);
    const denied = await ctx.as(members.create).post(`/v1/orgs/${org.id}/invites`, body);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe("Only organization admins can invite people.");
    expect((await ctx.as(outsider).post(`/v1/orgs/${org.id}/invites`, body)).status).toBe(404);
    expect(await ctx.db.selectFrom("users").select("id").where("email", "=", "someone@denied.test").execute()).toEqual([]);
  });
});

describe("link invites: list, create, get, update, delete", () => {
  it("lets admins manage organization invite links", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const created = await ctx.as(members.admin).post(`/v1/orgs/${org.id}/link-invites`, { role: "edit" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ object: "invite", id: expect.any(String), role: "edit", redundant: true });
    const guestLink = await createLinkInvite(ctx, owner, org.id, null);
    await spreadCreationTimes(ctx, [
      { table: "linkInvites", id: created.body.id },
      { table: "linkInvites", id: guestLink.id },
    ]);

    const list = await ctx.as(owner).get(`/v1/orgs/${org.id}/link-invites`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      count: 2,
      items: [
        { object: "invite", id: created.body.id, role: "edit", redundant: true },
        { object: "invite", id: guestLink.id, role: null, redundant: true },
      ],
    });
    const one = await ctx.as(owner).get(`/v1/orgs/${org.id}/link-invites/${created.body.id}`);
    expect(one.body).toEqual(created.body);

    const patched = await ctx.as(owner).patch(`/v1/orgs/${org.id}/link-invites/${created.body.id}`, { role: "read" });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created.body, role: "read" });
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/link-invites/${created.body.id}`)).body.role).toBe("read");

    expect((await ctx.as(owner).delete(`/v1/orgs/${org.id}/link-invites/${created.body.id}`)).status).toBe(204);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/link-invites/${created.body.id}`)).status).toBe(404);
    expect((await ctx.as(owner).delete(`/v1/orgs/${org.id}/link-invites/${created.body.id}`)).status).toBe(204);
  });

  it("validates bodies, and refuses links to unknown or foreign spaces and collections", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const bad = await ctx.as(owner).post(`/v1/orgs/${org.id}/link-invites`, { role: "superuser" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('body.role must be one of: "admin", "create", "review", "edit", "comment", "read", null.');
    const space = await ctx.as(owner).post(`/v1/orgs/${org.id}/link-invites`, { level: "read", space: "s1" });
    expect(space.status).toBe(404);
    expect(space.body.error.message).toBe('No space with id "s1" in this organization.');
    const collection = await ctx.as(owner).post(`/v1/orgs/${org.id}/link-invites`, { level: "read", collection: "c1" });
    expect(collection.body.error.message).toBe('No collection with id "c1" in this organization.');
    const other = await createOrgWithRoles(ctx);
    const foreign = await createSpace(ctx, other.owner, other.org.id);
    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/link-invites`, { level: "read", space: foreign.id })).status).toBe(404);
    const invite = await createLinkInvite(ctx, owner, org.id, "read");
    const level = await ctx.as(owner).patch(`/v1/orgs/${org.id}/link-invites/${invite.id}`, { level: "edit" });
    expect(level.status).toBe(400);
    expect(level.body.error.message).toBe(
      "This invite link is to the organization: change its `role`; `level` is for links to spaces and collections.",
    );
    const limit = await ctx.as(owner).get(`/v1/orgs/${org.id}/link-invites?limit=1001`);
    expect(limit.body.error.message).toBe('query parameter "limit" must be at most 1000.');
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/link-invites`)).body.count).toBe(1);
  });

  it("refuses to create links when the organization disables them", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    await ctx.as(owner).patch(`/v1/orgs/${org.id}`, { inviteLinks: false });
    const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/link-invites`, { role: "read" });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      `Invite links are disabled in this organization; an admin can enable them with PATCH /v1/orgs/${org.id} {"inviteLinks": true}.`,
    );
  });

  it("answers 401, 403 to non-admins, 404 to outsiders and for another organization's invite", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const invite = await createLinkInvite(ctx, owner, org.id, "read");
    const other = await createOrganization(ctx, outsider);
    const foreign = await createLinkInvite(ctx, outsider, other.id, "admin");
    const one = `/v1/orgs/${org.id}/link-invites/${invite.id}`;
    const all = `/v1/orgs/${org.id}/link-invites`;

    expect((await ctx.anonymous.get(all)).status).toBe(401);
    expect((await ctx.anonymous.post(all, { role: "read" })).status).toBe(401);
    expect((await ctx.anonymous.get(one)).status).toBe(401);
    expect((await ctx.anonymous.patch(one, { role: "read" })).status).toBe(401);
    expect((await ctx.anonymous.delete(one)).status).toBe(401);

    for (const [status, res] of [
      [403, await ctx.as(members.create).get(all)],
      [403, await ctx.as(members.create).post(all, { role: "admin" })],
      [403, await ctx.as(members.create).get(one)],
      [403, await ctx.as(members.create).patch(one, { role: "admin" })],
      [403, await ctx.as(members.create).delete(one)],
      [404, await ctx.as(outsider).get(all)],
      [404, await ctx.as(outsider).post(all, { role: "admin" })],
      [404, await ctx.as(outsider).get(one)],
      [404, await ctx.as(outsider).patch(one, { role: "admin" })],
      [404, await ctx.as(outsider).delete(one)],
      [404, await ctx.as(owner).get(`${all}/${foreign.id}`)],
      [404, await ctx.as(owner).patch(`${all}/${foreign.id}`, { role: "read" })],
    ] as const) {
      expect(res.status).toBe(status);
    }
    const denied = await ctx.as(members.create).delete(one);
    expect(denied.body.error.message).toBe("Only organization admins can delete invite links.");
    const malformed = await ctx.as(owner).delete(one, { rawBody: "{" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/^The request body is not valid JSON: /);
    // Deleting another organization's invite through this one does nothing.
    expect((await ctx.as(owner).delete(`${all}/${foreign.id}`)).status).toBe(204);
    expect((await ctx.as(outsider).get(`/v1/orgs/${other.id}/link-invites/${foreign.id}`)).body.role).toBe("admin");
    expect((await ctx.as(owner).get(one)).body.role).toBe("read");
  });
});

describe("POST /v1/orgs/{organizationId}/invites/{inviteId}", () => {
  it("makes the caller a member with the invite's role", async () => {
    const { org, owner, outsider } = await createOrgWithRoles(ctx);
    const invite = await createLinkInvite(ctx, owner, org.id, "edit");
    expect((await ctx.as(outsider).get(`/v1/orgs/${org.id}`)).status).toBe(404);
    const res = await ctx.as(outsider).post(`/v1/orgs/${org.id}/invites/${invite.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await ctx.as(outsider).get(`/v1/orgs/${org.id}`)).body.permissions).toMatchObject({ view: true, listMembers: true });
    expect((await roleIn(org.id, outsider.id))?.role).toBe("edit");
    // The invite stays usable; using it again changes nothing.
    const again = await ctx.as(outsider).post(`/v1/orgs/${org.id}/invites/${invite.id}`);
    expect(again.status).toBe(200);
  });

  it("raises a lower role and keeps a higher one", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const invite = await createLinkInvite(ctx, owner, org.id, "review");
    await ctx.as(members.guest).post(`/v1/orgs/${org.id}/invites/${invite.id}`);
    await ctx.as(members.read).post(`/v1/orgs/${org.id}/invites/${invite.id}`);
    await ctx.as(members.create).post(`/v1/orgs/${org.id}/invites/${invite.id}`);
    expect((await roleIn(org.id, members.guest.id))?.role).toBe("review");
    expect((await roleIn(org.id, members.read.id))?.role).toBe("review");
    expect((await roleIn(org.id, members.create.id))?.role).toBe("create");
    const guestInvite = await createLinkInvite(ctx, owner, org.id, null);
    await ctx.as(members.comment).post(`/v1/orgs/${org.id}/invites/${guestInvite.id}`);
    expect((await roleIn(org.id, members.comment.id))?.role).toBe("comment");
  });

  it("answers 404 for missing, deleted and other organizations' invites, alike for a missing organization", async () => {
    const { org, owner, outsider } = await createOrgWithRoles(ctx);
    const stranger = await createUser(ctx);
    const other = await createOrganization(ctx, outsider);
    const foreign = await createLinkInvite(ctx, outsider, other.id, "admin");
    const res = await ctx.as(stranger).post(`/v1/orgs/${org.id}/invites/${foreign.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe(`No invite link with id "${foreign.id}" in this organization.`);
    const noOrg = await ctx.as(stranger).post(`/v1/orgs/nope/invites/${foreign.id}`);
    expect(noOrg.body.error.message).toBe(res.body.error.message);
    const invite = await createLinkInvite(ctx, owner, org.id, "read");
    await ctx.as(owner).delete(`/v1/orgs/${org.id}/link-invites/${invite.id}`);
    expect((await ctx.as(stranger).post(`/v1/orgs/${org.id}/invites/${invite.id}`)).status).toBe(404);
    expect(await roleIn(org.id, stranger.id)).toBeUndefined();
    expect(await roleIn(other.id, stranger.id)).toBeUndefined();
  });

  it("disables an invite while its creator is not an admin", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const invite = await createLinkInvite(ctx, members.admin, org.id, "read");
    await ctx.as(owner).patch(`/v1/orgs/${org.id}/members/${members.admin.id}`, { role: "edit" });
    const stranger = await createUser(ctx);
    expect((await ctx.as(stranger).post(`/v1/orgs/${org.id}/invites/${invite.id}`)).status).toBe(404);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/link-invites/${invite.id}`)).status).toBe(404);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/link-invites`)).body.count).toBe(0);
    await ctx.as(owner).patch(`/v1/orgs/${org.id}/members/${members.admin.id}`, { role: "admin" });
    expect((await ctx.as(stranger).post(`/v1/orgs/${org.id}/invites/${invite.id}`)).status).toBe(200);
  });

  it("answers 400 when the organization disables invite links, 403 to a disabled member, 401 without a token", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const invite = await createLinkInvite(ctx, owner, org.id, "read");
    expect((await ctx.anonymous.post(`/v1/orgs/${org.id}/invites/${invite.id}`)).status).toBe(401);
    await ctx.db.updateTable("members").set({ disabled: 1 }).where("orgId", "=", org.id).where("userId", "=", members.guest.id).execute();
    const disabled = await ctx.as(members.guest).post(`/v1/orgs/${org.id}/invites/${invite.id}`);
    expect(disabled.status).toBe(403);
    expect(disabled.body.error.message).toBe("Your membership of this organization has been disabled; an invite link cannot restore it.");
    await ctx.as(owner).patch(`/v1/orgs/${org.id}`, { inviteLinks: false });
    const stranger = await createUser(ctx);
    const res = await ctx.as(stranger).post(`/v1/orgs/${org.id}/invites/${invite.id}`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      `Invite links are disabled in this organization; an admin can enable them with PATCH /v1/orgs/${org.id} {"inviteLinks": true}.`,
    );
    expect(await roleIn(org.id, stranger.id)).toBeUndefined();
  });
});

describe("invite links to spaces and collections", () => {
  it("lets admins of the content create them, and gives holders that level as guests", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id, { title: "Private" });
    await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { defaultLevel: null });
    const created = await ctx.as(owner).post(`/v1/orgs/${org.id}/link-invites`, { level: "comment", space: space.id });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: "invite", level: "comment", redundant: true, space: { id: space.id, object: "space" } });
    expect(created.headers.location).toMatch(new RegExp(`/link-invites/${created.body.id}$`));
    expect((await ctx.as(members.edit).post(`/v1/orgs/${org.id}/link-invites`, { level: "read", space: space.id })).status).toBe(404);
    const guestLevel = await ctx.as(owner).post(`/v1/orgs/${org.id}/link-invites`, { level: null, space: space.id });
    expect(guestLevel.status).toBe(400);
    expect(guestLevel.body.error.message).toBe(
      "body.level must be a role for a link to a space (read, comment, edit, review, create or admin).",
    );

    const stranger = await createUser(ctx);
    expect((await ctx.as(stranger).get(`/v1/spaces/${space.id}`)).status).toBe(404);
    expect((await ctx.as(stranger).post(`/v1/orgs/${org.id}/invites/${created.body.id}`)).status).toBe(200);
    const seen = await ctx.as(stranger).get(`/v1/spaces/${space.id}`);
    expect(seen.status).toBe(200);
    expect(seen.body.permissions).toMatchObject({ view: true, comment: true, edit: false });
    expect((await ctx.as(stranger).get(`/v1/orgs/${org.id}`)).body.permissions).toMatchObject({ view: true, listMembers: false });

    const raised = await ctx.as(owner).patch(`/v1/orgs/${org.id}/link-invites/${created.body.id}`, { level: "edit" });
    expect(raised.body.level).toBe("edit");
    const roleOnContent = await ctx.as(owner).patch(`/v1/orgs/${org.id}/link-invites/${created.body.id}`, { role: "edit" });
    expect(roleOnContent.status).toBe(400);
    expect(roleOnContent.body.error.message).toBe(
      "This invite link is to a space: change its `level` (a role); `role` is for links to the organization.",
    );
    expect((await ctx.as(stranger).post(`/v1/orgs/${org.id}/invites/${created.body.id}`)).status).toBe(200);
    expect((await ctx.as(stranger).get(`/v1/spaces/${space.id}`)).body.permissions.edit).toBe(true);
    expect((await ctx.as(owner).delete(`/v1/orgs/${org.id}/link-invites/${created.body.id}`)).status).toBe(204);
  });

  it("works for collections, and a deleted space's link stops working", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const collection = await createCollection(ctx, owner, org.id, { title: "Team docs" });
    const link = await ctx.as(owner).post(`/v1/orgs/${org.id}/link-invites`, { level: "read", collection: collection.id });
    expect(link.body).toMatchObject({ level: "read", collection: { id: collection.id, object: "collection" } });
    const holder = await createUser(ctx);
    await ctx.as(holder).post(`/v1/orgs/${org.id}/invites/${link.body.id}`);
    expect((await ctx.as(holder).get(`/v1/collections/${collection.id}`)).status).toBe(200);

    const space = await createSpace(ctx, owner, org.id);
    const spaceLink = await ctx.as(owner).post(`/v1/orgs/${org.id}/link-invites`, { level: "read", space: space.id });
    await ctx.as(owner).delete(`/v1/spaces/${space.id}`);
    expect((await ctx.as(await createUser(ctx)).post(`/v1/orgs/${org.id}/invites/${spaceLink.body.id}`)).status).toBe(404);
  });
});

describe("content invite links through @gitbook/api", () => {
  it("validate against the spec", async () => {
    const { contractClient } = await import("../../../test/helpers/contract.js");
    const { org, owner } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id);
    const collection = await createCollection(ctx, owner, org.id);
    const client = contractClient(await ctx.listen(), owner.token);
    const toSpace = await client.orgs.createOrganizationInvite(org.id, { level: "edit" as never, space: space.id });
    expect((await client.orgs.getOrganizationInviteLink(org.id, toSpace.data.id)).data.id).toBe(toSpace.data.id);
    const toCollection = await client.orgs.createOrganizationInvite(org.id, { level: "read" as never, collection: collection.id });
    await client.orgs.updateOrganizationInviteById(org.id, toCollection.data.id, { level: "comment" as never });
  });
});
