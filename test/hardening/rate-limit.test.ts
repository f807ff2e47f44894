/**
 * Rate limits (issue 14, item 4): per token and per address, stricter on failed authentication,
 * GitBook's headers, 429 with Retry-After in the usual error shape; counts shared between
 * processes through Redis (REDIS_URL) and through the database store.
 */
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { loadConfig, type RateLimitConfig } from "../../src/config.js";
import { randomBase62 } from "../../src/lib/ids.js";
import { createTestContext, type TestContext } from "../helpers/app.js";
import { createUser } from "../helpers/factories.js";

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

  it("shares counts between two processes through the database store", async () => {
    const ctx = await limitedContext({ perToken: 4, store: "database" });
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
    const ctx = await limitedContext({ perToken: 1, store: "database" });
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

afterAll(async () => {
  for (const ctx of contexts.splice(0)) await ctx.close();
});
