/**
 * Rate limits (issue 14, item 4): per token and per address, stricter on failed authentication,
 * GitBook's headers, 429 with Retry-After in the usual error shape; counts shared between
 * processes through Redis (REDIS_URL) and through the database store.
 */
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { loadConfig, type RateLimitConfig } from "../../src/config.js";
import { BatchedDatabaseStore } from "../../src/http/rate-limit-database.js";
import { randomBase62 } from "../../src/lib/ids.js";
import { createTestContext, type TestContext } from "../helpers/app.js";
import { commitContent } from "../helpers/content.factories.js";
import { createUser } from "../helpers/factories.js";
import { addSection, createSite } from "../helpers/sites.factories.js";
import { createOrgWithSpace } from "../helpers/spaces.factories.js";

const REDIS_URL = process.env.QUIRE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

const contexts: TestContext[] = [];
afterEach(async () => {
  for (const ctx of contexts.splice(0)) await ctx.close();
});

async function limitedContext(limits: Partial<RateLimitConfig>): Promise<TestContext> {
  const ctx = await createTestContext({
    config: {
      rateLimit: {
        ...loadConfig({}).rateLimit,
        store: "memory",
        perToken: 1000,
        perAddress: 1000,
        authFailures: 1000,
        windowMs: 60_000,
        keyPrefix: `quire-test:${randomBase62(10)}:`,
        ...limits,
      },
    },
  });
  contexts.push(ctx);
  return ctx;
}

describe("per token", () => {
  it("answers 429 with Retry-After and the error body once a token's limit is reached; other tokens are unaffected", async () => {
    const ctx = await limitedContext({ perToken: 3 });
    const [alice, bob] = [await createUser(ctx), await createUser(ctx)];
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await ctx.as(alice).get("/v1/user");
      expect(res.status).toBe(200);
      expect(res.headers["x-ratelimit-limit"]).toBe("3");
      remaining.push(String(res.headers["x-ratelimit-remaining"]));
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const before = Math.floor(Date.now() / 1000);
    const refused = await ctx.as(alice).get("/v1/user");
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: { code: 429, message: expect.stringMatching(/^Too many requests for this API token \(3 per 60 s\); retry in \d+ s\.$/) },
    });
    const retryAfter = Number(refused.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers["x-ratelimit-remaining"]).toBe("0");
    // Reset is a UTC epoch time in seconds, within the window.
    const reset = Number(refused.headers["x-ratelimit-reset"]);
    expect(reset).toBeGreaterThanOrEqual(before);
    expect(reset).toBeLessThanOrEqual(before + 61);

    const other = await ctx.as(bob).get("/v1/user");
    expect(other.status).toBe(200);
    expect(other.headers["x-ratelimit-remaining"]).toBe("2");
  });

  it("does not limit /healthz and /readyz", async () => {
    const ctx = await limitedContext({ perAddress: 1 });
    for (let i = 0; i < 3; i++) {
      expect((await ctx.anonymous.get("/healthz")).status).toBe(200);
      expect((await ctx.anonymous.get("/readyz")).status).toBe(200);
    }
  });
});

