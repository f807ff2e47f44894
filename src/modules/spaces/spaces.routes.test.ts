import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { nextMillisecond } from "../../../test/helpers/clock.js";
import { addMemberToOrg, createOrganization, createOrgWithRoles, createUser } from "../../../test/helpers/factories.js";
import {
  backdateDeletion,
  configureGitSync,
  createCollection,
  createSpace,
  grant,
  snapshot,
} from "../../../test/helpers/spaces.factories.js";
import { LANGUAGES } from "./spaces.schemas.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const TITLE_51 = "x".repeat(51);
const ALL_TRUE = {
  view: true,
  access: true,
  admin: true,
  viewInviteLinks: true,
  edit: true,
  triggerGitSync: true,
  comment: true,
  merge: true,
  review: true,
  installIntegration: true,
};

describe("every space route", () => {
  it("answers 401 without a token, and a precise 400 for an id over 100 characters", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const long = "i".repeat(101);
    const routes: [string, string, string, unknown?][] = [
      ["POST", "/v1/orgs/ORG/spaces", "organizationId", {}],
      ["GET", "/v1/orgs/ORG/spaces", "organizationId"],
      ["GET", "/v1/orgs/ORG/members/u/spaces", "organizationId"],
      ["GET", "/v1/spaces/ID", "spaceId"],
      ["PATCH", "/v1/spaces/ID", "spaceId", { title: "t" }],
      ["DELETE", "/v1/spaces/ID", "spaceId"],
      ["POST", "/v1/spaces/ID/restore", "spaceId"],
      ["POST", "/v1/spaces/ID/duplicate", "spaceId"],
      ["POST", "/v1/spaces/ID/move", "spaceId", { parent: null }],
      ["POST", "/v1/spaces/ID/transfer", "spaceId", { organization: org.id }],
    ];
    for (const [method, path, param, body] of routes) {
      const send = (requester: typeof ctx.anonymous, url: string) =>
        method === "GET"
          ? requester.get(url)
          : method === "DELETE"
            ? requester.delete(url)
            : method === "POST"
              ? requester.post(url, body)
              : requester.patch(url, body);
      const url = (id: string) => path.replace("ORG", param === "organizationId" ? id : org.id).replace("ID", id);
      expect((await send(ctx.anonymous, url("x"))).status, `${method} ${path}`).toBe(401);
      const res = await send(ctx.as(owner), url(long));
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.error.message, `${method} ${path}`).toMatch(/must be at most 100 characters long/);
    }
  });
});

