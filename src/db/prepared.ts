/**
 * Queries compiled once and executed many times. Kysely builds and compiles a query on every call,
 * which costs more than executing a point read; hot paths (authentication, loading an object and
 * the caller's access) define their queries with `prepared()` instead. They are still written with
 * Kysely's typed builder: `param(name)` stands for a value supplied at execution, and
 * `list(name)` for a list of text values (ids), used as `where("id", "in", list("ids"))`: the
 * list is one parameter (SQLite: `json_each` of its JSON; PostgreSQL: `unnest` of a text array),
 * so that a query over any number of ids is still compiled once.
 *
 * Only for queries whose shape does not depend on the values.
 *
 * On SQLite, outside transactions, a read runs directly on its cached better-sqlite3 statement:
 * Kysely's executor (plugins, connection mutex, promise chain) costs more than the read itself.
 * Rows come out as Kysely's would (CamelCasePlugin keys). While a transaction is open on the
 * connection the read takes Kysely's path, which waits for it, so no read sees uncommitted rows.
 *
 * `{ cache: true }` also keeps the rows of such reads, by parameters, for as long as what they read
 * is unchanged. On SQLite: any write through this connection, or a commit by another process (the
 * CLI, a worker), retires every cached row; the hot reads of every request (the token, the space,
 * the caller's access, the counters) then cost one `PRAGMA data_version` while nothing changes. On
 * PostgreSQL: a write to one of the tables the query reads, by this process or (through the change
 * feed, db/change-feed.ts) any other, retires its rows; nothing is kept inside a transaction or
 * while the feed is not listening. Cached rows are frozen: they are shared.
 */
import { type Compilable, type CompiledQuery, type Kysely, type RawBuilder, sql } from "kysely";
import type { TableVersions } from "./change-feed.js";
import { tablesOf } from "./change-feed.js";
import { type DialectName, type DirectSqlite, dialectOf, directSqliteOf, type Executor, tableVersionsOf } from "./database.js";

const MARK = "\u0000quire-param:";
const LIST_MARK = "\u0000quire-list:";

export type Param = (name: string) => any;
/** A list of text values supplied at execution, as the right side of `in`. */
export type ListParam = (name: string) => RawBuilder<string>;

export interface PreparedOptions {
  /** Keep rows while the database is unchanged (SQLite; for small, hot reads). */
  cache?: boolean;
}

/** A query compiled once: called, its rows (a promise); `now`, its rows at once when they need no wait. */
export interface PreparedQuery<Params, Row> {
  (db: Executor, params: Params): Promise<Row[]>;
  /**
   * The rows without a promise when nothing needs waiting for: on SQLite outside a transaction
   * (read directly, or kept), on PostgreSQL rows kept that the change feed says are current;
   * undefined otherwise (call the query). For hot paths that answer at once when they can: a
   * promise per read costs more than a kept read.
   */
  now(db: Executor, params: Params): Row[] | undefined;
}

