/**
 * The rate limiter with its counts in Redis when Redis goes away: requests go on (unlimited,
 * without limit headers) instead of waiting on Redis, the outage is logged once and /readyz says
 * `"redis": "unavailable"` (200: degraded, still serving), and counting resumes when Redis is back.
 * Against a redis-server this file starts, stops and freezes on a port of its own, a port where
 * nothing listens, and a socket that accepts connections and never answers.
 */
import net from "node:net";
import { Redis } from "ioredis";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig, type RateLimitConfig } from "../../src/config.js";
import { randomBase62 } from "../../src/lib/ids.js";
import { createTestContext, type TestContext } from "../helpers/app.js";
import { createUser } from "../helpers/factories.js";
import { freePort } from "../helpers/ports.js";
import { type RedisServer, startRedisServer } from "../helpers/redis-server.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface LogLine {
  level: number;
  msg: string;
}

async function redisContext(redisUrl: string, limits: Partial<RateLimitConfig> = {}) {
  const lines: LogLine[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
  const ctx = await createTestContext({
    log,
    config: {
      rateLimit: {
        ...loadConfig({}).rateLimit,
        store: "redis",
        redisUrl,
        perToken: 1000,
        perAddress: 1000,
        authFailures: 1000,
        windowMs: 60_000,
        keyPrefix: `quire-test:${randomBase62(10)}:`,
        redisTimeoutMs: 300,
        ...limits,
      },
    },
  });
  cleanups.push(() => ctx.close());
  const logged = (pattern: RegExp) => lines.filter((l) => pattern.test(l.msg));
  return {
    ctx,
    outages: () => logged(/Redis\) unavailable/),
    recoveries: () => logged(/Redis\) answers again/),
  };
}

async function redisServer(): Promise<RedisServer> {
  const server = await startRedisServer();
  cleanups.push(() => server.stop());
  return server;
}

/** Requests as `token`: every one answered 200, none waiting on Redis, none reporting a limit (nothing is counted). */
async function servedUnlimited(ctx: TestContext, token: string, count: number) {
  for (let i = 0; i < count; i++) {
    const res = await ctx.as(token).get("/v1/user");
    expect(res.status).toBe(200);
    expect(res.headers["x-ratelimit-remaining"]).toBeUndefined();
  }
}

async function readiness(ctx: TestContext) {
  const res = await ctx.anonymous.get("/readyz");
  return { status: res.status, body: res.body };
}

describe("counts in Redis when Redis goes away", () => {
  it("a redis-server stopped then started again: served unlimited meanwhile, logged once each way, reported on /readyz", async () => {
    const server = await redisServer();
    const { ctx, outages, recoveries } = await redisContext(server.url, { redisRetryMs: 200 });
    const user = await createUser(ctx);
    const first = await ctx.as(user).get("/v1/user");
    expect(first.headers["x-ratelimit-remaining"]).toBe("999");
    expect(await readiness(ctx)).toEqual({ status: 200, body: { status: "ready", redis: "ok" } });

    await server.stop();
    await servedUnlimited(ctx, user.token, 10);
    expect(await readiness(ctx)).toEqual({ status: 200, body: { status: "degraded", redis: "unavailable" } });
    await servedUnlimited(ctx, user.token, 10);
    expect(outages()).toHaveLength(1);
    expect(recoveries()).toHaveLength(0);

    await server.start();
    // The client reconnects by itself (at most two seconds apart).
    for (let i = 0; i < 300 && (await readiness(ctx)).body.redis !== "ok"; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await readiness(ctx)).toEqual({ status: 200, body: { status: "ready", redis: "ok" } });
    // Counted again, in the new (empty) server.
    const again = await ctx.as(user).get("/v1/user");
    expect(again.headers["x-ratelimit-remaining"]).toBe("999");
    expect(outages()).toHaveLength(1);
    expect(recoveries()).toHaveLength(1);
  });

  it("a port where nothing listens: served unlimited from the start, logged once, reported on /readyz", async () => {
    const { ctx, outages } = await redisContext(`redis://127.0.0.1:${await freePort()}`);
    const user = await createUser(ctx);
    await servedUnlimited(ctx, user.token, 10);
    expect(await readiness(ctx)).toEqual({ status: 200, body: { status: "degraded", redis: "unavailable" } });
    await servedUnlimited(ctx, user.token, 10);
    expect(await readiness(ctx)).toEqual({ status: 200, body: { status: "degraded", redis: "unavailable" } });
    expect(outages()).toHaveLength(1);
  });

  it("a socket that accepts connections and never answers: requests do not wait on it", async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => {
      sockets.push(socket);
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const port = (silent.address() as net.AddressInfo).port;
    const { ctx, outages } = await redisContext(`redis://127.0.0.1:${port}`);
    const user = await createUser(ctx);
    await servedUnlimited(ctx, user.token, 10);
    expect(await readiness(ctx)).toEqual({ status: 200, body: { status: "degraded", redis: "unavailable" } });
    // The client did reach the socket (this is not a refused connection).
    expect(sockets.length).toBeGreaterThan(0);
    expect(outages()).toHaveLength(1);
  }, 60_000);

  it("a redis-server that hangs (SIGSTOP): after one command timed out, requests skip Redis until the next try", async () => {
    const server = await redisServer();
    // The next try is far away: every request below finds the circuit open.
    const { ctx, outages } = await redisContext(server.url, { redisRetryMs: 3_600_000 });
    const user = await createUser(ctx);
    for (let i = 0; i < 2; i++) expect((await ctx.as(user).get("/v1/user")).status).toBe(200);

    server.freeze();
    await servedUnlimited(ctx, user.token, 10);
    expect(await readiness(ctx)).toEqual({ status: 200, body: { status: "degraded", redis: "unavailable" } });
    server.thaw();
    expect(outages()).toHaveLength(1);

    // What the frozen server received is now executed: only the command that timed out (a read of
    // the failed authentications), none of the ten requests' counts.
    const redis = new Redis(server.url);
    try {
      const prefix = ctx.config.rateLimit.keyPrefix;
      const keys = (await redis.keys(`${prefix}*`)).sort();
      expect(keys.map((k) => k.slice(prefix.length).replace(/:.*/, ""))).toEqual(["address", "token"]);
      for (const key of keys) expect(await redis.get(key)).toBe("2");
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});
