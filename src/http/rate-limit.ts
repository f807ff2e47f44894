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
import { normalizeIP } from "@fastify/rate-limit";
import LocalStore from "@fastify/rate-limit/store/LocalStore.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { RateLimitConfig } from "../config.js";
import type { Db } from "../db/database.js";
import { bearerHashOf, registerBearer } from "./bearer.js";
import { HttpError } from "./errors.js";
import { BatchedDatabaseStore, WriteThroughDatabaseStore } from "./rate-limit-database.js";
import { registerRouteOptions, routeOptionsOf } from "./route-options.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** A published site's page reads: counted against `perReaderAddress` (isPageRead). */
    reader?: boolean;
  }
  interface FastifyRequest {
    /** The client's address as the limits count it (IPv6 by /64), once worked out. */
    rateLimitAddress: string | null;
    /** The verdict of the request's address budget. */
    rateLimitAddressVerdict: Verdict | null;
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

type StoreCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** A store of counts as @fastify/rate-limit defines them (its in-memory one, redis-store.ts, rate-limit-database.ts). */
interface CountStore {
  incr(key: string, callback: StoreCallback, timeWindow: number, max: number): void;
  read(key: string, callback: StoreCallback, timeWindow: number, max: number): void;
}

/**
 * Counts (or, with `increment` false, reads) a key's requests of the window against `max`: the
 * verdict at once when the store answers synchronously, else a promise of it. A store that fails
 * counts nothing and refuses nothing (as @fastify/rate-limit's `skipOnError`).
 */
function counter(store: CountStore, max: number, timeWindow: number) {
  const verdictOf = (error: Error | null, result?: { current: number; ttl: number }): Verdict => {
    const current = error || !result ? 0 : result.current;
    const ttl = error || !result ? 0 : result.ttl;
    return { max, remaining: Math.max(0, max - current), ttlInSeconds: Math.ceil(ttl / 1000), isExceeded: current > max };
  };
  if (store instanceof LocalStore) {
    // In memory the store answers before it returns: one callback for every call, and no promise.
    let answered: Verdict | undefined;
    const answer: StoreCallback = (error, result) => void (answered = verdictOf(error, result));
    return (key: string, increment = true): Verdict => {
      answered = undefined;
      if (increment) store.incr(key, answer, timeWindow, max);
      else store.read(key, answer, timeWindow, max);
      // (It always does; were it not to, nothing is counted, as for a store that fails.)
      return answered ?? verdictOf(null);
    };
  }
  return (key: string, increment = true): Verdict | Promise<Verdict> => {
    let verdict: Verdict | undefined;
    let resolve: ((verdict: Verdict) => void) | undefined;
    const answer: StoreCallback = (error, result) => {
      verdict = verdictOf(error, result);
      resolve?.(verdict);
    };
    if (increment) store.incr(key, answer, timeWindow, max);
    else store.read(key, answer, timeWindow, max);
    return verdict ?? new Promise<Verdict>((done) => (resolve = done));
  };
}

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
  let store: CountStore | undefined = redis?.store;
  if (settings.store === "database") {
    if (settings.syncMs === 0) store = new WriteThroughDatabaseStore(db, log);
    else {
      const batched = new BatchedDatabaseStore(db, log, settings.windowMs, settings.syncMs);
      app.addHook("onClose", () => batched.close());
      store = batched;
    }
  }
  const timeWindow = settings.windowMs;
  // One counter per budget. In memory, @fastify/rate-limit's own store (an LRU of 50,000 keys each).
  const storeOf = (): CountStore => store ?? new LocalStore(false, false, 50_000);
  const perAddress = counter(storeOf(), settings.perAddress, timeWindow);
  const perReaderAddress = counter(storeOf(), settings.perReaderAddress, timeWindow);
  const perAskAddress = counter(storeOf(), settings.perAskAddress, timeWindow);
  const perToken = counter(storeOf(), settings.perToken, timeWindow);
  const authFailures = counter(storeOf(), settings.authFailures, timeWindow);
  const prefix = store ? settings.keyPrefix : "";
  const circuit = redis?.circuit;
  const seconds = Math.round(timeWindow / 1000);
  registerBearer(app);
  registerRouteOptions(app);
  // The client's address as counted (IPv6 by /64), and its verdict (for the headers of a 401, which drop the refused token's).
  app.decorateRequest("rateLimitAddress", null);
  app.decorateRequest("rateLimitAddressVerdict", null);
  // normalizeIP lower-cases what is not an IPv6 address (which always holds a colon) and rewrites
  // what is: its IPv6 test, a long regular expression, is skipped for the others.
  const addressOf = (request: FastifyRequest): string =>
    (request.rateLimitAddress ??= request.ip.includes(":") ? normalizeIP(request.ip) : request.ip.toLowerCase());

  /** Refuses the request when its address has failed authentication too often. */
  const checkFailures = (reply: FastifyReply, failures: Verdict): void => {
    if (failures.remaining > 0) return;
    setHeaders(reply, failures);
    refuse(
      reply,
      failures,
      `Too many failed authentications from this address (${failures.max} per ${seconds} s); retry in ${failures.ttlInSeconds} s.`,
    );
  };

  /** Reports the tightest of the request's budgets, and refuses it when one is exceeded. */
  const judge = (
    request: FastifyRequest,
    reply: FastifyReply,
    reading: boolean,
    address: Verdict,
    asked?: Verdict,
    token?: Verdict,
  ): void => {
    request.rateLimitAddressVerdict = address;
    const verdicts: [Verdict, string][] = [[address, reading ? "this address's page reads" : "this address"]];
    if (asked) verdicts.push([asked, "this address's questions"]);
    if (token) verdicts.push([token, "this API token"]);
    // Nothing was counted while Redis is skipped: no limit to report.
    if (circuit && !circuit.available) return;
    const [verdict, subject] = tightest(verdicts);
    setHeaders(reply, verdict);
    if (verdict.isExceeded) {
      refuse(reply, verdict, `Too many requests for ${subject} (${verdict.max} per ${seconds} s); retry in ${verdict.ttlInSeconds} s.`);
    }
  };

  /** Counts the request against each of its budgets: at once when the stores answer at once, else a promise. */
  const count = (request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined => {
    const address = addressOf(request);
    const reading = isPageRead(request);
    const counted = (reading ? perReaderAddress : perAddress)(`${prefix}${reading ? "reader-address" : "address"}:${address}`);
    const asked = isQuestion(request) ? perAskAddress(`${prefix}ask-address:${address}`) : undefined;
    const hash = bearerHashOf(request);
    const token = hash === undefined ? undefined : perToken(`${prefix}token:${hash.slice(0, 32)}`);
    if (counted instanceof Promise || asked instanceof Promise || token instanceof Promise) {
      return Promise.all([counted, asked, token]).then(([c, a, t]) => judge(request, reply, reading, c, a, t));
    }
    judge(request, reply, reading, counted, asked, token);
    return undefined;
  };

  /** Authenticated routes first check the address's failed authentications, then count. */
  const limit = (request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined => {
    if (routeOptionsOf(request).config?.public || !request.url.startsWith("/v1")) return count(request, reply);
    const failures = authFailures(`${prefix}auth-failures:${addressOf(request)}`, false);
    if (failures instanceof Promise) {
      return failures.then((verdict) => {
        checkFailures(reply, verdict);
        return count(request, reply);
      });
    }
    checkFailures(reply, failures);
    return count(request, reply);
  };

  // Callback style, with no promise when the stores answer at once (in memory, or a batched
  // database store that knows the key): an async hook and a promise per budget cost more than the counting.
  app.addHook("onRequest", (request, reply, done) => {
    const query = request.url.indexOf("?");
    if (UNLIMITED_PATHS.has(query < 0 ? request.url : request.url.slice(0, query))) return done();
    let pending: Promise<void> | undefined;
    try {
      pending = limit(request, reply);
    } catch (error) {
      return done(error as Error);
    }
    if (pending) pending.then(() => done(), done);
    else done();
  });

  const reportFailure = (request: FastifyRequest, reply: FastifyReply, failures: Verdict): void => {
    if (circuit && !circuit.available) return;
    // The token was refused, so its budget means nothing: what limits this client now is the
    // failed authentications left to its address (or the address's own limit, when tighter).
    const candidates: [Verdict, string][] = [[failures, "failed authentications"]];
    const address = request.rateLimitAddressVerdict;
    if (address) candidates.push([address, "this address"]);
    setHeaders(reply, tightest(candidates)[0]);
  };
  app.addHook("onSend", (request, reply, payload, done) => {
    if (reply.statusCode !== 401) return done(null, payload);
    const failures = authFailures(`${prefix}auth-failures:${addressOf(request)}`);
    if (!(failures instanceof Promise)) {
      reportFailure(request, reply, failures);
      return done(null, payload);
    }
    failures.then((verdict) => {
      reportFailure(request, reply, verdict);
      done(null, payload);
    }, done);
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
  if (!routeOptionsOf(request).config?.reader) return false;
  const [path, query = ""] = request.url.split("?", 2) as [string, string?];
  if (SITE_WORK.test(path)) return false;
  const params = new URLSearchParams(query);
  return !params.has("q") && !params.has("ask");
}

/** A question asked of a published site: its Ask stream (`~quire/ask`) or a page's Markdown with `?ask=`. */
function isQuestion(request: FastifyRequest): boolean {
  if (!routeOptionsOf(request).config?.reader) return false;
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

function setHeaders(reply: FastifyReply, verdict: Verdict): void {
  reply.header("x-ratelimit-limit", verdict.max);
  reply.header("x-ratelimit-remaining", verdict.remaining);
  reply.header("x-ratelimit-reset", Math.ceil(Date.now() / 1000) + verdict.ttlInSeconds);
}

function refuse(reply: FastifyReply, verdict: Verdict, message: string): never {
  reply.header("retry-after", Math.max(1, verdict.ttlInSeconds));
  throw new HttpError(429, message);
}