describe("POST /v1/orgs/{organizationId}/spaces", () => {
  it("requires authentication", async () => {
    const { org } = await createOrgWithRoles(ctx);
    const res = await ctx.anonymous.post(`/v1/orgs/${org.id}/spaces`, {});
    expect(res.status).toBe(401);
  });

  it("creates a space and its first, empty revision in one go, with a Location header", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const res = await ctx
      .as(owner)
      .post(`/v1/orgs/${org.id}/spaces`, { title: "Handbook", emoji: "📘", language: "fr", editMode: "locked" });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://quire.test/v1/spaces/${res.body.id}`);
    expect(res.body).toMatchObject({
      object: "space",
      title: "Handbook",
      emoji: "📘",
      language: "fr",
      editMode: "locked",
      visibility: "private",
      organization: org.id,
      defaultLevel: "inherit",
      mergeRules: { type: "inherit" },
      comments: 0,
      changeRequests: 0,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
      urls: { location: `http://quire.test/v1/spaces/${res.body.id}`, app: `http://quire.test/app/o/${org.id}/s/${res.body.id}` },
    });
    expect(res.body).not.toHaveProperty("parent");
    expect(res.body.urls).not.toHaveProperty("published");
    expect(res.body).not.toHaveProperty("gitSync");
    // Locked: even the admin cannot edit or merge live content.
    expect(res.body.permissions).toEqual({ ...ALL_TRUE, edit: false, merge: false, triggerGitSync: false });
    const revision = await ctx.db.selectFrom("revisions").selectAll().where("id", "=", res.body.revision).executeTakeFirstOrThrow();
    expect(revision).toMatchObject({ spaceId: res.body.id, type: "edits", parents: "[]", treeHash: null, createdBy: owner.id });
  });

  it("accepts no body at all and names the space Untitled", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/spaces`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: "Untitled", emoji: "", editMode: "live" });
  });

  it("rejects a 51-character title and an unknown language with exact messages, creating nothing", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const long = await ctx.as(owner).post(`/v1/orgs/${org.id}/spaces`, { title: TITLE_51 });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe("body.title must be at most 50 characters long.");
    const language = await ctx.as(owner).post(`/v1/orgs/${org.id}/spaces`, { language: "klingon" });
    expect(language.status).toBe(400);
    expect(language.body.error.message).toBe(`body.language must be one of: ${LANGUAGES.map((l) => `"${l}"`).join(", ")}.`);
    const editMode = await ctx.as(owner).post(`/v1/orgs/${org.id}/spaces`, { editMode: "open" });
    expect(editMode.body.error.message).toBe('body.editMode must be one of: "live", "locked".');
    const template = await ctx.as(owner).post(`/v1/orgs/${org.id}/spaces`, { template: { id: "t" } });
    expect(template.status).toBe(400);
    expect(template.body.error.message).toMatch(/template.*not supported yet/);
    expect((await snapshot(ctx, org.id)).spaces).toHaveLength(0);
  });

  it("answers 404 to outsiders and 403 to members without the create role at the top level", async () => {
    const { org, members, outsider } = await createOrgWithRoles(ctx);
    const out = await ctx.as(outsider).post(`/v1/orgs/${org.id}/spaces`, {});
    expect(out.status).toBe(404);
    expect(out.body.error.message).toBe(`No organization with id "${org.id}" that you are a member of.`);
    for (const user of [members.review, members.read, members.guest]) {
      const res = await ctx.as(user).post(`/v1/orgs/${org.id}/spaces`, {});
      expect(res.status).toBe(403);
      expect(res.body.error.message).toBe(
        "Adding content at the top level of the organization needs the organization role create or admin.",
      );
    }
    expect((await snapshot(ctx, org.id)).spaces).toHaveLength(0);
  });

  it("makes a creator-role member the admin of the space they create", async () => {
    const { org, members } = await createOrgWithRoles(ctx);
    const res = await ctx.as(members.create).post(`/v1/orgs/${org.id}/spaces`, { title: "Mine" });
    expect(res.status).toBe(201);
    expect(res.body.permissions.admin).toBe(true);
    expect((await ctx.as(members.create).patch(`/v1/spaces/${res.body.id}`, { title: "Still mine" })).status).toBe(200);
  });

  it("creates inside a collection only with create on it; another organization's collection is unknown", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const collection = await createCollection(ctx, owner, org.id);
    const inside = await ctx.as(owner).post(`/v1/orgs/${org.id}/spaces`, { parent: collection.id });
    expect(inside.status).toBe(201);
    expect(inside.body.parent).toBe(collection.id);
    const reader = await ctx.as(members.read).post(`/v1/orgs/${org.id}/spaces`, { parent: collection.id });
    expect(reader.status).toBe(403);
    expect(reader.body.error.message).toBe(`Adding content to collection "${collection.id}" needs the create or admin level on it.`);
    // A reader granted `create` on the collection may add to it (but still not at the top level).
    await grant(ctx, owner, { collection: collection.id }, "create", { users: [members.read.id] });
    expect((await ctx.as(members.read).post(`/v1/orgs/${org.id}/spaces`, { parent: collection.id })).status).toBe(201);

    const other = await createOrgWithRoles(ctx);
    const foreign = await createCollection(ctx, other.owner, other.org.id);
    await addMemberToOrg(ctx, other.org.id, owner, "admin");
    const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/spaces`, { parent: foreign.id });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe(`No collection with id "${foreign.id}" in this organization.`);
    expect((await snapshot(ctx, other.org.id)).spaces).toHaveLength(0);
  });
});

