import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { addMemberToOrg, createOrganization, createOrgWithRoles } from "../../../test/helpers/factories.js";
import {
  backdateDeletion,
  configureGitSync,
  createCollection,
  createSpace,
  grant,
  snapshot,
} from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const TITLE_51 = "c".repeat(51);

describe("every collection route", () => {
  it("answers 401 without a token, and a precise 400 for an id over 100 characters", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const long = "i".repeat(101);
    const routes: [string, string, unknown?][] = [
      ["POST", "/v1/orgs/ID/collections", {}],
      ["GET", "/v1/orgs/ID/collections"],
      ["GET", "/v1/collections/ID"],
      ["PATCH", "/v1/collections/ID", { title: "t" }],
      ["DELETE", "/v1/collections/ID"],
      ["GET", "/v1/collections/ID/spaces"],
      ["POST", "/v1/collections/ID/move", { parent: null }],
      ["POST", "/v1/collections/ID/transfer", { organization: org.id }],
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
      const url = (id: string) => path.replace("ID", id);
      expect((await send(ctx.anonymous, url("x"))).status, `${method} ${path}`).toBe(401);
      const res = await send(ctx.as(owner), url(long));
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.error.message, `${method} ${path}`).toMatch(/must be at most 100 characters long/);
    }
  });
});

