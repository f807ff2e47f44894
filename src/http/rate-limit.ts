/**
 * Request limits, counted by @fastify/rate-limit's stores:
 *
 * - every request from a client address counts against that address (`perAddress`; IPv6 by /64),
 *   except a published site's page reads (`perReaderAddress`, larger: see isPageRead);
 * - questions asked of a published site (Ask) also count against a budget of their own per address
 *   (`perAskAddress`, much smaller: each reads the index and may call a language model);
 * - a request carrying a bearer token also counts against the token (`perToken`);
 * - every 401 counts against the address (`authFailures`); once that count is reached, requests
 *   from the address to authenticated routes answer 429 until the window ends, whatever token
 *   they carry (guessing tokens from one address is slowed to `authFailures` tries per window).
 *
 * Answers carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (UTC epoch
 * seconds, as GitBook documents) for the tightest limit (on a 401, of the address's failed
 * authentications and the address: the refused token's own count means nothing); a refused request gets 429 with
 * `Retry-After` (seconds) and the usual `{"error": {...}}` body. /healthz and /readyz are not limited.
 *
 * Counts live in Redis when REDIS_URL is set (shared by every process), in a database table when
 * the store is `database` (the default on PostgreSQL without Redis: shared by every process using
 * the database, written in batches: rate-limit-database.ts), or in this process's memory (the
 * default on SQLite, which one process serves).
 * A store that fails lets requests through unlimited rather than refusing them; Redis fails fast
 * and is skipped for a while after a failure (redis-store.ts), and answers then carry no limit
 * headers, since nothing is counted.
 */
import rateLimit, { normalizeIP } from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { RateLimitConfig } from "../config.js";
import type { Db } from "../db/database.js";
import { hashToken } from "../lib/ids.js";
import { HttpError } from "./errors.js";
import { BatchedDatabaseStore, WriteThroughDatabaseStore } from "./rate-limit-database.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** A published site's page reads: counted against `perReaderAddress` (isPageRead). */
    reader?: boolean;
  }
}

import { openRedisStore, type RedisStoreHandle } from "./redis-store.js";

const UNLIMITED_PATHS = new Set(["/healthz", "/readyz"]);

interface Verdict {
  max: number;
  remaining: number;
  ttlInSeconds: number;
  isExceeded: boolean;
}

type Limiter = (request: FastifyRequest, options?: { increment?: boolean }) => Promise<Verdict | { isAllowed: true }>;

/** What the limiter tells the readiness check. */
export interface RateLimits {
  /** With counts in Redis: whether it answers (see redis-store.ts); degraded, not down, when it does not. */
  redisHealth?: () => Promise<"ok" | "unavailable">;
}

export async function registerRateLimits(app: FastifyInstance, settings: RateLimitConfig, db: Db, log: Logger): Promise<RateLimits> {
  if (!settings.enabled) return {};
  let redis: RedisStoreHandle | undefined;
  if (settings.store === "redis" && settings.redisUrl) {
    const handle = await openRedisStore(settings.redisUrl, settings, log);
    redis = handle;
    app.addHook("onClose", () => handle.close());
  }
  let store: object | undefined = redis?.store;
  if (settings.store === "database") {
    if (settings.syncMs === 0) store = new WriteThroughDatabaseStore(db, log);
    else {
      const batched = new BatchedDatabaseStore(db, log, settings.windowMs, settings.syncMs);
      app.addHook("onClose", () => batched.close());
      store = batched;
    }
  }
  await app.register(rateLimit, {
    global: false,
    // An unavailable store lets requests through (logged by the store) rather than refusing every request.
    skipOnError: true,
    // The plugin instantiates `store` with `new`: a function returning an object gives that object.
    ...(store
      ? {
          store: function StoreOfApp() {
            return store;
          } as never,
        }
      : {}),
  });

  const prefix = store ? settings.keyPrefix : "";
  const circuit = redis?.circuit;
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
  const perReaderAddress = app.createRateLimit({
    max: settings.perReaderAddress,
    timeWindow,
    ...cache,
    keyGenerator: (request) => `${prefix}reader-address:${addressOf(request)}`,
  }) as Limiter;
  const perAskAddress = app.createRateLimit({
    max: settings.perAskAddress,
    timeWindow,
    ...cache,
    keyGenerator: (request) => `${prefix}ask-address:${addressOf(request)}`,
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
  // The address's verdict of each request, for the headers of a 401 (which drop the refused token's).
  const addressVerdicts = new WeakMap<FastifyRequest, Verdict>();

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
    const reading = isPageRead(request);
    const address = await (reading ? perReaderAddress : perAddress)(request);
    if ("max" in address) {
      verdicts.push([address, reading ? "this address's page reads" : "this address"]);
      addressVerdicts.set(request, address);
    }
    if (isQuestion(request)) {
      const asked = await perAskAddress(request);
      if ("max" in asked) verdicts.push([asked, "this address's questions"]);
    }
    if (bearerOf(request)) {
      const token = await perToken(request);
      if ("max" in token) verdicts.push([token, "this API token"]);
    }
    // Nothing was counted while Redis is skipped: no limit to report.
    if (verdicts.length === 0 || (circuit && !circuit.available)) return;
    const [verdict, subject] = tightest(verdicts);
    setHeaders(reply, verdict);
    if (verdict.isExceeded) {
      refuse(reply, verdict, `Too many requests for ${subject} (${verdict.max} per ${seconds} s); retry in ${verdict.ttlInSeconds} s.`);
    }
  });

  app.addHook("onSend", async (request, reply, payload) => {
    if (reply.statusCode !== 401) return payload;
    const failures = await authFailures(request);
    if (circuit && !circuit.available) return payload;
    // The token was refused, so its budget means nothing: what limits this client now is the
    // failed authentications left to its address (or the address's own limit, when tighter).
    if ("max" in failures) {
      const candidates: [Verdict, string][] = [[failures, "failed authentications"]];
      const address = addressVerdicts.get(request);
      if (address) candidates.push([address, "this address"]);
      setHeaders(reply, tightest(candidates)[0]);
    }
    return payload;
  });

  return redis ? { redisHealth: redis.health } : {};
}

/** Paths of a site's own endpoints that cost more than a page read (searching, rendering, answering). */
const SITE_WORK = /\/~quire\/(search|pdf|mcp|feedback|ask)\b/;

/**
 * A read of a published site's pages (its routes say `reader` in their config): GET or HEAD, not
 * its search, PDFs, MCP or feedback, nor a question (`?q=`, `?ask=`).
 */
function isPageRead(request: FastifyRequest): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  if (!request.routeOptions.config?.reader) return false;
  const [path, query = ""] = request.url.split("?", 2) as [string, string?];
  if (SITE_WORK.test(path)) return false;
  const params = new URLSearchParams(query);
  return !params.has("q") && !params.has("ask");
}

/** A question asked of a published site: its Ask stream (`~quire/ask`) or a page's Markdown with `?ask=`. */
function isQuestion(request: FastifyRequest): boolean {
  if (!request.routeOptions.config?.reader) return false;
  const [path, query = ""] = request.url.split("?", 2) as [string, string?];
  if (/\/~quire\/ask\/?$/.test(path)) return true;
  return new URLSearchParams(query).has("ask");
}

/** The tightest limit is the one reported (and the first one exceeded, the one refused). */
function tightest<T>(verdicts: [Verdict, T][]): [Verdict, T] {
  return verdicts.reduce((a, b) =>
    b[0].isExceeded && !a[0].isExceeded ? b : b[0].remaining < a[0].remaining && a[0].isExceeded === b[0].isExceeded ? b : a,
  );
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
