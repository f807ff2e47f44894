/**
 * Rate limit counts in the database's `rate_limits` table, shared by every process using it.
 *
 * Written through (`syncMs` 0), every counted request costs one upsert. Batched (the default),
 * a process counts in memory and writes what it counted since its last write every `syncMs`, all
 * keys in one statement, learning in return each key's count over every process. A request costs
 * no statement, except the first sight of a key (an address, a token) in this process, which reads
 * its count so far. The price is exactness across processes: a process sees the others' counts as
 * of its last write, so with N processes a limit can be passed by what the other N-1 counted in
 * the last `syncMs` (within one process, counting is exact).
 */
import { sql } from "kysely";
import type { Logger } from "pino";
import type { Db } from "../db/database.js";

type StoreCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** Ended windows are deleted at most this often per process. */
const SWEEP_EVERY_MS = 60_000;
/** Keys a batched store remembers; beyond, keys with nothing left to write are forgotten first. */
const MAX_KEYS = 50_000;
/** Keys written in one statement (keeps the statement's parameters under SQLite's limit). */
const KEYS_PER_STATEMENT = 500;

interface Row {
  key: string;
  hits: number | string;
  resetAt: number | string;
}

/** Writes `deltas` (hits counted since the last write, by key) and answers each key's total. */
async function addHits(db: Db, deltas: [string, number][], windowMs: number): Promise<Row[]> {
  const now = Date.now();
  const resetAt = now + windowMs;
  const values = sql.join(deltas.map(([key, hits]) => sql`(${key}, ${hits}, ${resetAt})`));
  const result = await sql<Row>`
    insert into rate_limits (key, hits, reset_at) values ${values}
    on conflict (key) do update set
      hits = case when rate_limits.reset_at <= ${now} then excluded.hits else rate_limits.hits + excluded.hits end,
      reset_at = case when rate_limits.reset_at <= ${now} then excluded.reset_at else rate_limits.reset_at end
    returning key, hits, reset_at`.execute(db);
  return result.rows;
}

abstract class TableStore {
  private lastSweep = 0;

  constructor(
    protected readonly db: Db,
    protected readonly log: Logger,
  ) {}

  child(): this {
    return this;
  }

  protected sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    this.db
      .deleteFrom("rateLimits")
      .where("resetAt", "<", now)
      .execute()
      .catch((err) => this.log.warn({ err }, "could not delete ended rate limit windows"));
  }

  protected async readRow(key: string): Promise<{ hits: number; resetAt: number }> {
    const row = await this.db.selectFrom("rateLimits").select(["hits", "resetAt"]).where("key", "=", key).executeTakeFirst();
    const resetAt = row ? Number(row.resetAt) : 0;
    return resetAt > Date.now() ? { hits: Number(row!.hits), resetAt } : { hits: 0, resetAt: 0 };
  }
}

/** One upsert per counted request: exact across processes. */
export class WriteThroughDatabaseStore extends TableStore {
  incr(key: string, callback: StoreCallback, timeWindow: number): void {
    const now = Date.now();
    addHits(this.db, [[key, 1]], timeWindow).then((rows) => {
      const row = rows[0];
      if (!row) throw new Error("rate limit upsert returned no row");
      callback(null, { current: Number(row.hits), ttl: Math.max(0, Number(row.resetAt) - now) });
      this.sweep(now);
    }, callback);
  }

  read(key: string, callback: StoreCallback): void {
    this.readRow(key).then(({ hits, resetAt }) => callback(null, { current: hits, ttl: Math.max(0, resetAt - Date.now()) }), callback);
  }
}

interface Entry {
  /** The count over every process as of the last write or read (0 once its window ended). */
  known: number;
  /** Counted here and not written yet. */
  pending: number;
  /** Hits being written by the statement under way. */
  writing: number;
  /** When the window ends, as the database said (or as this process started it). */
  resetAt: number;
  /** When `known` was last read or written. */
  syncedAt: number;
}

/** Counts in memory, written in one statement every `syncMs`. Every limiter of the app shares one window length. */
export class BatchedDatabaseStore extends TableStore {
  private readonly entries = new Map<string, Entry>();
  /** First reads under way, so that concurrent first requests of a key read once. */
  private readonly loading = new Map<string, Promise<Entry>>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | undefined;