describe("GET /v1/orgs/{organizationId}/spaces", () => {
  it("lists the spaces the caller may view, without deleted ones, in pages", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await createSpace(ctx, owner, org.id, { title: `S${i}` })).id);
      await nextMillisecond();
    }
    await ctx.as(owner).delete(`/v1/spaces/${ids[4]}`);
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await ctx.as(members.read).get(`/v1/orgs/${org.id}/spaces?limit=2${page ? `&page=${page}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(4);
      seen.push(...res.body.items.map((s: { id: string }) => s.id));
      page = res.body.next?.page;
    } while (page);
    expect(seen).toEqual(ids.slice(0, 4));

    // A guest sees only what they were granted, with their own permissions.
    await grant(ctx, owner, { space: ids[1] as string }, "edit", { users: [members.guest.id] });
    const guest = await ctx.as(members.guest).get(`/v1/orgs/${org.id}/spaces`);
    expect(guest.body.items.map((s: { id: string }) => s.id)).toEqual([ids[1]]);
    expect(guest.body.items[0].permissions).toMatchObject({ view: true, edit: true, review: false, admin: false });

    expect((await ctx.as(outsider).get(`/v1/orgs/${org.id}/spaces`)).status).toBe(404);
    expect((await ctx.anonymous.get(`/v1/orgs/${org.id}/spaces`)).status).toBe(401);
    const bad = await ctx.as(owner).get(`/v1/orgs/${org.id}/spaces?limit=0`);
    expect(bad.body.error.message).toBe('query parameter "limit" must be at least 1.');
  });
});

describe("GET /v1/spaces/{spaceId}", () => {
  it("returns the space with the caller's permissions; outsiders and guests without a grant get 404", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id, { title: "Docs" });
    expect((await ctx.anonymous.get(`/v1/spaces/${space.id}`)).status).toBe(401);
    const out = await ctx.as(outsider).get(`/v1/spaces/${space.id}`);
    expect(out.status).toBe(404);
    expect(out.body.error.message).toBe(`No space with id "${space.id}".`);
    expect((await ctx.as(members.guest).get(`/v1/spaces/${space.id}`)).status).toBe(404);
    expect((await ctx.as(owner).get("/v1/spaces/nope")).body.error.message).toBe('No space with id "nope".');

    const reader = await ctx.as(members.read).get(`/v1/spaces/${space.id}`);
    expect(reader.status).toBe(200);
    expect(reader.body.permissions).toEqual({
      view: true,
      access: true,
      admin: false,
      viewInviteLinks: false,
      edit: false,
      triggerGitSync: false,
      comment: false,
      merge: false,
      review: false,
      installIntegration: false,
    });
    const editor = await ctx.as(members.edit).get(`/v1/spaces/${space.id}`);
    expect(editor.body.permissions).toMatchObject({ edit: true, comment: true, triggerGitSync: true, review: false, merge: false });
    const longKey = await ctx.as(members.review).get(`/v1/spaces/${space.id}?shareKey=${"k".repeat(1025)}`);
    expect(longKey.status).toBe(400);
    expect(longKey.body.error.message).toBe('query parameter "shareKey" must be at most 1024 characters long.');
    // shareKey only matters for published URLs of share-link sites, which do not exist yet.
    const reviewer = await ctx.as(members.review).get(`/v1/spaces/${space.id}?shareKey=anything`);
    expect(reviewer.status).toBe(200);
    expect(reviewer.body.permissions).toMatchObject({ review: true, merge: true, admin: false });
  });

  it("shows gitSync only when set", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id);
    await configureGitSync(ctx, space.id);
    const res = await ctx.as(owner).get(`/v1/spaces/${space.id}`);
    expect(res.body.gitSync).toMatchObject({ repoName: "acme/docs", installationProvider: "github" });
  });
});

