/**
 * Request limits, counted by @fastify/rate-limit's stores:
 *
 * - every request from a client address counts against that address (`perAddress`; IPv6 by /64);
 * - a request carrying a bearer token also counts against the token (`perToken`);
 * - every 401 counts against the address (`authFailures`); once that count is reached, requests
 *   from the address to authenticated routes answer 429 until the window ends, whatever token
 *   they carry (guessing tokens from one address is slowed to `authFailures` tries per window).
 *
 * Answers carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (UTC epoch
 * seconds, as GitBook documents) for the tightest limit; a refused request gets 429 with
 * `Retry-After` (seconds) and the usual `{"error": {...}}` body. /healthz and /readyz are not limited.
 *
 * Counts live in Redis when REDIS_URL is set (shared by every process), in a database table when
 * the store is `database` (the default on PostgreSQL without Redis: shared by every process using
 * the database), or in this process's memory (the default on SQLite, which one process serves).
 */
import rateLimit, { normalizeIP } from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Redis } from "ioredis";
import { sql } from "kysely";
import type { Logger } from "pino";
import type { RateLimitConfig } from "../config.js";
import type { Db } from "../db/database.js";
import { hashToken } from "../lib/ids.js";
import { HttpError } from "./errors.js";

const UNLIMITED_PATHS = new Set(["/healthz", "/readyz"]);

interface Verdict {
  max: number;
  remaining: number;
  ttlInSeconds: number;
  isExceeded: boolean;
}

type Limiter = (request: FastifyRequest, options?: { increment?: boolean }) => Promise<Verdict | { isAllowed: true }>;

type StoreCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** A store of counts in the `rate_limits` table: one upsert per count, on SQLite or PostgreSQL. */
export class DatabaseStore {
  private lastSweep = 0;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  incr(key: string, callback: StoreCallback, timeWindow: number): void {
    const now = Date.now();
    const resetAt = now + timeWindow;
    sql<{ hits: number; resetAt: number | string }>`
      insert into rate_limits (key, hits, reset_at) values (${key}, 1, ${resetAt})
      on conflict (key) do update set
        hits = case when rate_limits.reset_at <= ${now} then 1 else rate_limits.hits + 1 end,
        reset_at = case when rate_limits.reset_at <= ${now} then ${resetAt} else rate_limits.reset_at end
      returning hits, reset_at`
      .execute(this.db)
      .then((result) => {
        const row = result.rows[0];
        if (!row) throw new Error("rate limit upsert returned no row");
        callback(null, { current: Number(row.hits), ttl: Math.max(0, Number(row.resetAt) - now) });
        this.sweep(now);
      }, callback);
  }

  read(key: string, callback: StoreCallback): void {
    const now = Date.now();
    this.db
      .selectFrom("rateLimits")
      .select(["hits", "resetAt"])
      .where("key", "=", key)
      .executeTakeFirst()
      .then((row) => {
        const resetAt = row ? Number(row.resetAt) : 0;
        callback(null, row && resetAt > now ? { current: Number(row.hits), ttl: resetAt - now } : { current: 0, ttl: 0 });
      }, callback);
  }

  child(): DatabaseStore {
    return this;
  }

