/**
 * The permission rules of docs/permissions.md as a matrix: every role of an organization (plus an
 * outsider) against every operation on spaces, collections and their permissions, with the
 * expected status, and the data unchanged whenever an operation is refused. Then the inheritance
 * cases: grants on parent collections, team grants, default levels, guests, role caps. Sites,
 * share links, preview, publishing, customization, translations and ping have their own matrix,
 * permissions.sites.matrix.test.ts (route by route, from the application's route table).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestResponse, type TestUser } from "../../test/helpers/app.js";
import { createOrgWithRoles } from "../../test/helpers/factories.js";
import { createCollection, createSpace, createTeam, grant, setDefaultLevel, snapshot } from "../../test/helpers/spaces.factories.js";

let ctx: TestContext;
let fixture: Awaited<ReturnType<typeof createOrgWithRoles>>;
beforeAll(async () => {
  ctx = await createTestContext();
  fixture = await createOrgWithRoles(ctx);
});
afterAll(() => ctx.close());

const ROLES = ["admin", "create", "review", "edit", "comment", "read", "guest", "outsider"] as const;
type Who = (typeof ROLES)[number];

/** Expected status per role; "noop" = 204 with nothing changed (DELETE of what the caller cannot see). */
type Row = Record<Who, number | "noop">;
const row = (
  admin: number,
  create: number,
  review: number,
  edit: number,
  comment: number,
  read: number,
  guest: number | "noop",
  outsider: number | "noop",
): Row => ({
  admin,
  create,
  review,
  edit,
  comment,
  read,
  guest,
  outsider,
});

function user(who: Who): TestUser {
  return who === "outsider" ? fixture.outsider : fixture.members[who];
}

interface Operation {
  name: string;
  expected: Row;
  /** Creates fresh objects for one call, as the owner. */
  arrange?(): Promise<Record<string, string>>;
  /** The call under test, as `caller`. */
  act(caller: TestUser, ids: Record<string, string>): Promise<TestResponse>;
}

const org = () => fixture.org.id;
const owner = () => fixture.owner;
const newSpace = (body: Record<string, unknown> = {}) => createSpace(ctx, owner(), org(), body);
const newCollection = (body: Record<string, unknown> = {}) => createCollection(ctx, owner(), org(), body);
const aSpace = async () => ({ space: (await newSpace()).id });
const aCollection = async () => ({ collection: (await newCollection()).id });