export function prepared<Params extends Record<string, unknown>, Row>(
  build: (db: Kysely<any>, param: Param, list: ListParam) => Compilable<Row>,
  options: PreparedOptions = {},
): PreparedQuery<Params, Row> {
  // Compiled per Kysely instance (the SQL differs by dialect); a transaction shares its
  // database's dialect, so the first executor seen for a dialect can compile for all of them.
  const byAdapter = new WeakMap<object, Compiled<Row>>();
  const cache = new WeakMap<DirectSqlite, Map<unknown, { dataVersion: number; writes: number; rows: readonly unknown[] }>>();
  const pgCache = new WeakMap<TableVersions, Map<unknown, { stamp: string; rows: readonly unknown[] }>>();
  // The last executor seen, with its compiled query and direct handle: a process mostly reads
  // through one database object, and looking both up costs more than a cached read.
  let last: { db: Executor; compiled: Compiled<Row>; direct: DirectSqlite | undefined } | undefined;
  const now = (db: Executor, params: Params): Row[] | undefined => {
    if (last?.db !== db) last = { db, compiled: compiledFor(db), direct: directSqliteOf(db) };
    const { compiled, direct } = last;
    if (direct && !direct.inTransaction()) {
      if (options.cache) return cachedRows<Row>(direct, compiled, params);
      const statement = direct.prepare(compiled.query.sql);
      if (statement.reader) return statement.all(parametersOf(compiled, params)) as Row[];
      return undefined;
    }
    const versions = options.cache ? tableVersionsOf(db) : undefined;
    return versions ? pgKeptRows<Row>(versions, compiled, params) : undefined;
  };
  const query = async (db: Executor, params: Params): Promise<Row[]> => {
    const rows = now(db, params);
    if (rows) return rows;
    const { compiled } = last!;
    const versions = options.cache ? tableVersionsOf(db) : undefined;
    if (versions) return pgCachedRows<Row>(db, versions, compiled, params);
    const result = await db.executeQuery<Row>({ ...compiled.query, parameters: parametersOf(compiled, params) });
    return result.rows;
  };
  return Object.assign(query, { now });

  function compiledFor(db: Executor): Compiled<Row> {
    const adapter = db.getExecutor().adapter;
    let compiled = byAdapter.get(adapter.constructor);
    if (!compiled) {
      const dialect = dialectOf(db as Kysely<any>);
      const query = build(
        db as Kysely<any>,
        (name) => `${MARK}${name}`,
        (name) => listOf(dialect, `${LIST_MARK}${name}`),
      ).compile();
      const slots = query.parameters.map(slotOf);
      const names = [...new Set(slots.flatMap((slot) => (slot ? [slot.name] : [])))];
      compiled = { query, slots, names, dialect, tables: tablesOf(query.query) };
      byAdapter.set(adapter.constructor, compiled);
    }
    return compiled;
  }

  /** PostgreSQL: the rows kept for these parameters, when the change feed says none of the query's tables changed since. */
  function pgKeptRows<R>(versions: TableVersions, compiled: Compiled<Row>, params: Params): R[] | undefined {
    const stamp = versions.stamp(compiled.tables);
    const hit = stamp === undefined ? undefined : pgCache.get(versions)?.get(cacheKey(compiled, params));
    return hit && hit.stamp === stamp ? (hit.rows as R[]) : undefined;
  }

  /** PostgreSQL: rows kept while the change feed says none of the query's tables changed (db/change-feed.ts). */
  async function pgCachedRows<R>(db: Executor, versions: TableVersions, compiled: Compiled<Row>, params: Params): Promise<R[]> {
    // The stamp is taken before the read: a change that lands while it runs leaves the rows stale-stamped, never fresh-stamped.
    const stamp = versions.stamp(compiled.tables);
    const key = cacheKey(compiled, params);
    let entries = pgCache.get(versions);
    const hit = entries?.get(key);
    if (stamp !== undefined && hit && hit.stamp === stamp) return hit.rows as R[];
    const result = await db.executeQuery<Row>({ ...compiled.query, parameters: parametersOf(compiled, params) });
    const rows = Object.freeze(result.rows.map((row) => Object.freeze(row)));
    if (stamp !== undefined) {
      if (!entries) pgCache.set(versions, (entries = new Map()));
      if (entries.size >= MAX_CACHED_PER_QUERY && !hit) entries.delete(entries.keys().next().value);
      entries.set(key, { stamp, rows });
    }
    return rows as unknown as R[];
  }

  /** Rows of this query by database and parameters, with the database state they were read in. */
  function cachedRows<R>(direct: DirectSqlite, compiled: Compiled<Row>, params: Params): R[] {
    let entries = cache.get(direct);
    if (!entries) cache.set(direct, (entries = new Map()));
    const key = cacheKey(compiled, params);
    const dataVersion = direct.dataVersion();
    const writes = direct.writes();
    const hit = entries.get(key);
    if (hit && hit.dataVersion === dataVersion && hit.writes === writes) return hit.rows as R[];
    const statement = direct.prepare(compiled.query.sql);
    if (!statement.reader) throw new Error("prepared(…, { cache: true }) is for reads only");
    const rows = Object.freeze(statement.all(parametersOf(compiled, params)).map((row) => Object.freeze(row)));
    // Oldest first out: the hot keys (the callers' tokens, the spaces being read) are re-added soon.
    if (entries.size >= MAX_CACHED_PER_QUERY && !hit) entries.delete(entries.keys().next().value);
    entries.set(key, { dataVersion, writes, rows });
    return rows as R[];
  }
}