describe("PATCH /v1/spaces/{spaceId}", () => {
  it("updates settings for admins; readers get 403 and outsiders 404, with nothing changed", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id, { title: "Docs" });
    expect((await ctx.anonymous.patch(`/v1/spaces/${space.id}`, { title: "x" })).status).toBe(401);
    const denied = await ctx.as(members.read).patch(`/v1/spaces/${space.id}`, { title: "Hacked" });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe(`Only admins of space "${space.id}" can change its settings.`);
    expect((await ctx.as(outsider).patch(`/v1/spaces/${space.id}`, { title: "Hacked" })).status).toBe(404);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}`)).body.title).toBe("Docs");

    const res = await ctx.as(members.admin).patch(`/v1/spaces/${space.id}`, {
      title: "Guide",
      editMode: "locked",
      defaultLevel: "comment",
      language: "pt-br",
      mergeRules: { type: "rules", rules: [{ rule: "require_specific_reviewers", users: [members.review.id] }] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      title: "Guide",
      editMode: "locked",
      defaultLevel: "comment",
      language: "pt-br",
      mergeRules: { type: "rules", rules: [{ rule: "require_specific_reviewers", users: [members.review.id] }] },
    });
    // The default level now caps organization members at comment: the editor can no longer edit.
    const editor = await ctx.as(members.edit).get(`/v1/spaces/${space.id}`);
    expect(editor.body.permissions).toMatchObject({ view: true, comment: true, edit: false });
    for (const mergeRules of [{ type: "none" }, { type: "inherit" }]) {
      expect((await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { mergeRules })).body.mergeRules).toEqual(mergeRules);
    }
    for (const defaultLevel of [null, "inherit"]) {
      expect((await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { defaultLevel })).body.defaultLevel).toBe(defaultLevel);
    }
  });

  it("rejects bad input with exact messages and changes nothing", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id, { title: "Docs" });
    const before = await snapshot(ctx, org.id);
    const cases: [unknown, string][] = [
      [{ title: TITLE_51 }, "body.title must be at most 50 characters long."],
      [{ editMode: "draft" }, 'body.editMode must be one of: "live", "locked".'],
      [
        { defaultLevel: "owner" },
        'body.defaultLevel must be one of: "admin", "create", "review", "edit", "comment", "read", "inherit", null.',
      ],
      [{ emoji: "🎉", icon: "https://example.com/i.png" }, "Set either body.emoji or body.icon, not both: a space shows one of them."],
      [{ mergeRules: { type: "sometimes" } }, 'body.mergeRules.type must be one of: "inherit", "rules", "none".'],
      [{ mergeRules: { type: "rules" } }, 'body.mergeRules.rules is required when body.mergeRules.type is "rules".'],
    ];
    for (const [body, message] of cases) {
      const res = await ctx.as(owner).patch(`/v1/spaces/${space.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
    const other = await createOrganization(ctx, await createUser(ctx));
    const stranger = await createUser(ctx);
    await addMemberToOrg(ctx, other.id, stranger, "read");
    const rules = await ctx.as(owner).patch(`/v1/spaces/${space.id}`, {
      mergeRules: { type: "rules", rules: [{ rule: "allow_bypass", users: [stranger.id] }] },
    });
    expect(rules.status).toBe(400);
    expect(rules.body.error.message).toBe(
      `body.mergeRules.rules[0].users names user "${stranger.id}", who is not a member of this organization.`,
    );
    const expression = await ctx.as(owner).patch(`/v1/spaces/${space.id}`, {
      mergeRules: { type: "rules", rules: [{ rule: "require_at_least_one_review" }, { rule: "custom", expression: "reviews.length >= " }] },
    });
    expect(expression.status).toBe(400);
    expect(expression.body.error.message).toMatch(/^body\.mergeRules\.rules\[1\]\.expression is not a valid expression: /);
    expect(await snapshot(ctx, org.id)).toEqual(before);
  });

  it("sets an emoji (clearing the icon), an icon (clearing the emoji), or clears both", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id, { emoji: "📘" });
    const icon = await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { icon: "https://cdn.example.com/icon.png" });
    expect(icon.body.emoji).toBe("");
    expect(icon.body.urls.icon).toBe("https://cdn.example.com/icon.png");
    const emoji = await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { emoji: "🎉" });
    expect(emoji.body.emoji).toBe("🎉");
    expect(emoji.body.urls).not.toHaveProperty("icon");
    await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { icon: "https://cdn.example.com/icon.png" });
    const cleared = await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { emoji: null, icon: null });
    expect(cleared.body.emoji).toBe("");
    expect(cleared.body.urls).not.toHaveProperty("icon");
    const notUrl = await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { icon: "not a url" });
    expect(notUrl.status).toBe(400);
  });
});

