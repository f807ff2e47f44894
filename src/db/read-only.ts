/**
 * A read-only SQLite connection to the database file, for long reads that run away from the
 * connection of the thread answering requests (a worker thread has its own: better-sqlite3 is
 * synchronous, and a statement holds the thread that runs it). In WAL mode such a reader sees the
 * last committed state and neither waits for the writer nor makes it wait.
 */
import SQLite from "better-sqlite3";

export type ReadOnlySqlite = SQLite.Database;

/** Opens `file` read-only; `query_only` too, so that not even a pragma can change it. */
export function openReadOnlySqlite(file: string): ReadOnlySqlite {
  const sqlite = new SQLite(file, { readonly: true, fileMustExist: true });
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("query_only = ON");
  return sqlite;
}