describe("per address", () => {
  it("counts every request from an address, with or without a token", async () => {
    const ctx = await limitedContext({ perAddress: 2 });
    const user = await createUser(ctx);
    expect((await ctx.anonymous.get("/v1/")).status).toBe(200);
    expect((await ctx.as(user).get("/v1/user")).status).toBe(200);
    const refused = await ctx.anonymous.get("/v1/");
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(/^Too many requests for this address \(2 per 60 s\)/);
    // Another address has its own count.
    const elsewhere = await ctx.app.inject({ method: "GET", url: "/v1/", remoteAddress: "10.1.2.3" });
    expect(elsewhere.statusCode).toBe(200);
  });

  it("gives a published site's page reads a budget of their own; its search and the API count against the address", async () => {
    // The setup's requests come from 127.0.0.1; the crawler's from an address of its own.
    const ctx = await limitedContext({ perAddress: 40, perReaderAddress: 60 });
    const { org, owner, space } = await createOrgWithSpace(ctx);
    await commitContent(ctx, space.id, { pages: [{ title: "Welcome", slug: "welcome", paragraphs: ["Read me."] }] });
    const site = await createSite(ctx, owner, org.id, { title: "Crawled" });
    await addSection(ctx, owner, org.id, site.id, { spaceId: space.id, title: "Guide" });
    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).status).toBe(200);
    const crawler = (url: string) => ctx.app.inject({ method: "GET", url, remoteAddress: "10.9.9.9" });
    const paths = ["/", "/welcome", "/welcome.md", "/llms.txt"].map((p) => `/s/${site.basename}${p}`);
    // More page reads than the address's budget (40): all answered, against the reader budget (60).
    for (let n = 0; n < 45; n++) {
      const read = await crawler(paths[n % paths.length] as string);
      expect(read.statusCode, paths[n % paths.length]).not.toBe(429);
      expect(read.headers["x-ratelimit-limit"]).toBe("60");
    }
    // The address's own budget is untouched by them: the API and the site's search count there.
    for (let n = 0; n < 39; n++) expect((await crawler("/v1/")).statusCode).toBe(200);
    expect((await crawler(`/s/${site.basename}/~quire/search?q=read`)).statusCode).not.toBe(429);
    const refused = await crawler(`/s/${site.basename}/~quire/search?q=me`);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.message).toMatch(/^Too many requests for this address \(40 per 60 s\)/);
    // Page reads go on until their own budget is spent.
    for (let n = 45; n < 60; n++) expect((await crawler(paths[0] as string)).statusCode).not.toBe(429);
    const over = await crawler(paths[1] as string);
    expect(over.statusCode).toBe(429);
    expect(over.json().error.message).toMatch(/^Too many requests for this address's page reads \(60 per 60 s\)/);
  });

  it("gives a published site's questions (Ask) a tighter budget of their own, in the JSON error shape; pages and search go on", async () => {
    const ctx = await limitedContext({ perAddress: 100, perReaderAddress: 200, perAskAddress: 3 });
    const { org, owner, space } = await createOrgWithSpace(ctx);
    await commitContent(ctx, space.id, { pages: [{ title: "Welcome", slug: "welcome", paragraphs: ["Rotate the keys monthly."] }] });
    await ctx.worker.drain();
    const site = await createSite(ctx, owner, org.id, { title: "Asked" });
    await addSection(ctx, owner, org.id, site.id, { spaceId: space.id, title: "Guide" });
    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).status).toBe(200);
    const reader = (url: string) => ctx.app.inject({ method: "GET", url: `/s/${site.basename}${url}`, remoteAddress: "10.7.7.7" });
    // The stream and a page's Markdown with `?ask=` share the budget (3): the fourth question is refused.
    const asked = [
      await reader("/~quire/ask?q=How%20do%20I%20rotate%20the%20keys%3F"),
      await reader("/welcome.md?ask=rotate%20keys"),
      await reader("/~quire/ask?q=rotate"),
    ];
    for (const res of asked) {
      expect(res.statusCode).not.toBe(429);
      expect(res.headers["x-ratelimit-limit"]).toBe("3");
    }
    expect(asked.map((res) => res.headers["x-ratelimit-remaining"])).toEqual(["2", "1", "0"]);
    const refused = await reader("/~quire/ask?q=keys");
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["content-type"]).toMatch(/^application\/json/);
    expect(refused.json()).toEqual({
      error: {
        code: 429,
        message: expect.stringMatching(/^Too many requests for this address's questions \(3 per 60 s\); retry in \d+ s\.$/),
      },
    });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect((await reader("/welcome.md?ask=keys")).statusCode).toBe(429);
    // The same address still reads pages and searches; another address still asks.
    expect((await reader("/welcome")).statusCode).toBe(200);
    expect((await reader("/welcome.md")).statusCode).toBe(200);
    expect((await reader("/~quire/search.json?q=keys")).statusCode).toBe(200);
    const elsewhere = await ctx.app.inject({ method: "GET", url: `/s/${site.basename}/~quire/ask?q=keys`, remoteAddress: "10.8.8.8" });
    expect(elsewhere.statusCode).toBe(200);
  });

  it("is stricter on failed authentication: after N 401s, even a valid token from that address gets 429", async () => {
    const ctx = await limitedContext({ authFailures: 3 });
    const user = await createUser(ctx);
    for (let i = 0; i < 3; i++) {
      const res = await ctx.as(`qr_guess${i}`).get("/v1/user");
      expect(res.status).toBe(401);
    }
    const guess = await ctx.as("qr_guess4").get("/v1/user");
    expect(guess.status).toBe(429);
    expect(guess.body.error.message).toMatch(/^Too many failed authentications from this address \(3 per 60 s\); retry in \d+ s\.$/);
    expect(Number(guess.headers["retry-after"])).toBeGreaterThan(0);
    expect((await ctx.as(user).get("/v1/user")).status).toBe(429);
    // Public routes stay reachable, and another address may still authenticate.
    expect((await ctx.anonymous.get("/v1/")).status).toBe(200);
    const elsewhere = await ctx.app.inject({
      method: "GET",
      url: "/v1/user",
      remoteAddress: "10.9.9.9",
      headers: { authorization: `Bearer ${user.token}` },
    });
    expect(elsewhere.statusCode).toBe(200);
  });

  it("reports the failed-authentication budget on a 401, not the budget of the token that was refused", async () => {
    const ctx = await limitedContext({ perToken: 100, perAddress: 1000, authFailures: 3 });
    const user = await createUser(ctx);
    const budgets: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await ctx.as(`qr_guess${i}`).get("/v1/user");
      expect(res.status).toBe(401);
      budgets.push(`${res.headers["x-ratelimit-limit"]}/${res.headers["x-ratelimit-remaining"]}`);
    }
    expect(budgets).toEqual(["3/2", "3/1"]);
    // An accepted token is shown its own budget again (the tightest of token and address).
    const ok = await ctx.as(user).get("/v1/user");
    expect(ok.status).toBe(200);
    expect(`${ok.headers["x-ratelimit-limit"]}/${ok.headers["x-ratelimit-remaining"]}`).toBe("100/99");
    // Where the address is tighter than the failures left, the 401 shows the address.
    const tight = await limitedContext({ perToken: 100, perAddress: 4, authFailures: 10 });
    const first = await tight.as("qr_guess").get("/v1/user");
    expect(first.status).toBe(401);
    expect(`${first.headers["x-ratelimit-limit"]}/${first.headers["x-ratelimit-remaining"]}`).toBe("4/3");
  });
});