describe("DELETE and POST /restore", () => {
  it("soft-deletes: admins still see it with deletedAt and may restore it; everyone else gets 404", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id, { title: "Old" });
    expect((await ctx.anonymous.delete(`/v1/spaces/${space.id}`)).status).toBe(401);
    const denied = await ctx.as(members.read).delete(`/v1/spaces/${space.id}`);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe(`Only admins of space "${space.id}" can delete it.`);

    const res = await ctx.as(owner).delete(`/v1/spaces/${space.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const seen = await ctx.as(owner).get(`/v1/spaces/${space.id}`);
    expect(seen.status).toBe(200);
    expect(seen.body.deletedAt).toMatch(/^\d{4}-/);
    expect(seen.body.permissions).toMatchObject({ view: true, admin: true, edit: false, access: false });
    expect((await ctx.as(members.read).get(`/v1/spaces/${space.id}`)).status).toBe(404);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/spaces`)).body.count).toBe(0);

    const patch = await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { title: "x" });
    expect(patch.status).toBe(404);
    expect(patch.body.error.message).toBe(`Space "${space.id}" is deleted; restore it first with POST /v1/spaces/${space.id}/restore.`);
    expect((await ctx.as(owner).post(`/v1/spaces/${space.id}/duplicate`)).status).toBe(404);
    expect((await ctx.as(owner).delete(`/v1/spaces/${space.id}`)).status).toBe(204);
    expect((await ctx.as(members.read).post(`/v1/spaces/${space.id}/restore`)).status).toBe(404);

    const restored = await ctx.as(owner).post(`/v1/spaces/${space.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).not.toHaveProperty("deletedAt");
    expect(restored.body.permissions).toEqual(ALL_TRUE);
    const again = await ctx.as(owner).post(`/v1/spaces/${space.id}/restore`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe(`Space "${space.id}" is not deleted; there is nothing to restore.`);
  });

  it("answers 204 for missing spaces and for spaces the caller cannot see, touching nothing", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id);
    expect((await ctx.as(owner).delete("/v1/spaces/missing")).status).toBe(204);
    const before = await snapshot(ctx, org.id);
    expect((await ctx.as(outsider).delete(`/v1/spaces/${space.id}`)).status).toBe(204);
    expect((await ctx.as(members.guest).delete(`/v1/spaces/${space.id}`)).status).toBe(204);
    expect(await snapshot(ctx, org.id)).toEqual(before);
  });

  it("refuses to restore after 7 days with 400", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id);
    await ctx.as(owner).delete(`/v1/spaces/${space.id}`);
    await backdateDeletion(ctx, space.id, 8);
    const res = await ctx.as(owner).post(`/v1/spaces/${space.id}/restore`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(
      new RegExp(
        `^Space "${space.id}" was deleted on .+, more than 7 days ago; only spaces deleted in the last 7 days can be restored\\.$`,
      ),
    );
    await backdateDeletion(ctx, space.id, 6);
    expect((await ctx.as(owner).post(`/v1/spaces/${space.id}/restore`)).status).toBe(200);
  });

  it("restores a space back into its collection, at the end when its place was taken", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const collection = await createCollection(ctx, owner, org.id);
    const a = await createSpace(ctx, owner, org.id, { parent: collection.id, title: "A" });
    await ctx.as(owner).delete(`/v1/spaces/${a.id}`);
    // The key A held is free again, so the next space created takes it.
    const b = await createSpace(ctx, owner, org.id, { parent: collection.id, title: "B" });
    const restored = await ctx.as(owner).post(`/v1/spaces/${a.id}/restore`);
    expect(restored.body.parent).toBe(collection.id);
    const list = await ctx.as(owner).get(`/v1/collections/${collection.id}/spaces`);
    expect(list.body.items.map((s: { id: string }) => s.id)).toEqual([b.id, a.id]);
  });
});

describe("POST /v1/spaces/{spaceId}/duplicate", () => {
  it("creates a copy right after the original, sharing its content tree, with the same settings and grants", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const collection = await createCollection(ctx, owner, org.id);
    const first = await createSpace(ctx, owner, org.id, { parent: collection.id, title: "x".repeat(50), emoji: "📘" });
    const last = await createSpace(ctx, owner, org.id, { parent: collection.id, title: "Last" });
    await ctx.as(owner).patch(`/v1/spaces/${first.id}`, { language: "de", editMode: "locked", defaultLevel: "read" });
    await grant(ctx, owner, { space: first.id }, "review", { users: [members.guest.id] });
    await ctx.db
      .updateTable("revisions")
      .set({ treeHash: "t".repeat(64) })
      .where("id", "=", first.revision)
      .execute();

    expect((await ctx.anonymous.post(`/v1/spaces/${first.id}/duplicate`)).status).toBe(401);
    const res = await ctx.as(owner).post(`/v1/spaces/${first.id}/duplicate`);
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://quire.test/v1/spaces/${res.body.id}`);
    expect(res.body.title).toBe(`${"x".repeat(43)} (copy)`);
    expect(res.body.title).toHaveLength(50);
    expect(res.body).toMatchObject({ emoji: "📘", language: "de", editMode: "locked", defaultLevel: "read", parent: collection.id });
    expect(res.body.revision).not.toBe(first.revision);
    const revision = await ctx.db.selectFrom("revisions").selectAll().where("id", "=", res.body.revision).executeTakeFirstOrThrow();
    expect(revision).toMatchObject({ spaceId: res.body.id, type: "edits", parents: "[]", treeHash: "t".repeat(64) });
    const order = await ctx.as(owner).get(`/v1/collections/${collection.id}/spaces`);
    expect(order.body.items.map((s: { id: string }) => s.id)).toEqual([first.id, res.body.id, last.id]);
    expect((await ctx.as(members.guest).get(`/v1/spaces/${res.body.id}`)).body.permissions.review).toBe(true);
  });

  it("needs create rights where the copy goes; outsiders get 404", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id, { title: "Docs" });
    const before = await snapshot(ctx, org.id);
    const reader = await ctx.as(members.read).post(`/v1/spaces/${space.id}/duplicate`);
    expect(reader.status).toBe(403);
    expect((await ctx.as(outsider).post(`/v1/spaces/${space.id}/duplicate`)).status).toBe(404);
    expect(await snapshot(ctx, org.id)).toEqual(before);
    const creator = await ctx.as(members.create).post(`/v1/spaces/${space.id}/duplicate`);
    expect(creator.status).toBe(201);
    expect(creator.body.permissions.admin).toBe(true);
  });
});