const operations: Operation[] = [
  {
    name: "get a space",
    expected: row(200, 200, 200, 200, 200, 200, 404, 404),
    arrange: aSpace,
    act: (caller, { space }) => ctx.as(caller).get(`/v1/spaces/${space}`),
  },
  {
    name: "list the organization's spaces",
    expected: row(200, 200, 200, 200, 200, 200, 200, 404),
    act: (caller) => ctx.as(caller).get(`/v1/orgs/${org()}/spaces`),
  },
  {
    name: "update a space",
    expected: row(200, 403, 403, 403, 403, 403, 404, 404),
    arrange: aSpace,
    act: (caller, { space }) => ctx.as(caller).patch(`/v1/spaces/${space}`, { title: "Renamed" }),
  },
  {
    name: "delete a space",
    expected: row(204, 403, 403, 403, 403, 403, "noop", "noop"),
    arrange: aSpace,
    act: (caller, { space }) => ctx.as(caller).delete(`/v1/spaces/${space}`),
  },
  {
    name: "restore a deleted space",
    expected: row(200, 404, 404, 404, 404, 404, 404, 404),
    arrange: async () => {
      const ids = await aSpace();
      await ctx.as(owner()).delete(`/v1/spaces/${ids.space}`);
      return ids;
    },
    act: (caller, { space }) => ctx.as(caller).post(`/v1/spaces/${space}/restore`),
  },
  {
    name: "duplicate a space",
    expected: row(201, 201, 403, 403, 403, 403, 404, 404),
    arrange: aSpace,
    act: (caller, { space }) => ctx.as(caller).post(`/v1/spaces/${space}/duplicate`),
  },
  {
    name: "move a space into a collection",
    expected: row(200, 403, 403, 403, 403, 403, 404, 404),
    arrange: async () => ({ ...(await aSpace()), ...(await aCollection()) }),
    act: (caller, { space, collection }) => ctx.as(caller).post(`/v1/spaces/${space}/move`, { parent: collection }),
  },
  {
    name: "transfer a space into a collection",
    expected: row(200, 403, 403, 403, 403, 403, 404, 404),
    arrange: async () => ({ ...(await aSpace()), ...(await aCollection()) }),
    act: (caller, { space, collection }) => ctx.as(caller).post(`/v1/spaces/${space}/transfer`, { organization: org(), collection }),
  },
  {
    name: "create a space at the top level",
    expected: row(201, 201, 403, 403, 403, 403, 403, 404),
    act: (caller) => ctx.as(caller).post(`/v1/orgs/${org()}/spaces`, { title: "New" }),
  },
  {
    name: "create a space inside a collection",
    expected: row(201, 201, 403, 403, 403, 403, 404, 404),
    arrange: aCollection,
    act: (caller, { collection }) => ctx.as(caller).post(`/v1/orgs/${org()}/spaces`, { parent: collection }),
  },
  {
    name: "create a collection inside a collection",
    expected: row(201, 201, 403, 403, 403, 403, 404, 404),
    arrange: aCollection,
    act: (caller, { collection }) => ctx.as(caller).post(`/v1/orgs/${org()}/collections`, { parent: collection }),
  },
  {
    name: "get a collection",
    expected: row(200, 200, 200, 200, 200, 200, 404, 404),
    arrange: aCollection,
    act: (caller, { collection }) => ctx.as(caller).get(`/v1/collections/${collection}`),
  },
  {
    name: "list a collection's spaces",
    expected: row(200, 200, 200, 200, 200, 200, 404, 404),
    arrange: aCollection,
    act: (caller, { collection }) => ctx.as(caller).get(`/v1/collections/${collection}/spaces`),
  },
  {
    name: "update a collection",
    expected: row(200, 403, 403, 403, 403, 403, 404, 404),
    arrange: aCollection,
    act: (caller, { collection }) => ctx.as(caller).patch(`/v1/collections/${collection}`, { description: "d" }),
  },
  {
    name: "delete a collection",
    expected: row(204, 403, 403, 403, 403, 403, "noop", "noop"),
    arrange: aCollection,
    act: (caller, { collection }) => ctx.as(caller).delete(`/v1/collections/${collection}`),
  },
  {
    name: "move a collection into another",
    expected: row(200, 403, 403, 403, 403, 403, 404, 404),
    arrange: async () => ({ moving: (await newCollection()).id, target: (await newCollection()).id }),
    act: (caller, { moving, target }) => ctx.as(caller).post(`/v1/collections/${moving}/move`, { parent: target }),
  },
  {
    name: "manage a space's permissions",
    expected: row(204, 403, 403, 403, 403, 403, 404, 404),
    arrange: aSpace,
    act: (caller, { space }) => ctx.as(caller).post(`/v1/spaces/${space}/permissions`, { role: "edit", users: [fixture.members.read.id] }),
  },
  {
    name: "list a space's user permissions",
    expected: row(200, 200, 200, 200, 200, 200, 404, 404),
    arrange: aSpace,
    act: (caller, { space }) => ctx.as(caller).get(`/v1/spaces/${space}/permissions/users`),
  },
  {
    name: "list who can access a space",
    expected: row(200, 200, 200, 200, 200, 200, 404, 404),
    arrange: aSpace,
    act: (caller, { space }) => ctx.as(caller).get(`/v1/spaces/${space}/permissions/aggregate`),
  },
  {
    name: "manage a collection's permissions",
    expected: row(204, 403, 403, 403, 403, 403, 404, 404),
    arrange: aCollection,
    act: (caller, { collection }) =>
      ctx.as(caller).post(`/v1/collections/${collection}/permissions`, { role: "read", users: [fixture.members.guest.id] }),
  },
  {
    name: "remove a user's grant on a collection",
    expected: row(204, 403, 403, 403, 403, 403, 404, 404),
    arrange: async () => {
      const ids = await aCollection();
      await grant(ctx, owner(), { collection: ids.collection }, "read", { users: [fixture.members.comment.id] });
      return ids;
    },
    act: (caller, { collection }) => ctx.as(caller).delete(`/v1/collections/${collection}/permissions/users/${fixture.members.comment.id}`),
  },
  {
    name: "list one's own spaces as a member",
    expected: row(200, 200, 200, 200, 200, 200, 200, 404),
    act: (caller) => ctx.as(caller).get(`/v1/orgs/${org()}/members/${caller.id}/spaces`),
  },
];

describe("permission matrix: role x operation", () => {
  for (const operation of operations) {
    it(operation.name, async () => {
      const actual: Partial<Record<Who, number | "noop">> = {};
      for (const who of ROLES) {
        const ids = (await operation.arrange?.()) ?? {};
        const before = await snapshot(ctx, org());
        const res = await operation.act(user(who), ids);
        const expected = operation.expected[who];
        actual[who] = expected === "noop" && res.status === 204 ? "noop" : res.status;
        // A refused call, or a DELETE of what the caller cannot see, leaves the data as it was.
        if (res.status >= 400 || expected === "noop") {
          expect(await snapshot(ctx, org()), `${operation.name} as ${who} changed data`).toEqual(before);
        }
      }
      expect(actual).toEqual(operation.expected);
    });
  }
});

