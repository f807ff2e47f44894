/**
 * The rate limiter's counts in Redis (REDIS_URL), made so that a Redis that is down, unreachable
 * or hung costs requests nothing: they go on unlimited (as with every store, see rate-limit.ts).
 *
 * - Every command has a deadline (`redisTimeoutMs`), connecting too (at least a second), and no
 *   command waits for a connection: with the offline queue off, a command while disconnected fails
 *   at once instead of waiting for a reconnection that may never come.
 * - A circuit: once a command failed, commands are not sent for `redisRetryMs`; then one request
 *   tries again (the others keep skipping until it answers). A hung server that accepts commands
 *   and never answers thus costs one request one deadline per interval, not every request.
 * - An outage is logged once when it starts and once when Redis answers again (a reconnection or
 *   a command that succeeds), never per request or per reconnection attempt.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";

type StoreCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** INCR with the window's expiry set by the first count: [count, ms left in the window]. */
const INCR = `
local current = redis.call('INCR', KEYS[1])
if current == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return {current, tonumber(ARGV[1])}
end
return {current, redis.call('PTTL', KEYS[1])}`;

/** The count without counting: [count, ms left], or [0, 0] when there is no window. */
const READ = `
local current = redis.call('GET', KEYS[1])
if not current then return {0, 0} end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
return {tonumber(current), ttl}`;

/** The client with the two scripts defined (ioredis adds them as methods; EVALSHA, then EVAL once). */
interface ScriptedRedis extends Redis {
  quireRateLimitIncr(key: string, windowMs: number): Promise<[number, number]>;
  quireRateLimitRead(key: string): Promise<[number, number]>;
}

export class RedisUnavailableError extends Error {}

/** Whether commands go to Redis; one outage at a time, logged once at each end. */
export class RedisCircuit {
  private outageSince: number | undefined;
  private retryAt = 0;
  private probing = false;

  constructor(
    private readonly retryMs: number,
    private readonly log: Logger,
  ) {}

  /** Redis answered the last time it was asked (or has not failed yet). */
  get available(): boolean {
    return this.outageSince === undefined;
  }

  /** Whether a command may be sent now: always while Redis answers; during an outage, one probe per interval. */
  tryAcquire(): boolean {
    if (this.outageSince === undefined) return true;
    if (this.probing || Date.now() < this.retryAt) return false;
    this.probing = true;
    return true;
  }

  failed(err: unknown): void {
    this.probing = false;
    this.retryAt = Date.now() + this.retryMs;
    if (this.outageSince !== undefined) return;
    this.outageSince = Date.now();
    this.log.warn({ err, retryMs: this.retryMs }, "rate limit store (Redis) unavailable: requests are not limited until it answers again");
  }

  succeeded(): void {
    this.probing = false;
    if (this.outageSince === undefined) return;
    const outageSeconds = Math.round((Date.now() - this.outageSince) / 1000);
    this.outageSince = undefined;
    this.log.info({ outageSeconds }, "rate limit store (Redis) answers again: requests are limited again");
  }
}

export interface RedisStoreHandle {
  /** The store for @fastify/rate-limit (its constructor returns this object). */
  store: RedisStore;
  circuit: RedisCircuit;
  /** "ok" when Redis answers a PING now (or, during an outage before the next try is due, "unavailable" at once). */
  health(): Promise<"ok" | "unavailable">;
  close(): Promise<void>;
}

/** Counts in Redis under the keys the limiter gives (already prefixed). */
export class RedisStore {
  constructor(
    private readonly redis: ScriptedRedis,
    private readonly circuit: RedisCircuit,
  ) {}

  incr(key: string, callback: StoreCallback, timeWindow: number): void {
    this.run(() => this.redis.quireRateLimitIncr(key, timeWindow), callback);
  }

  read(key: string, callback: StoreCallback): void {
    this.run(() => this.redis.quireRateLimitRead(key), callback);
  }

  child(): RedisStore {
    return this;
  }

  private run(command: () => Promise<[number, number]>, callback: StoreCallback): void {
    if (!this.circuit.tryAcquire()) {
      callback(new RedisUnavailableError("Redis is skipped until its next try"));
      return;
    }
    command().then(
      ([current, ttl]) => {
        this.circuit.succeeded();
        callback(null, { current: Number(current), ttl: Math.max(0, Number(ttl)) });
      },
      (err: Error) => {
        this.circuit.failed(err);
        callback(err);
      },
    );
  }
}

/**
 * Connects to Redis (waiting at most the connection deadline for the first answer, so that the
 * first requests do not count an outage that is only a connection still being made).
 */
export async function openRedisStore(
  url: string,
  settings: { redisTimeoutMs: number; redisRetryMs: number },
  log: Logger,
): Promise<RedisStoreHandle> {
  // Loaded only when counts live in Redis (~25 MB otherwise unused).
  const { Redis } = await import("ioredis");
  const connectTimeout = Math.max(1000, settings.redisTimeoutMs);
  const client = new Redis(url, {
    connectTimeout,
    commandTimeout: settings.redisTimeoutMs,
    // A command fails rather than waits: for a connection (offline queue), or for a reconnection (retries).
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Reconnect forever, at most every two seconds: the outage ends by itself when Redis is back.
    retryStrategy: (times) => Math.min(times * 100, 2000),
  }) as ScriptedRedis;
  client.defineCommand("quireRateLimitIncr", { numberOfKeys: 1, lua: INCR });
  client.defineCommand("quireRateLimitRead", { numberOfKeys: 1, lua: READ });
  const circuit = new RedisCircuit(settings.redisRetryMs, log);
  // Every failed connection attempt is an "error": the circuit logs the first of an outage only.
  client.on("error", (err) => circuit.failed(err));
  client.on("ready", () => circuit.succeeded());

  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off("ready", done);
      client.off("error", done);
      resolve();
    };
    const timer = setTimeout(() => {
      if (client.status !== "ready") circuit.failed(new Error(`no answer from Redis within ${connectTimeout} ms`));
      done();
    }, connectTimeout);
    client.once("ready", done);
    client.once("error", done);
  });

  return {
    store: new RedisStore(client, circuit),
    circuit,
    async health() {
      if (!circuit.tryAcquire()) return "unavailable";
      try {
        await client.ping();
        circuit.succeeded();
        return "ok";
      } catch (err) {
        circuit.failed(err);
        return "unavailable";
      }
    },
    async close() {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
