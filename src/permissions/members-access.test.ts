import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../test/helpers/app.js";
import { addMemberToOrg, createOrgWithRoles, createUser } from "../../test/helpers/factories.js";
import { createCollection, createSpace, createTeam, grant } from "../../test/helpers/spaces.factories.js";
import { paginateRows } from "../lib/pagination.js";
import { contentLevel, loadMembersAccess, loadOrgAccess } from "./access.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe("loadMembersAccess", () => {
  it("resolves every member exactly like loadOrgAccess does for that member alone", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const disabled = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, disabled, "edit");
    await ctx.db.updateTable("members").set({ disabled: 1 }).where("userId", "=", disabled.id).execute();
    const team = await createTeam(ctx, org.id, [members.read, members.guest], { owner: members.read });
    const outer = await createCollection(ctx, owner, org.id, { title: "Outer" });
    const inner = await createCollection(ctx, owner, org.id, { title: "Inner", parent: outer.id });
    const space = await createSpace(ctx, owner, org.id, { parent: inner.id });
    await grant(ctx, owner, { collection: outer.id }, "review", { teams: [team.id] });
    await grant(ctx, owner, { space: space.id }, "edit", { users: [members.comment.id] });
    await ctx.as(owner).patch(`/v1/collections/${inner.id}`, { defaultLevel: null });

    const everyone = await loadMembersAccess(ctx.db, org.id);
    expect(everyone.has(disabled.id)).toBe(false);
    for (const user of [owner, ...Object.values(members)]) {
      const single = await loadOrgAccess(ctx.db, user.id, org.id);
      const bulk = everyone.get(user.id);
      expect(bulk, user.displayName).toEqual(single);
      const node = { id: space.id, parentId: inner.id, defaultLevel: "inherit" };
      expect(contentLevel(bulk!, node)).toBe(contentLevel(single, node));
    }
    // Limited to the space and its ancestors, the levels on that space are the same.
    const limited = await loadMembersAccess(ctx.db, org.id, { targetIds: [space.id, inner.id, outer.id] });
    const node = { id: space.id, parentId: inner.id, defaultLevel: "inherit" };
    expect(contentLevel(limited.get(members.guest.id)!, node)).toBe("review");
    expect(contentLevel(limited.get(members.comment.id)!, node)).toBe("edit");
    expect(contentLevel(limited.get(members.create.id)!, node)).toBeNull();
  });
});

describe("paginateRows", () => {
  it("pages in key order with cursors that start strictly after the last item", () => {
    const rows = [
      { at: "b", id: "2" },
      { at: "a", id: "3" },
      { at: "b", id: "1" },
      { at: "c", id: "0" },
    ];
    const keys = [
      { direction: "asc" as const, value: (r: { at: string }) => r.at },
      { direction: "asc" as const, value: (r: { id: string }) => r.id },
    ];
    const first = paginateRows(rows, keys, { limit: 2 });
    expect(first.rows.map((r) => r.id)).toEqual(["3", "1"]);
    expect(first.count).toBe(4);
    const second = paginateRows(rows, keys, { limit: 2, page: first.next?.page });
    expect(second.rows.map((r) => r.id)).toEqual(["2", "0"]);
    expect(second.next).toBeUndefined();
    const desc = paginateRows(
      rows,
      keys.map((k) => ({ ...k, direction: "desc" as const })),
      { limit: 3 },
    );
    expect(desc.rows.map((r) => r.id)).toEqual(["0", "2", "1"]);
    expect(() => paginateRows(rows, keys, { page: "garbage" })).toThrow(/next\.page/);
  });
});