describe("inheritance", () => {
  /**
   * The caller's exact level on a space, as the owner sees it in the member's space list (the
   * same resolver as the member's own requests), checked against what the member's own GET says.
   */
  async function levelOf(caller: TestUser, spaceId: string): Promise<string> {
    const listed = await ctx.as(owner()).get(`/v1/orgs/${org()}/members/${caller.id}/spaces?limit=1000`);
    const item = listed.body.items.find((i: { space: { id: string } }) => i.space.id === spaceId);
    const own = await ctx.as(caller).get(`/v1/spaces/${spaceId}`);
    expect(own.status, "GET agrees with the member's space list").toBe(item ? 200 : 404);
    if (item) expect(own.body.permissions.admin).toBe(item.permission === "admin");
    return item?.permission ?? "none";
  }

  it("a grant on a parent collection reaches the spaces and collections inside it, at any depth", async () => {
    const { members } = fixture;
    const outer = await newCollection();
    const inner = await newCollection({ parent: outer.id });
    const space = await newSpace({ parent: inner.id });
    const outside = await newSpace();
    await grant(ctx, owner(), { collection: outer.id }, "review", { users: [members.read.id] });
    expect(await levelOf(members.read, space.id)).toBe("review");
    expect(await levelOf(members.read, outside.id)).toBe("read");
    expect((await ctx.as(members.read).get(`/v1/collections/${inner.id}`)).body.permissions).toMatchObject({ view: true, create: false });
    // Moving the space out of the collection takes the inherited grant away.
    await ctx.as(owner()).post(`/v1/spaces/${space.id}/move`, { parent: null });
    expect(await levelOf(members.read, space.id)).toBe("read");
  });

  it("a grant to a team applies to its members, guests included", async () => {
    const { members, org: o } = fixture;
    const team = await createTeam(ctx, o.id, [members.guest, members.comment]);
    const space = await newSpace();
    expect(await levelOf(members.guest, space.id)).toBe("none");
    await grant(ctx, owner(), { space: space.id }, "edit", { teams: [team.id] });
    expect(await levelOf(members.guest, space.id)).toBe("edit");
    expect(await levelOf(members.comment, space.id)).toBe("edit");
    expect(await levelOf(members.read, space.id)).toBe("read");
  });

  it("defaultLevel null gives members nothing; a level caps them; inherit follows the parent collection", async () => {
    const { members } = fixture;
    const collection = await newCollection();
    const space = await newSpace({ parent: collection.id });
    // Inherit up to the organization: each member's own role.
    expect(await levelOf(members.edit, space.id)).toBe("edit");
    await setDefaultLevel(ctx, owner(), { collection: collection.id }, "comment");
    expect(await levelOf(members.edit, space.id)).toBe("comment");
    expect(await levelOf(members.read, space.id)).toBe("read");
    expect(await levelOf(members.admin, space.id)).toBe("admin");
    await setDefaultLevel(ctx, owner(), { space: space.id }, "review");
    expect(await levelOf(members.edit, space.id)).toBe("edit");
    expect(await levelOf(members.create, space.id)).toBe("review");
    await setDefaultLevel(ctx, owner(), { space: space.id }, null);
    expect(await levelOf(members.create, space.id)).toBe("none");
    expect(await levelOf(members.admin, space.id)).toBe("admin");
    await setDefaultLevel(ctx, owner(), { collection: collection.id }, null);
    await setDefaultLevel(ctx, owner(), { space: space.id }, "inherit");
    expect(await levelOf(members.read, space.id)).toBe("none");
  });

  it("the organization role caps a default level; a grant is not capped", async () => {
    const { members } = fixture;
    const space = await newSpace();
    await setDefaultLevel(ctx, owner(), { space: space.id }, "admin");
    expect(await levelOf(members.create, space.id)).toBe("create");
    expect((await ctx.as(members.create).get(`/v1/spaces/${space.id}`)).body.permissions.admin).toBe(false);
    expect(await levelOf(members.read, space.id)).toBe("read");
    await grant(ctx, owner(), { space: space.id }, "admin", { users: [members.read.id] });
    expect(await levelOf(members.read, space.id)).toBe("admin");
  });

  it("a guest gets exactly what is granted, never a default", async () => {
    const { members } = fixture;
    const space = await newSpace();
    await setDefaultLevel(ctx, owner(), { space: space.id }, "edit");
    expect(await levelOf(members.guest, space.id)).toBe("none");
    await grant(ctx, owner(), { space: space.id }, "comment", { users: [members.guest.id] });
    expect(await levelOf(members.guest, space.id)).toBe("comment");
    // The higher of a grant and a default wins for members.
    await grant(ctx, owner(), { space: space.id }, "read", { users: [members.edit.id] });
    expect(await levelOf(members.edit, space.id)).toBe("edit");
  });

  it("locked spaces withhold edit, merge and Git sync at every level", async () => {
    const space = await newSpace({ editMode: "locked" });
    const admin = await ctx.as(fixture.members.admin).get(`/v1/spaces/${space.id}`);
    expect(admin.body.permissions).toMatchObject({ admin: true, review: true, edit: false, merge: false, triggerGitSync: false });
  });
});