  constructor(
    db: Db,
    log: Logger,
    private readonly windowMs: number,
    private readonly syncMs: number,
  ) {
    super(db, log);
    this.timer = setInterval(() => void this.flush(), syncMs);
    this.timer.unref();
  }

  incr(key: string, callback: StoreCallback): void {
    const count = (entry: Entry) => {
      const now = Date.now();
      if (entry.resetAt <= now) this.restart(entry, now);
      entry.pending += 1;
      callback(null, { current: entry.known + entry.writing + entry.pending, ttl: entry.resetAt - now });
    };
    const known = this.entries.get(key);
    if (known) count(known);
    else this.load(key, undefined).then(count, callback);
  }

  read(key: string, callback: StoreCallback): void {
    const now = Date.now();
    const cached = this.entries.get(key);
    // A key only read (failed authentications, checked on every request) is read again once per
    // interval: the failures other processes count reach this one within `syncMs`.
    const fresh = cached && (cached.pending > 0 || cached.writing > 0 || now - cached.syncedAt < this.syncMs) ? cached : undefined;
    const answer = (entry: Entry) => {
      const at = Date.now();
      if (entry.resetAt <= at) callback(null, { current: entry.pending, ttl: 0 });
      else callback(null, { current: entry.known + entry.writing + entry.pending, ttl: entry.resetAt - at });
    };
    if (fresh) answer(fresh);
    else this.load(key, cached).then(answer, callback);
  }

  /** Writes what was counted since the last write; resolves once written (tests, shutdown). */
  flush(): Promise<void> {
    if (!this.flushing) {
      this.flushing = this.write().finally(() => {
        this.flushing = undefined;
      });
    }
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async write(): Promise<void> {
    const now = Date.now();
    const deltas: [string, number][] = [];
    for (const [key, entry] of this.entries) {
      if (entry.pending === 0) continue;
      entry.writing = entry.pending;
      entry.pending = 0;
      deltas.push([key, entry.writing]);
    }
    for (let i = 0; i < deltas.length; i += KEYS_PER_STATEMENT) {
      const chunk = deltas.slice(i, i + KEYS_PER_STATEMENT);
      try {
        const rows = await addHits(this.db, chunk, this.windowMs);
        const at = Date.now();
        for (const row of rows) {
          const entry = this.entries.get(row.key);
          if (!entry) continue;
          entry.known = Number(row.hits);
          entry.resetAt = Number(row.resetAt);
          entry.writing = 0;
          entry.syncedAt = at;
        }
      } catch (err) {
        // Kept for the next write: a database that does not answer loses no count.
        for (const [key, hits] of chunk) {
          const entry = this.entries.get(key);
          if (entry) {
            entry.pending += hits;
            entry.writing = 0;
          }
        }
        this.log.warn({ err }, "could not write rate limit counts; they are kept for the next write");
      }
    }
    this.forget(now);
    this.sweep(now);
  }

  /** Reads a key's count so far (its first sight here, or a stale read-only entry). */
  private load(key: string, previous: Entry | undefined): Promise<Entry> {
    const under = this.loading.get(key);
    if (under) return under;
    const promise = this.readRow(key)
      .then(({ hits, resetAt }) => {
        const entry = this.entries.get(key) ?? previous ?? { known: 0, pending: 0, writing: 0, resetAt: 0, syncedAt: 0 };
        entry.known = hits;
        entry.resetAt = resetAt || Date.now() + this.windowMs;
        entry.syncedAt = Date.now();
        this.entries.set(key, entry);
        return entry;
      })
      .finally(() => this.loading.delete(key));
    this.loading.set(key, promise);
    return promise;
  }

  private restart(entry: Entry, now: number): void {
    entry.known = 0;
    entry.resetAt = now + this.windowMs;
  }

  /** Forgets keys whose window ended with nothing left to write, and the oldest beyond MAX_KEYS. */
  private forget(now: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.pending === 0 && entry.writing === 0 && entry.resetAt <= now) this.entries.delete(key);
    }
    if (this.entries.size <= MAX_KEYS) return;
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= MAX_KEYS) break;
      if (entry.pending === 0 && entry.writing === 0) this.entries.delete(key);
    }
  }
}