describe("POST /v1/orgs/{organizationId}/collections", () => {
  it("creates a collection with a Location header; nested with `parent`", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    expect((await ctx.anonymous.post(`/v1/orgs/${org.id}/collections`, {})).status).toBe(401);
    const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/collections`, { title: "Engineering" });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://quire.test/v1/collections/${res.body.id}`);
    expect(res.body).toEqual({
      object: "collection",
      id: res.body.id,
      title: "Engineering",
      organization: org.id,
      defaultLevel: "inherit",
      urls: {
        location: `http://quire.test/v1/collections/${res.body.id}`,
        app: `http://quire.test/app/o/${org.id}/c/${res.body.id}`,
      },
      permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
    });
    const nested = await ctx.as(owner).post(`/v1/orgs/${org.id}/collections`, { parent: res.body.id });
    expect(nested.status).toBe(201);
    expect(nested.body).toMatchObject({ title: "Untitled", parent: res.body.id });
  });

  it("rejects a 51-character title, readers, outsiders and another organization's parent, creating nothing", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const long = await ctx.as(owner).post(`/v1/orgs/${org.id}/collections`, { title: TITLE_51 });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe("body.title must be at most 50 characters long.");
    expect((await ctx.as(members.read).post(`/v1/orgs/${org.id}/collections`, {})).status).toBe(403);
    expect((await ctx.as(outsider).post(`/v1/orgs/${org.id}/collections`, {})).status).toBe(404);
    const other = await createOrgWithRoles(ctx);
    const foreign = await createCollection(ctx, other.owner, other.org.id);
    const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/collections`, { parent: foreign.id });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe(`No collection with id "${foreign.id}" in this organization.`);
    expect((await snapshot(ctx, org.id)).collections).toEqual([]);
  });
});

describe("GET /v1/orgs/{organizationId}/collections", () => {
  it("lists nested collections by default and only top-level ones with nested=false, as the caller may view", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const top = await createCollection(ctx, owner, org.id, { title: "Top" });
    const child = await createCollection(ctx, owner, org.id, { title: "Child", parent: top.id });
    const secret = await createCollection(ctx, owner, org.id, { title: "Secret" });
    await ctx.as(owner).patch(`/v1/collections/${secret.id}`, { defaultLevel: null });
    const ids = async (user: typeof owner, query = "") =>
      (await ctx.as(user).get(`/v1/orgs/${org.id}/collections${query}`)).body.items.map((c: { id: string }) => c.id);
    // Lists are in creation order, ties (same millisecond) broken by id: the expected order is
    // read from the rows, since three collections made in a row often share a millisecond.
    const inOrder = (
      await ctx.db
        .selectFrom("collections")
        .select(["id", "createdAt"])
        .where("orgId", "=", org.id)
        .orderBy("createdAt")
        .orderBy("id")
        .execute()
    ).map((c) => c.id);
    expect(inOrder.toSorted()).toEqual([top.id, child.id, secret.id].toSorted());
    expect(await ids(owner)).toEqual(inOrder);
    expect(await ids(members.read)).toEqual(inOrder.filter((id) => id !== secret.id));
    expect(await ids(members.read, "?nested=false")).toEqual([top.id]);
    const paged = await ctx.as(owner).get(`/v1/orgs/${org.id}/collections?limit=1`);
    expect(paged.body).toMatchObject({ count: 3, next: { page: expect.any(String) } });
    const second = await ctx.as(owner).get(`/v1/orgs/${org.id}/collections?limit=1&page=${paged.body.next.page}`);
    expect(second.body.items[0].id).toBe(inOrder[1]);
    expect(await ids(members.guest)).toEqual([]);
    expect((await ctx.as(outsider).get(`/v1/orgs/${org.id}/collections`)).status).toBe(404);
    expect((await ctx.anonymous.get(`/v1/orgs/${org.id}/collections`)).status).toBe(401);
    const bad = await ctx.as(owner).get(`/v1/orgs/${org.id}/collections?nested=sometimes`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('query parameter "nested" must be of type boolean.');
  });
});

describe("GET and PATCH /v1/collections/{collectionId}", () => {
  it("returns the collection with permissions per level; outsiders and guests get 404", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const collection = await createCollection(ctx, owner, org.id);
    expect((await ctx.anonymous.get(`/v1/collections/${collection.id}`)).status).toBe(401);
    const out = await ctx.as(outsider).get(`/v1/collections/${collection.id}`);
    expect(out.status).toBe(404);
    expect(out.body.error.message).toBe(`No collection with id "${collection.id}".`);
    expect((await ctx.as(members.guest).get(`/v1/collections/${collection.id}`)).status).toBe(404);
    const perms = async (user: typeof owner) => (await ctx.as(user).get(`/v1/collections/${collection.id}`)).body.permissions;
    expect(await perms(members.read)).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    expect(await perms(members.create)).toEqual({ view: true, admin: false, viewInviteLinks: false, create: true });
    expect(await perms(members.admin)).toEqual({ view: true, admin: true, viewInviteLinks: true, create: true });
  });

  it("updates title, description and default level for admins only, with exact 400 messages", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const collection = await createCollection(ctx, owner, org.id, { title: "Docs" });
    expect((await ctx.anonymous.patch(`/v1/collections/${collection.id}`, {})).status).toBe(401);
    const before = await snapshot(ctx, org.id);
    const denied = await ctx.as(members.create).patch(`/v1/collections/${collection.id}`, { title: "Hacked" });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe(`Only admins of collection "${collection.id}" can change its settings.`);
    expect((await ctx.as(outsider).patch(`/v1/collections/${collection.id}`, { title: "Hacked" })).status).toBe(404);
    const cases: [unknown, string][] = [
      [{ title: TITLE_51 }, "body.title must be at most 50 characters long."],
      [{ description: "d".repeat(101) }, "body.description must be at most 100 characters long."],
      [
        { defaultLevel: "superuser" },
        'body.defaultLevel must be one of: "admin", "create", "review", "edit", "comment", "read", "inherit", null.',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await ctx.as(owner).patch(`/v1/collections/${collection.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
    expect(await snapshot(ctx, org.id)).toEqual(before);

    const res = await ctx
      .as(owner)
      .patch(`/v1/collections/${collection.id}`, { title: "Guides", description: "How-tos", defaultLevel: "read" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: "Guides", description: "How-tos", defaultLevel: "read" });
    // The collection's default now caps members at read.
    expect((await ctx.as(members.create).get(`/v1/collections/${collection.id}`)).body.permissions.create).toBe(false);
    const cleared = await ctx.as(owner).patch(`/v1/collections/${collection.id}`, { description: "", defaultLevel: null });
    expect(cleared.body).not.toHaveProperty("description");
    expect(cleared.body.defaultLevel).toBeNull();
    expect((await ctx.as(members.read).get(`/v1/collections/${collection.id}`)).status).toBe(404);
  });
});