  /** Deletes ended windows, at most once a minute per process. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    this.db
      .deleteFrom("rateLimits")
      .where("resetAt", "<", now)
      .execute()
      .catch((err) => this.log.warn({ err }, "could not delete ended rate limit windows"));
  }
}

export async function registerRateLimits(app: FastifyInstance, settings: RateLimitConfig, db: Db, log: Logger): Promise<void> {
  if (!settings.enabled) return;
  let redis: Redis | undefined;
  if (settings.store === "redis" && settings.redisUrl) {
    // Loaded only when counts live in Redis (~25 MB otherwise unused).
    const { Redis } = await import("ioredis");
    const client = new Redis(settings.redisUrl, { maxRetriesPerRequest: 1 });
    redis = client;
    let lastWarning = 0;
    client.on("error", (err) => {
      // Logged at most once a minute: a Redis outage would otherwise log on every reconnection.
      if (Date.now() - lastWarning < 60_000) return;
      lastWarning = Date.now();
      log.warn({ err }, "rate limit store (Redis) unavailable: requests are not limited meanwhile");
    });
    app.addHook("onClose", async () => {
      await client.quit().catch(() => client.disconnect());
    });
  }
  const databaseStore = settings.store === "database" ? new DatabaseStore(db, log) : undefined;
  await app.register(rateLimit, {
    global: false,
    // An unavailable store lets requests through (logged above) rather than refusing every request.
    skipOnError: true,
    ...(redis ? { redis, nameSpace: settings.keyPrefix } : {}),
    // The plugin instantiates `store` with `new`: a function returning an object gives that object.
    ...(databaseStore
      ? {
          store: function DatabaseStoreOfApp() {
            return databaseStore;
          } as never,
        }
      : {}),
  });

  const prefix = settings.store === "database" ? settings.keyPrefix : "";
  const timeWindow = settings.windowMs;
  // Entries of each in-memory store (typed options omit it; the plugin reads it).
  const cache = { cache: 50_000 } as object;
  const addressOf = (request: FastifyRequest) => normalizeIP(request.ip);
  const perAddress = app.createRateLimit({
    max: settings.perAddress,
    timeWindow,
    ...cache,
    keyGenerator: (request) => `${prefix}address:${addressOf(request)}`,
  }) as Limiter;
  const perToken = app.createRateLimit({
    max: settings.perToken,
    timeWindow,
    ...cache,
    keyGenerator: (request) => `${prefix}token:${hashToken(bearerOf(request) ?? "").slice(0, 32)}`,
  }) as Limiter;
  const authFailures = app.createRateLimit({
    max: settings.authFailures,
    timeWindow,
    ...cache,
    keyGenerator: (request) => `${prefix}auth-failures:${addressOf(request)}`,
  }) as Limiter;
  const seconds = Math.round(timeWindow / 1000);

  app.addHook("onRequest", async (request, reply) => {
    if (UNLIMITED_PATHS.has(request.url.split("?", 1)[0] ?? "")) return;
    if (!request.routeOptions.config?.public && request.url.startsWith("/v1")) {
      const failures = await authFailures(request, { increment: false });
      if ("max" in failures && failures.remaining <= 0) {
        setHeaders(reply, failures);
        refuse(
          reply,
          failures,
          `Too many failed authentications from this address (${failures.max} per ${seconds} s); retry in ${failures.ttlInSeconds} s.`,
        );
      }
    }
    const verdicts: [Verdict, string][] = [];
    const address = await perAddress(request);
    if ("max" in address) verdicts.push([address, "this address"]);
    if (bearerOf(request)) {
      const token = await perToken(request);
      if ("max" in token) verdicts.push([token, "this API token"]);
    }
    if (verdicts.length === 0) return;
    // The tightest limit is the one reported (and the first one exceeded, the one refused).
    const [verdict, subject] = verdicts.reduce((a, b) =>
      b[0].isExceeded && !a[0].isExceeded ? b : b[0].remaining < a[0].remaining && a[0].isExceeded === b[0].isExceeded ? b : a,
    );
    setHeaders(reply, verdict);
    if (verdict.isExceeded) {
      refuse(reply, verdict, `Too many requests for ${subject} (${verdict.max} per ${seconds} s); retry in ${verdict.ttlInSeconds} s.`);
    }
  });

  app.addHook("onSend", async (request, reply, payload) => {
    if (reply.statusCode === 401) await authFailures(request);
    return payload;
  });
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function setHeaders(reply: FastifyReply, verdict: Verdict): void {
  reply.header("x-ratelimit-limit", verdict.max);
  reply.header("x-ratelimit-remaining", verdict.remaining);
  reply.header("x-ratelimit-reset", Math.ceil(Date.now() / 1000) + verdict.ttlInSeconds);
}

function refuse(reply: FastifyReply, verdict: Verdict, message: string): never {
  reply.header("retry-after", Math.max(1, verdict.ttlInSeconds));
  throw new HttpError(429, message);
}
