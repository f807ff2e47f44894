/**
 * The few SQL differences between SQLite and PostgreSQL, each behind one function.
 * Nothing outside src/db/ should branch on the dialect.
 */
import { type Expression, type SqlBool, sql } from "kysely";
import type { DialectName } from "./database.js";

/** Case-insensitive "contains" on a text column. */
export function containsInsensitive(dialect: DialectName, column: string, needle: string): Expression<SqlBool> {
  const pattern = `%${escapeLike(needle.toLowerCase())}%`;
  if (dialect === "postgres") return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

/** Escapes LIKE wildcards so that user input matches literally. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Row-locking suffix for "claim one row" queries; SQLite serialises writers, so it needs none. */
export function skipLockedSuffix(dialect: DialectName) {
  return dialect === "postgres" ? sql` for update skip locked` : sql``;
}

/** True when an error is a unique-constraint violation, on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | null;
  return e?.code === "23505" || e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
