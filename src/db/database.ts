/**
 * The Kysely instance. This module and db/dialect.ts are the only places that know whether the
 * database is SQLite or PostgreSQL.
 */
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresAdapter, PostgresDialect, SqliteDialect, type Transaction } from "kysely";
import pg from "pg";
import { withAuditedTransactions } from "./audit.js";
import { listenForChanges, OwnWrites, TableVersions } from "./change-feed.js";
import type { Database } from "./schema.js";
import { QuireCamelCasePlugin, type TrackedStatement, withStatementCache } from "./sqlite-statements.js";

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** Query functions take either the database or an open transaction. */
export type Executor = Db | Trx;

export type DialectName = "sqlite" | "postgres";

export interface DatabaseHandle {
  db: Db;
  dialect: DialectName;
  /** A short description without credentials, for logs. */
  description: string;
  destroy(): Promise<void>;
}

// PostgreSQL returns int8 (count(*)) and numeric as strings by default; our counts fit in a double.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
pg.types.setTypeParser(1700, (value) => Number.parseFloat(value));

/** Removes the password from a connection URL so that it can be logged. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "(invalid url)";
  }
}

/**
 * Creates `file` empty with mode 0600 (its directory 0700 when this creates it) unless it exists:
 * an SQLite database holds the instance key and every session, and SQLite gives the files it makes
 * beside one (-wal, -shm, -journal) the database file's own mode. An existing file keeps its mode.
 */
export function createPrivateFile(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_RDWR, 0o600));
}

/** Whether others than the owner may read or write `file` (an SQLite database made before files were created private). */
export function openToOthers(file: string): boolean {
  try {
    return (fs.statSync(file).mode & 0o077) !== 0;
  } catch {
    return false;
  }
}

export interface OpenDatabaseOptions {
  /** `postgres://...`; when absent, SQLite at `sqlitePath`. */
  databaseUrl?: string | undefined;
  sqlitePath?: string;
  /** Connection pool size on PostgreSQL. */
  poolSize?: number;
  /**
   * PostgreSQL: keep hot reads in the process, retired by the change feed (db/change-feed.ts;
   * one more connection, listening). Default on.
   */
  changeFeed?: boolean;
  /** Why the change feed's connection dropped (it reconnects by itself). */
  onChangeFeedError?: (error: Error) => void;
}

export function openDatabase(options: OpenDatabaseOptions): DatabaseHandle {
  const plugins = [new QuireCamelCasePlugin()];
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    if (options.changeFeed === false) {
      const db = withAuditedTransactions(new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins }));
      return { db, dialect: "postgres", description: `postgres ${redactUrl(options.databaseUrl)}`, destroy: () => db.destroy() };
    }
    const versions = new TableVersions();
    const db = withAuditedTransactions(
      new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [...plugins, new OwnWrites(versions)] }),
    );
    const feed = listenForChanges(options.databaseUrl, versions, options.onChangeFeedError);
    tableVersions.set(db, versions);
    return {
      db,
      dialect: "postgres",
      description: `postgres ${redactUrl(options.databaseUrl)}`,
      destroy: async () => {
        await feed.close();
        await db.destroy();
      },
    };
  }
  const file = options.sqlitePath ?? ":memory:";
  if (file !== ":memory:") createPrivateFile(file);
  const sqlite = new SQLite(file);
  // WAL lets readers proceed while a writer commits; NORMAL sync is durable across process crashes.
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const statements = withStatementCache(sqlite);
  // Every transaction writes the audit entries its request owes before it commits (db/audit.ts).
  const db = withAuditedTransactions(new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }), plugins }));
  const dataVersion = sqlite.prepare("PRAGMA data_version").pluck();
  // Read at most once per event the process handles (a request's arrival, a timer, an I/O
  // completion): the version is read after that event arrived, so every commit that preceded it
  // is counted, and it is forgotten before the next event runs. The work an event starts runs as
  // ticks and microtasks before control returns to the event loop; a tick queued from a microtask
  // runs only once the microtask queue is empty, after that work (a plain nextTick would run
  // before the microtasks, so an async hook and the handler after it would read twice).
  let version: number | undefined;
  const forget = () => void (version = undefined);
  const forgetAfterThisEvent = () => process.nextTick(forget);
  directSqlite.set(db, {
    prepare: statements.prepare,
    inTransaction: () => sqlite.inTransaction,
    dataVersion: () => {
      if (version === undefined) {
        version = dataVersion.get() as number;
        queueMicrotask(forgetAfterThisEvent);
      }
      return version;
    },
    writes: statements.writes,
  });
  if (file !== ":memory:") sqliteFiles.set(db, file);
  return { db, dialect: "sqlite", description: `sqlite ${file}`, destroy: () => db.destroy() };
}

/** The better-sqlite3 side of an SQLite database, for compiled-once reads (see `prepared`). */
export interface DirectSqlite {
  prepare(sql: string): TrackedStatement;
  /** A transaction is open on the connection (its statements must not be interleaved). */
  inTransaction(): boolean;
  /**
   * Together these change whenever the database may have changed. `writes` counts the writes
   * through this connection (after each ran); `dataVersion` is SQLite's `data_version`, which
   * changes when any other connection (another process) commits. Rows read while both are
   * unchanged are still the database's rows.
   */
  dataVersion(): number;
  writes(): number;
}

const directSqlite = new WeakMap<object, DirectSqlite>();
const tableVersions = new WeakMap<object, TableVersions>();
const sqliteFiles = new WeakMap<object, string>();

/**
 * The file of a database opened by `openDatabase` on SQLite (for another connection to it, e.g. a
 * worker thread's read-only one: db/read-only.ts); undefined for PostgreSQL, transactions and `:memory:`.
 */
export function sqliteFileOf(db: Executor): string | undefined {
  return sqliteFiles.get(db);
}

/** The change feed's table versions of a PostgreSQL database opened by `openDatabase`; undefined for transactions and SQLite. */
export function tableVersionsOf(db: Executor): TableVersions | undefined {
  return tableVersions.get(db);
}

/** The direct handle of a database opened by `openDatabase` on SQLite; undefined for transactions and PostgreSQL. */
export function directSqliteOf(db: Executor): DirectSqlite | undefined {
  return directSqlite.get(db);
}

/** The dialect of any Kysely instance (migrations receive a bare `Kysely<any>`). */
export function dialectOf(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}
