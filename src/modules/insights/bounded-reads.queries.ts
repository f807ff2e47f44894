/**
 * Reads of insights that scan a site's events (aggregateSiteEvents, the visitor segments, the
 * Insights page), bounded so that none can stall the server: a year of events on a busy site is
 * millions of rows.
 *
 * - SQLite: the statement runs in a worker thread (workers/pool.ts) on a read-only connection of
 *   its own (worker-reads.queries.ts), never on the connection of the thread that answers requests, and
 *   stops once READ_LIMIT_MS have passed. Should a statement not stop (a sort after the scan, which
 *   calls no function), the thread is stopped a little later. With `QUIRE_WORKER_THREADS=0` it runs
 *   on the calling thread, still on its own connection and within the limit.
 * - PostgreSQL: `SET LOCAL statement_timeout` in a transaction of its own: the query is already
 *   asynchronous, but a runaway one would hold a connection of the pool.
 *
 * Either way, a read over the limit is a 413 asking the caller to narrow the range, and at most a few
 * such reads run or wait (then 429, retry), on a thread of their own (the pool's `reads` lane).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type CompiledQuery, type RawBuilder, type SqlBool, sql } from "kysely";
import { type Db, dialectOf, type Executor, sqliteFileOf } from "../../db/database.js";
import { busy, tooLarge } from "../../lib/errors.js";
import { runTask, type TaskModule } from "../../workers/pool.js";
import { DEADLINE_FUNCTION, type RowsRead, type RowsResult } from "./worker-reads.queries.js";

/** One row in this many (at random) calls the time limit's check: a power of 2. */
const GUARD_EVERY = 64;
/** How long one read may run. */
let READ_LIMIT_MS = 10_000;
/** After the limit, how long a statement that did not stop by itself is given before its thread is stopped. */
let STOP_GRACE_MS = 5_000;

/** Sets the time limit of a read (ms), and the grace before its thread is stopped, for the next reads. */
export function configureInsightsReadLimit(ms: number, graceMs = 5_000): void {
  READ_LIMIT_MS = ms;
  STOP_GRACE_MS = graceMs;
}

const TASKS_URL = new URL(`./worker-reads.queries${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);
let tasks: TaskModule = {
  url: TASKS_URL,
  load: () => import("./worker-reads.queries.js") as ReturnType<TaskModule["load"]>,
  outOfMemory: () => ({
    work: "Counting the site's events",
    remedy: "narrow the range, group by fewer columns or lower `limit`, or raise QUIRE_WORKER_HEAP_MB.",
  }),
};

/** Replaces the task module the reads run in (a test's, which wraps worker-reads.queries.ts); returns the previous one. */
export function useInsightsTasks(module: TaskModule): TaskModule {
  const previous = tasks;
  tasks = module;
  return previous;
}

/**
 * The condition a bounded statement ends its WHERE with (true for every row): on SQLite with a
 * file, the check of the time limit, which only the reads' own connections know. A function call
 * per row cost 25-30% of an aggregation's time; made for one row in 64 at random (SQLite's own
 * `random()` for the others), 5-20% (bench/insights-aggregate.bench.ts), and the statement stops
 * within a few hundred rows. By rowid (`rowid % 64`) cost less, but rows of a site that all fall
 * between two multiples would never be checked: at random, no order of rows escapes the check.
 */
export function rowGuard(db: Executor): RawBuilder<SqlBool> {
  return dialectOf(db) === "sqlite" && sqliteFileOf(db)
    ? sql`((random() & ${sql.lit(GUARD_EVERY - 1)}) <> 0 or ${sql.raw(DEADLINE_FUNCTION)}() = 1)`
    : sql`1 = 1`;
}

const overLimit = (what: string) =>
  tooLarge(
    `${what} took longer than the ${READ_LIMIT_MS / 1000} s the server gives an insights read: narrow the range (e.g. last30Days instead of lastYear), add filters, or group by fewer columns.`,
  );

/**
 * Reads running or waiting for their thread (the pool's `reads` lane: one thread of their own, so
 * that a read held to its limit never delays a conversion), beyond which a read is refused (429)
 * rather than queued.
 */
const READS_IN_FLIGHT = 4;
let running = 0;

/** The reads running or waiting for a thread now. */
export function insightsReadsInFlight(): number {
  return running;
}

/**
 * Runs `query` (compiled for `db`, its WHERE ended by `rowGuard(db)`), bounded as above. `what`
 * names the read in the error ("The aggregation").
 */
export async function readBounded<R = Record<string, unknown>>(db: Executor, query: CompiledQuery<R>, what: string): Promise<R[]> {
  if (running >= READS_IN_FLIGHT) {
    throw busy(`As many insights reads as the server runs at once are running; ${what.toLowerCase()} can be retried in a few seconds.`);
  }
  running++;
  try {
    if (dialectOf(db) === "postgres") return await readOnPostgres(db, query, what);
    const file = sqliteFileOf(db);
    // An in-memory database has no other connection: read on its own (no limit).
    if (!file) return (await db.executeQuery(query)).rows;
    const input: RowsRead = { sql: query.sql, parameters: query.parameters, file, limitMs: READ_LIMIT_MS };
    let result: RowsResult;
    try {
      result = (await runTask(tasks, "readRows", input, { lane: "reads", timeLimitMs: READ_LIMIT_MS + STOP_GRACE_MS })) as RowsResult;
    } catch (error) {
      if ((error as { name?: unknown }).name === "TimeoutError") throw overLimit(what);
      throw error;
    }
    if ("timedOut" in result) throw overLimit(what);
    return result.rows as R[];
  } finally {
    running--;
  }
}

async function readOnPostgres<R>(db: Executor, query: CompiledQuery<R>, what: string): Promise<R[]> {
  try {
    // SET LOCAL lasts until the transaction ends: the connection goes back to the pool without it.
    return await (db as Db).transaction().execute(async (trx) => {
      await sql`set local statement_timeout = ${sql.lit(READ_LIMIT_MS)}`.execute(trx);
      return (await trx.executeQuery(query)).rows;
    });
  } catch (error) {
    // 57014: query_canceled, what the statement timeout raises.
    if ((error as { code?: unknown }).code === "57014") throw overLimit(what);
    throw error;
  }
}
