import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createOrgWithRoles } from "../../../test/helpers/factories.js";
import { backdateDeletion, createSpace, grant } from "../../../test/helpers/spaces.factories.js";
import { enqueue } from "../../jobs/queue.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe("purge-deleted-spaces job", () => {
  it("removes spaces deleted more than 7 days ago with their grants, revisions and Git redirects, and keeps recent ones", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const old = await createSpace(ctx, owner, org.id, { title: "Old" });
    const recent = await createSpace(ctx, owner, org.id, { title: "Recent" });
    await grant(ctx, owner, { space: old.id }, "edit", { users: [members.read.id] });
    // Kept .gitbook.yaml redirects go with their space (a foreign key; the purge does not name them).
    await ctx.db
      .insertInto("gitRedirects")
      .values([
        { spaceId: old.id, fromPath: "old/path", pageId: "page1" },
        { spaceId: recent.id, fromPath: "old/path", pageId: "page2" },
      ])
      .execute();
    for (const space of [old, recent]) expect((await ctx.as(owner).delete(`/v1/spaces/${space.id}`)).status).toBe(204);
    await backdateDeletion(ctx, old.id, 8);
    await backdateDeletion(ctx, recent.id, 6);

    await enqueue(ctx.db, "purge-deleted-spaces", {});
    expect(await ctx.worker.drain()).toBe(1);

    expect(await ctx.db.selectFrom("spaces").select("id").where("id", "=", old.id).executeTakeFirst()).toBeUndefined();
    expect(await ctx.db.selectFrom("grants").select("targetId").where("targetId", "=", old.id).execute()).toEqual([]);
    expect(await ctx.db.selectFrom("revisions").select("id").where("spaceId", "=", old.id).execute()).toEqual([]);
    expect(await ctx.db.selectFrom("gitRedirects").select("spaceId").where("spaceId", "in", [old.id, recent.id]).execute()).toEqual([
      { spaceId: recent.id },
    ]);
    expect((await ctx.as(owner).post(`/v1/spaces/${old.id}/restore`)).status).toBe(404);
    const restored = await ctx.as(owner).post(`/v1/spaces/${recent.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.deletedAt).toBeUndefined();
  });
});