describe("shared stores", () => {
  async function secondApp(ctx: TestContext) {
    const app = await buildApp(ctx.deps);
    await app.ready();
    return app;
  }

  it("shares counts between two processes through Redis (REDIS_URL)", async () => {
    const ctx = await limitedContext({ perToken: 4, store: "redis", redisUrl: REDIS_URL });
    const user = await createUser(ctx);
    const other = await secondApp(ctx);
    try {
      const statuses: number[] = [];
      for (const app of [ctx.app, other, ctx.app, other, ctx.app]) {
        const res = await app.inject({ method: "GET", url: "/v1/user", headers: { authorization: `Bearer ${user.token}` } });
        statuses.push(res.statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
      // The counts are really in Redis, under the configured prefix.
      const redis = new Redis(REDIS_URL);
      try {
        const keys = await redis.keys(`${ctx.config.rateLimit.keyPrefix}*`);
        expect(keys.some((k) => k.includes("token:"))).toBe(true);
        await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
    } finally {
      await other.close();
    }
  });

  it("shares counts between two processes through the database store, written through", async () => {
    const ctx = await limitedContext({ perToken: 4, store: "database", syncMs: 0 });
    const user = await createUser(ctx);
    const other = await secondApp(ctx);
    try {
      const statuses: number[] = [];
      for (const app of [ctx.app, other, ctx.app, other, ctx.app]) {
        const res = await app.inject({ method: "GET", url: "/v1/user", headers: { authorization: `Bearer ${user.token}` } });
        statuses.push(res.statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
      const rows = await ctx.db.selectFrom("rateLimits").selectAll().execute();
      const token = rows.find((r) => r.key.includes("token:"));
      expect(token?.hits).toBe(5);
      expect(Number(token?.resetAt)).toBeGreaterThan(Date.now());
    } finally {
      await other.close();
    }
  });

  it("starts a new window once the previous one ended (database store)", async () => {
    const ctx = await limitedContext({ perToken: 1, store: "database", syncMs: 0 });
    const user = await createUser(ctx);
    expect((await ctx.as(user).get("/v1/user")).status).toBe(200);
    expect((await ctx.as(user).get("/v1/user")).status).toBe(429);
    await ctx.db
      .updateTable("rateLimits")
      .set({ resetAt: Date.now() - 1 })
      .execute();
    expect((await ctx.as(user).get("/v1/user")).status).toBe(200);
  });
});

describe("the database store, batched", () => {
  const tokenRow = async (ctx: TestContext) =>
    (await ctx.db.selectFrom("rateLimits").selectAll().execute()).find((row) => row.key.includes("token:"));

  it("counts in the process and writes the counts later in one statement, exact within the process", async () => {
    // A write interval longer than the test: nothing is written until the app closes.
    const ctx = await limitedContext({ perToken: 4, store: "database", syncMs: 60_000 });
    const user = await createUser(ctx);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await ctx.as(user).get("/v1/user")).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    expect(await ctx.db.selectFrom("rateLimits").selectAll().execute()).toEqual([]);
    await ctx.app.close();
    expect((await tokenRow(ctx))?.hits).toBe(5);
  });

  it("shares counts between processes as of each process's last write", async () => {
    const ctx = await limitedContext({ perToken: 4, store: "database", syncMs: 20 });
    const user = await createUser(ctx);
    const other = await buildApp(ctx.deps);
    await other.ready();
    try {
      const get = async (app: typeof other) =>
        (await app.inject({ method: "GET", url: "/v1/user", headers: { authorization: `Bearer ${user.token}` } })).statusCode;
      expect([await get(ctx.app), await get(ctx.app), await get(ctx.app)]).toEqual([200, 200, 200]);
      // Once the first process wrote its three, the second reads them on its first sight of the token.
      for (let i = 0; i < 500 && (await tokenRow(ctx))?.hits !== 3; i++) await new Promise((r) => setTimeout(r, 20));
      expect((await tokenRow(ctx))?.hits).toBe(3);
      expect([await get(other), await get(other)]).toEqual([200, 429]);
    } finally {
      await other.close();
    }
  });

  it("keeps the counts of a write the database refused for the next write", async () => {
    const ctx = await limitedContext({ perToken: 100, store: "database", syncMs: 60_000 });
    const store = new BatchedDatabaseStore(ctx.db, ctx.deps.log, 60_000, 60_000);
    const incr = (key: string) =>
      new Promise<number>((resolve, reject) => store.incr(key, (error, result) => (error ? reject(error) : resolve(result!.current))));
    expect([await incr("k"), await incr("k")]).toEqual([1, 2]);
    await ctx.db.schema.alterTable("rate_limits").renameTo("rate_limits_away").execute();
    await store.flush();
    await ctx.db.schema.alterTable("rate_limits_away").renameTo("rate_limits").execute();
    expect(await incr("k")).toBe(3);
    await store.close();
    const row = await ctx.db.selectFrom("rateLimits").selectAll().where("key", "=", "k").executeTakeFirst();
    expect(row?.hits).toBe(3);
  });
});

afterAll(async () => {
  for (const ctx of contexts.splice(0)) await ctx.close();
});