describe("DELETE /v1/collections/{collectionId}", () => {
  it("deletes nested collections and soft-deletes every space inside; restored spaces return to the top level", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const top = await createCollection(ctx, owner, org.id);
    const child = await createCollection(ctx, owner, org.id, { parent: top.id });
    const a = await createSpace(ctx, owner, org.id, { parent: top.id });
    const b = await createSpace(ctx, owner, org.id, { parent: child.id });
    const outside = await createSpace(ctx, owner, org.id);
    await grant(ctx, owner, { collection: child.id }, "edit", { users: [members.guest.id] });
    expect((await ctx.anonymous.delete(`/v1/collections/${top.id}`)).status).toBe(401);
    const denied = await ctx.as(members.read).delete(`/v1/collections/${top.id}`);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe(`Only admins of collection "${top.id}" can delete it.`);

    const res = await ctx.as(owner).delete(`/v1/collections/${top.id}`);
    expect(res.status).toBe(204);
    expect((await ctx.as(owner).get(`/v1/collections/${child.id}`)).status).toBe(404);
    expect(await ctx.db.selectFrom("grants").selectAll().where("targetId", "=", child.id).execute()).toEqual([]);
    const listed = await ctx.as(owner).get(`/v1/orgs/${org.id}/spaces`);
    expect(listed.body.items.map((s: { id: string }) => s.id)).toEqual([outside.id]);
    for (const space of [a, b]) {
      const seen = await ctx.as(owner).get(`/v1/spaces/${space.id}`);
      expect(seen.body.deletedAt).toMatch(/^\d{4}-/);
      const restored = await ctx.as(owner).post(`/v1/spaces/${space.id}/restore`);
      expect(restored.status).toBe(200);
      expect(restored.body).not.toHaveProperty("parent");
    }
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/spaces`)).body.count).toBe(3);
    expect((await ctx.as(owner).delete(`/v1/collections/${top.id}`)).status).toBe(204);
  });

  it("keeps the original deletion date of a space deleted before its collection", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const collection = await createCollection(ctx, owner, org.id);
    const space = await createSpace(ctx, owner, org.id, { parent: collection.id });
    await ctx.as(owner).delete(`/v1/spaces/${space.id}`);
    await backdateDeletion(ctx, space.id, 8);
    await ctx.as(owner).delete(`/v1/collections/${collection.id}`);
    expect((await ctx.as(owner).post(`/v1/spaces/${space.id}/restore`)).status).toBe(400);
  });

  it("answers 204 without touching anything for outsiders and guests", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const collection = await createCollection(ctx, owner, org.id);
    await createSpace(ctx, owner, org.id, { parent: collection.id });
    const before = await snapshot(ctx, org.id);
    expect((await ctx.as(outsider).delete(`/v1/collections/${collection.id}`)).status).toBe(204);
    expect((await ctx.as(members.guest).delete(`/v1/collections/${collection.id}`)).status).toBe(204);
    expect(await snapshot(ctx, org.id)).toEqual(before);
  });
});

describe("GET /v1/collections/{collectionId}/spaces", () => {
  it("lists the spaces directly inside in sibling order, pages, and hides what the caller cannot view", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const collection = await createCollection(ctx, owner, org.id);
    const nested = await createCollection(ctx, owner, org.id, { parent: collection.id });
    const a = await createSpace(ctx, owner, org.id, { parent: collection.id, title: "A" });
    const b = await createSpace(ctx, owner, org.id, { parent: collection.id, title: "B" });
    const c = await createSpace(ctx, owner, org.id, { parent: collection.id, title: "C" });
    await createSpace(ctx, owner, org.id, { parent: nested.id, title: "Deeper" });
    await ctx.as(owner).post(`/v1/spaces/${c.id}/move`, { position: { before: { type: "space", space: a.id } } });
    await ctx.as(owner).patch(`/v1/spaces/${b.id}`, { defaultLevel: null });

    const first = await ctx.as(owner).get(`/v1/collections/${collection.id}/spaces?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.count).toBe(3);
    expect(first.body.items.map((s: { id: string }) => s.id)).toEqual([c.id, a.id]);
    const second = await ctx.as(owner).get(`/v1/collections/${collection.id}/spaces?limit=2&page=${first.body.next.page}`);
    expect(second.body.items.map((s: { id: string }) => s.id)).toEqual([b.id]);
    expect(second.body).not.toHaveProperty("next");
    const reader = await ctx.as(members.read).get(`/v1/collections/${collection.id}/spaces`);
    expect(reader.body.items.map((s: { id: string }) => s.id)).toEqual([c.id, a.id]);
    expect((await ctx.as(outsider).get(`/v1/collections/${collection.id}/spaces`)).status).toBe(404);
    expect((await ctx.anonymous.get(`/v1/collections/${collection.id}/spaces`)).status).toBe(401);
    const bad = await ctx.as(owner).get(`/v1/collections/${collection.id}/spaces?limit=1001`);
    expect(bad.body.error.message).toBe('query parameter "limit" must be at most 1000.');
  });
});