describe("POST /v1/spaces/{spaceId}/move", () => {
  it("moves into a collection next to a sibling, and back to the top level", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const collection = await createCollection(ctx, owner, org.id);
    const inside = await createSpace(ctx, owner, org.id, { parent: collection.id });
    const space = await createSpace(ctx, owner, org.id);
    expect((await ctx.anonymous.post(`/v1/spaces/${space.id}/move`, { parent: null })).status).toBe(401);
    const res = await ctx.as(owner).post(`/v1/spaces/${space.id}/move`, {
      parent: collection.id,
      position: { before: { type: "space", space: inside.id } },
    });
    expect(res.status).toBe(200);
    expect(res.body.parent).toBe(collection.id);
    const list = await ctx.as(owner).get(`/v1/collections/${collection.id}/spaces`);
    expect(list.body.items.map((s: { id: string }) => s.id)).toEqual([space.id, inside.id]);
    const back = await ctx
      .as(owner)
      .post(`/v1/spaces/${space.id}/move`, { parent: null, position: { after: { type: "collection", collection: collection.id } } });
    expect(back.status).toBe(200);
    expect(back.body).not.toHaveProperty("parent");
  });

  it("answers 400 for an invalid position, 404 for an unknown parent, 409 for no change, 403 for readers", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const collection = await createCollection(ctx, owner, org.id);
    const inside = await createSpace(ctx, owner, org.id, { parent: collection.id });
    const space = await createSpace(ctx, owner, org.id);
    const before = await snapshot(ctx, org.id);

    const empty = await ctx.as(owner).post(`/v1/spaces/${space.id}/move`, {});
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toBe("Give `parent`, `position` or both.");
    const invalid = await ctx.as(owner).post(`/v1/spaces/${space.id}/move`, { position: { after: { type: "space", space: inside.id } } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toBe(`Invalid position: space "${inside.id}" is not in the top level of the organization.`);
    const wrongType = await ctx.as(owner).post(`/v1/spaces/${space.id}/move`, { position: { after: { type: "page", page: "p" } } });
    expect(wrongType.body.error.message).toBe('body.position.after.type must be one of: "space", "collection".');
    const unknown = await ctx.as(owner).post(`/v1/spaces/${space.id}/move`, { parent: "nope" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('No collection with id "nope" in this organization.');
    const other = await createOrgWithRoles(ctx);
    const foreign = await createCollection(ctx, other.owner, other.org.id);
    expect((await ctx.as(owner).post(`/v1/spaces/${space.id}/move`, { parent: foreign.id })).status).toBe(404);
    const same = await ctx.as(owner).post(`/v1/spaces/${space.id}/move`, { parent: null });
    expect(same.status).toBe(409);
    expect(same.body.error.message).toBe("The space is already at this position in the top level of the organization; nothing to change.");
    const reader = await ctx.as(members.read).post(`/v1/spaces/${space.id}/move`, { parent: collection.id });
    expect(reader.status).toBe(403);
    expect(reader.body.error.message).toBe(`Only admins of space "${space.id}" can move it.`);
    expect(await snapshot(ctx, org.id)).toEqual(before);
  });
});

describe("POST /v1/spaces/{spaceId}/transfer", () => {
  async function twoOrgs() {
    const a = await createOrgWithRoles(ctx);
    const b = await createOrganization(ctx, a.owner, "Target");
    return { ...a, target: b };
  }

  it("moves a space to another organization, dropping its grants", async () => {
    const { org, owner, members, target } = await twoOrgs();
    const space = await createSpace(ctx, owner, org.id);
    await grant(ctx, owner, { space: space.id }, "edit", { users: [members.guest.id] });
    expect((await ctx.anonymous.post(`/v1/spaces/${space.id}/transfer`, { organization: target.id })).status).toBe(401);
    const res = await ctx.as(owner).post(`/v1/spaces/${space.id}/transfer`, { organization: target.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ organization: target.id, permissions: { admin: true } });
    expect(res.body).not.toHaveProperty("parent");
    expect(await ctx.db.selectFrom("grants").selectAll().where("targetId", "=", space.id).execute()).toEqual([]);
    expect((await ctx.as(members.guest).get(`/v1/spaces/${space.id}`)).status).toBe(404);
    const listed = await ctx.as(owner).get(`/v1/orgs/${target.id}/spaces`);
    expect(listed.body.items.map((s: { id: string }) => s.id)).toEqual([space.id]);
  });

  it("moves a space into a collection of the same organization, keeping grants", async () => {
    const { org, owner, members } = await twoOrgs();
    const collection = await createCollection(ctx, owner, org.id);
    const space = await createSpace(ctx, owner, org.id);
    await grant(ctx, owner, { space: space.id }, "edit", { users: [members.guest.id] });
    const res = await ctx.as(owner).post(`/v1/spaces/${space.id}/transfer`, { organization: org.id, collection: collection.id });
    expect(res.status).toBe(200);
    expect(res.body.parent).toBe(collection.id);
    expect((await ctx.as(members.guest).get(`/v1/spaces/${space.id}`)).status).toBe(200);
  });

  it("answers 409 for no change, 412 with Git sync, 404 for unknown targets, 403 for readers", async () => {
    const { org, owner, members, target } = await twoOrgs();
    const space = await createSpace(ctx, owner, org.id);
    const before = await snapshot(ctx, org.id);
    const same = await ctx.as(owner).post(`/v1/spaces/${space.id}/transfer`, { organization: org.id });
    expect(same.status).toBe(409);
    expect(same.body.error.message).toBe(`Space "${space.id}" is already there; the transfer would change nothing.`);
    const unknown = await ctx.as(owner).post(`/v1/spaces/${space.id}/transfer`, { organization: "nowhere" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('No organization with id "nowhere" that you are a member of.');
    const foreignCollection = await createCollection(ctx, owner, target.id);
    const mismatch = await ctx
      .as(owner)
      .post(`/v1/spaces/${space.id}/transfer`, { organization: org.id, collection: foreignCollection.id });
    expect(mismatch.status).toBe(404);
    expect(mismatch.body.error.message).toBe(`No collection with id "${foreignCollection.id}" in this organization.`);
    const reader = await ctx.as(members.read).post(`/v1/spaces/${space.id}/transfer`, { organization: target.id });
    expect(reader.status).toBe(403);
    const missing = await ctx.as(owner).post(`/v1/spaces/${space.id}/transfer`, {});
    expect(missing.body.error.message).toBe("body.organization is required.");
    expect(await snapshot(ctx, org.id)).toEqual(before);

    // An admin of the space who is only a reader of the target organization may not put content there.
    await addMemberToOrg(ctx, target.id, members.admin, "read");
    const readerThere = await ctx.as(members.admin).post(`/v1/spaces/${space.id}/transfer`, { organization: target.id });
    expect(readerThere.status).toBe(403);

    await configureGitSync(ctx, space.id);
    const synced = await ctx.as(owner).post(`/v1/spaces/${space.id}/transfer`, { organization: target.id });
    expect(synced.status).toBe(412);
    expect(synced.body.error.message).toBe(
      `Space "${space.id}" cannot be transferred to another organization while Git sync is configured on it. Remove its Git sync first.`,
    );
    // Within the organization, Git sync is no obstacle.
    const collection = await createCollection(ctx, owner, org.id);
    expect((await ctx.as(owner).post(`/v1/spaces/${space.id}/transfer`, { organization: org.id, collection: collection.id })).status).toBe(
      200,
    );
  });
});

describe("GET /v1/orgs/{organizationId}/members/{userId}/spaces", () => {
  it("lists the spaces a member can access with that member's level; admins list anyone's", async () => {
    const { org, owner, members, outsider } = await createOrgWithRoles(ctx);
    const a = await createSpace(ctx, owner, org.id, { title: "A" });
    await nextMillisecond();
    const b = await createSpace(ctx, owner, org.id, { title: "B" });
    const hidden = await createSpace(ctx, owner, org.id, { title: "Hidden" });
    await ctx.as(owner).patch(`/v1/spaces/${hidden.id}`, { defaultLevel: null });
    await grant(ctx, owner, { space: b.id }, "review", { users: [members.read.id] });
    const url = `/v1/orgs/${org.id}/members/${members.read.id}/spaces`;
    expect((await ctx.anonymous.get(url)).status).toBe(401);

    const res = await ctx.as(owner).get(url);
    expect(res.status).toBe(200);
    // Newest first by default.
    expect(res.body.items.map((i: { space: { id: string } }) => i.space.id)).toEqual([b.id, a.id]);
    expect(res.body.items.map((i: { permission: string }) => i.permission)).toEqual(["review", "read"]);
    // `space.permissions` are the caller's (the owner's), not the member's.
    expect(res.body.items[0].space.permissions.admin).toBe(true);
    const asc = await ctx.as(members.read).get(`${url}?order=asc`);
    expect(asc.body.items.map((i: { space: { id: string } }) => i.space.id)).toEqual([a.id, b.id]);
    expect(asc.body.items[1].space.permissions).toMatchObject({ review: true, admin: false });

    const other = await ctx.as(members.edit).get(url);
    expect(other.status).toBe(403);
    expect(other.body.error.message).toBe("Only organization admins can list the spaces of another member.");
    expect((await ctx.as(outsider).get(url)).status).toBe(404);
    const notMember = await ctx.as(owner).get(`/v1/orgs/${org.id}/members/${outsider.id}/spaces`);
    expect(notMember.status).toBe(404);
    expect(notMember.body.error.message).toBe(`No member with id "${outsider.id}" in organization "${org.id}".`);
    const badOrder = await ctx.as(owner).get(`${url}?order=newest`);
    expect(badOrder.body.error.message).toBe('query parameter "order" must be one of: "asc", "desc".');
    const guest = await ctx.as(owner).get(`/v1/orgs/${org.id}/members/${members.guest.id}/spaces`);
    expect(guest.body).toEqual({ items: [], count: 0 });
  });
});
