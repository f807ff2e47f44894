/**
 * Two Quire processes on one PostgreSQL database (here, two apps in this process, each with its own
 * pool and change feed): what one keeps in memory is retired when the other changes the rows it
 * came from, a revoked token, a removed member, a changed grant and a deleted space included; and a
 * warm authenticated read runs few statements. The delays seen are reported, not asserted (a loaded
 * machine must not fail a test); the test waits up to 10 s.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../test/helpers/app.js";
import { createOrgWithSpace, grant, setDefaultLevel } from "../../test/helpers/spaces.factories.js";
import { buildApp } from "../app.js";
import type { Deps } from "../deps.js";
import { type DatabaseHandle, openDatabase, tableVersionsOf } from "./database.js";

const onPostgres = process.env.QUIRE_TEST_DIALECT === "postgres";

describe.skipIf(!onPostgres)("the change feed between two processes on PostgreSQL", () => {
  let ctx: TestContext;
  let other: DatabaseHandle;
  let second: Awaited<ReturnType<typeof buildApp>>;

  beforeAll(async () => {
    ctx = await createTestContext();
    other = openDatabase({ databaseUrl: ctx.database.location.databaseUrl as string, poolSize: 3 });
    const deps: Deps = { ...ctx.deps, db: other.db };
    second = await buildApp(deps);
    await second.ready();
    for (let waited = 0; !tableVersionsOf(other.db)?.listening && waited < 10_000; waited += 10)
      await new Promise((r) => setTimeout(r, 10));
  });
  afterAll(async () => {
    await second?.close();
    await other?.destroy();
    await ctx?.close();
  });

  const getSpace = (token: string, spaceId: string) =>
    second.inject({ method: "GET", url: `/v1/spaces/${spaceId}`, headers: { authorization: `Bearer ${token}` } });

  /** Waits until the second process answers `status`; returns how long that took after the change. */
  async function seenWithin(token: string, spaceId: string, status: number): Promise<number> {
    const started = performance.now();
    await expect.poll(async () => (await getSpace(token, spaceId)).statusCode, { timeout: 10_000, interval: 5 }).toBe(status);
    return Math.round(performance.now() - started);
  }

  it("refuses a token revoked by another process", async () => {
    const { members, space } = await createOrgWithSpace(ctx);
    expect((await getSpace(members.read.token, space.id)).statusCode).toBe(200);
    expect((await getSpace(members.read.token, space.id)).statusCode).toBe(200);
    await ctx.db.updateTable("apiTokens").set({ revokedAt: new Date().toISOString() }).where("userId", "=", members.read.id).execute();
    console.log(`revoked token refused by the other process after ${await seenWithin(members.read.token, space.id, 401)} ms`);
  });

  it("forgets a member removed, a grant changed and a space deleted by another process", async () => {
    const { org, owner, members, space } = await createOrgWithSpace(ctx);
    expect((await getSpace(members.read.token, space.id)).statusCode).toBe(200);
    const removed = await ctx.as(owner).delete(`/v1/orgs/${org.id}/members/${members.read.id}`);
    expect(removed.status, removed.text).toBe(204);
    console.log(`removed member refused after ${await seenWithin(members.read.token, space.id, 404)} ms`);

    // Grants: the space closed to the organization's members (no default level), then a direct grant.
    expect((await getSpace(members.comment.token, space.id)).statusCode).toBe(200);
    await setDefaultLevel(ctx, owner, { space: space.id }, null);
    console.log(`space closed to members: refused after ${await seenWithin(members.comment.token, space.id, 404)} ms`);
    await grant(ctx, owner, { space: space.id }, "comment", { users: [members.comment.id] });
    console.log(`direct grant: admitted after ${await seenWithin(members.comment.token, space.id, 200)} ms`);

    // A deleted space: the other process shows it deleted as this one does.
    const deletedAt = async (via: "here" | "there") => {
      const res =
        via === "here"
          ? (await ctx.as(owner).get(`/v1/spaces/${space.id}`)).body
          : JSON.parse((await getSpace(owner.token, space.id)).body);
      return (res as { deletedAt?: string }).deletedAt ?? null;
    };
    expect(await deletedAt("there")).toBeNull();
    expect((await ctx.as(owner).delete(`/v1/spaces/${space.id}`)).status).toBe(204);
    const here = await deletedAt("here");
    expect(here).toEqual(expect.any(String));
    const started = performance.now();
    await expect.poll(() => deletedAt("there"), { timeout: 10_000, interval: 5 }).toBe(here);
    console.log(`deleted space shown deleted after ${Math.round(performance.now() - started)} ms`);
  });

  it("answers a warm authenticated read with fewer statements than a cold one", async () => {
    const { members, space } = await createOrgWithSpace(ctx);
    let statements = 0;
    const query = pg.Client.prototype.query;
    const counting = function (this: pg.Client, ...args: unknown[]) {
      statements++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const count = async (run: () => Promise<unknown>) => {
      statements = 0;
      pg.Client.prototype.query = counting;
      try {
        await run();
      } finally {
        pg.Client.prototype.query = query;
      }
      return statements;
    };
    // The setup's writes come back through the feed as notifications for a moment: let them pass.
    const versions = tableVersionsOf(other.db) as NonNullable<ReturnType<typeof tableVersionsOf>>;
    for (let seen = -1, waited = 0; waited < 10_000 && versions.changes !== seen; waited += 100) {
      seen = versions.changes;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const cold = await count(() => getSpace(members.read.token, space.id));
    const warm = await count(() => getSpace(members.read.token, space.id));
    console.log(`GET /v1/spaces/{id} on PostgreSQL: ${cold} statements cold, ${warm} warm`);
    expect(warm).toBeLessThan(cold);
    expect(warm).toBeLessThanOrEqual(1);
  });
});