describe("POST /v1/collections/{collectionId}/move", () => {
  it("moves a collection into another, next to a sibling of either kind", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const target = await createCollection(ctx, owner, org.id, { title: "Target" });
    const sibling = await createSpace(ctx, owner, org.id, { parent: target.id });
    const moving = await createCollection(ctx, owner, org.id, { title: "Moving" });
    expect((await ctx.anonymous.post(`/v1/collections/${moving.id}/move`, { parent: null })).status).toBe(401);
    const res = await ctx.as(owner).post(`/v1/collections/${moving.id}/move`, {
      parent: target.id,
      position: { before: { type: "space", space: sibling.id } },
    });
    expect(res.status).toBe(200);
    expect(res.body.parent).toBe(target.id);
    const top = await ctx.as(owner).post(`/v1/collections/${moving.id}/move`, {
      parent: null,
      position: { before: { type: "collection", collection: target.id } },
    });
    expect(top.status).toBe(200);
    expect(top.body).not.toHaveProperty("parent");
  });

  it("answers 400 for a move into itself or a descendant and for an invalid position, 404, 409 and 403", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const parent = await createCollection(ctx, owner, org.id);
    const child = await createCollection(ctx, owner, org.id, { parent: parent.id });
    const grandchild = await createCollection(ctx, owner, org.id, { parent: child.id });
    const elsewhere = await createSpace(ctx, owner, org.id);
    const before = await snapshot(ctx, org.id);
    for (const target of [parent.id, grandchild.id]) {
      const res = await ctx.as(owner).post(`/v1/collections/${parent.id}/move`, { parent: target });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(`Collection "${parent.id}" cannot be moved into itself or into a collection nested in it.`);
    }
    const invalid = await ctx
      .as(owner)
      .post(`/v1/collections/${child.id}/move`, { position: { after: { type: "space", space: elsewhere.id } } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toBe(`Invalid position: space "${elsewhere.id}" is not in collection "${parent.id}".`);
    const unknown = await ctx.as(owner).post(`/v1/collections/${child.id}/move`, { parent: "missing" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('No collection with id "missing" in this organization.');
    const same = await ctx.as(owner).post(`/v1/collections/${child.id}/move`, { parent: parent.id });
    expect(same.status).toBe(409);
    expect(same.body.error.message).toBe(`The collection is already at this position in collection "${parent.id}"; nothing to change.`);
    expect((await ctx.as(members.read).post(`/v1/collections/${child.id}/move`, { parent: null })).status).toBe(403);
    expect((await ctx.as(outsider).post(`/v1/collections/${child.id}/move`, { parent: null })).status).toBe(404);
    expect(await snapshot(ctx, org.id)).toEqual(before);
  });
});

describe("POST /v1/collections/{collectionId}/transfer", () => {
  it("moves the collection with everything inside to another organization, dropping grants", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const target = await createOrganization(ctx, owner, "Target");
    const collection = await createCollection(ctx, owner, org.id);
    const nested = await createCollection(ctx, owner, org.id, { parent: collection.id });
    const space = await createSpace(ctx, owner, org.id, { parent: nested.id });
    const deleted = await createSpace(ctx, owner, org.id, { parent: collection.id });
    await ctx.as(owner).delete(`/v1/spaces/${deleted.id}`);
    await grant(ctx, owner, { space: space.id }, "edit", { users: [members.guest.id] });
    await grant(ctx, owner, { collection: nested.id }, "read", { users: [members.guest.id] });
    expect((await ctx.anonymous.post(`/v1/collections/${collection.id}/transfer`, { organization: target.id })).status).toBe(401);

    const res = await ctx.as(owner).post(`/v1/collections/${collection.id}/transfer`, { organization: target.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ organization: target.id, permissions: { admin: true } });
    expect((await ctx.as(owner).get(`/v1/collections/${nested.id}`)).body).toMatchObject({
      organization: target.id,
      parent: collection.id,
    });
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}`)).body).toMatchObject({ organization: target.id, parent: nested.id });
    expect((await ctx.as(owner).get(`/v1/spaces/${deleted.id}`)).body.organization).toBe(target.id);
    expect(await ctx.db.selectFrom("grants").selectAll().where("targetId", "in", [space.id, nested.id, collection.id]).execute()).toEqual(
      [],
    );
    expect((await snapshot(ctx, org.id)).spaces).toEqual([]);
  });

  it("answers 409 for its own organization, 412 with Git sync inside, 404 and 403", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const target = await createOrganization(ctx, owner, "Target");
    const collection = await createCollection(ctx, owner, org.id);
    const nested = await createCollection(ctx, owner, org.id, { parent: collection.id });
    const synced = await createSpace(ctx, owner, org.id, { parent: nested.id });
    const before = await snapshot(ctx, org.id);
    const same = await ctx.as(owner).post(`/v1/collections/${collection.id}/transfer`, { organization: org.id });
    expect(same.status).toBe(409);
    expect(same.body.error.message).toBe(
      `Collection "${collection.id}" already belongs to organization "${org.id}"; the transfer would change nothing.`,
    );
    const unknown = await ctx.as(owner).post(`/v1/collections/${collection.id}/transfer`, { organization: "elsewhere" });
    expect(unknown.status).toBe(404);
    expect((await ctx.as(members.read).post(`/v1/collections/${collection.id}/transfer`, { organization: target.id })).status).toBe(403);
    expect((await ctx.as(outsider).post(`/v1/collections/${collection.id}/transfer`, { organization: target.id })).status).toBe(404);
    const noBody = await ctx.as(owner).post(`/v1/collections/${collection.id}/transfer`, {});
    expect(noBody.body.error.message).toBe("body.organization is required.");
    await addMemberToOrg(ctx, target.id, members.admin, "edit");
    const noCreate = await ctx.as(members.admin).post(`/v1/collections/${collection.id}/transfer`, { organization: target.id });
    expect(noCreate.status).toBe(403);

    await configureGitSync(ctx, synced.id);
    const res = await ctx.as(owner).post(`/v1/collections/${collection.id}/transfer`, { organization: target.id });
    expect(res.status).toBe(412);
    expect(res.body.error.message).toBe(
      `Collection "${collection.id}" cannot be transferred: space "${synced.id}" inside it has Git sync configured. Remove its Git sync first.`,
    );
    const after = await snapshot(ctx, org.id);
    expect(after.collections).toEqual(before.collections);
    expect(after.grants).toEqual(before.grants);
    expect(after.spaces.map((s) => s.orgId)).toEqual(before.spaces.map((s) => s.orgId));
  });
});