/**
 * Most hot reads take one value (an id, a token's hash), however often the SQL uses it: that value
 * is its own key, which spares serialising the values on every read. Several text values without a
 * NUL (ids: a space and a revision, an organization and a user) are joined by NUL, which JSON
 * never holds unescaped, so such a key cannot be mistaken for one made as JSON. Anything else (a
 * list, a number among several values) is keyed by its JSON, never by object identity.
 */
function cacheKey(compiled: Compiled<unknown>, params: Record<string, unknown>): unknown {
  const { names } = compiled;
  if (names.length === 1) {
    const only = params[names[0]!];
    if (typeof only === "string" || typeof only === "number") return only;
  } else {
    let key = "";
    for (let i = 0; i < names.length; i++) {
      const value = params[names[i]!];
      if (typeof value !== "string" || value.includes("\u0000")) return JSON.stringify(names.map((name) => params[name]));
      key = i === 0 ? value : `${key}\u0000${value}`;
    }
    return key;
  }
  return JSON.stringify(names.map((name) => params[name]));
}

/** The query's positional parameters: the named values where the SQL takes them, its constants elsewhere. */
function parametersOf(compiled: Compiled<unknown>, params: Record<string, unknown>): unknown[] {
  const { query, slots, dialect } = compiled;
  return slots.map((slot, i) => {
    if (!slot) return query.parameters[i];
    const value = params[slot.name];
    return slot.list && dialect === "sqlite" ? JSON.stringify(value) : value;
  });
}

/** Which named value (or list) a compiled parameter stands for; undefined for a constant. */
function slotOf(value: unknown): Slot | undefined {
  if (typeof value !== "string") return undefined;
  if (value.startsWith(MARK)) return { name: value.slice(MARK.length), list: false };
  if (value.startsWith(LIST_MARK)) return { name: value.slice(LIST_MARK.length), list: true };
  return undefined;
}

/** The text values of one list parameter, as a subquery for `in`. */
function listOf(dialect: DialectName, marker: string): RawBuilder<string> {
  return dialect === "sqlite"
    ? sql<string>`(select value from json_each(${marker}))`
    : sql<string>`(select unnest(cast(${marker} as text[])))`;
}

const MAX_CACHED_PER_QUERY = 5000;

/** A compiled query and, for each of its parameters, the name of the value it stands for (or none: a constant). */
interface Compiled<Row> {
  query: CompiledQuery<Row>;
  slots: (Slot | undefined)[];
  /** The distinct names among the slots, in order of first use. */
  names: string[];
  dialect: DialectName;
  /** The tables the query reads (PostgreSQL's kept rows are retired when one changes). */
  tables: string[];
}

interface Slot {
  name: string;
  /** A list of values, passed as one parameter. */
  list: boolean;
}

/**
 * `derive`, computed once per cached row (or cached array of rows) and kept beside it. Cached rows
 * are frozen and shared for exactly as long as the database holds them, so a pure function of one
 * stays true for as long as the row is served, and is dropped with it (a WeakMap). Anything not
 * frozen (rows read on PostgreSQL or inside a transaction) is derived on every call. What `derive`
 * returns is shared between requests: callers must not change it.
 */
export function derivedFromCached<Source extends object, Derived>(derive: (source: Source) => Derived): (source: Source) => Derived {
  const memo = new WeakMap<Source, Derived>();
  return (source) => {
    if (!Object.isFrozen(source)) return derive(source);
    if (memo.has(source)) return memo.get(source) as Derived;
    const derived = derive(source);
    memo.set(source, derived);
    return derived;
  };
}
