/**
 * Keyset pagination: a page cursor holds the sort key of the last item returned, and the next page
 * starts strictly after it. Rows inserted while a client pages are neither skipped nor repeated,
 * unlike offset paging.
 */
import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import { DomainError } from "./errors.js";

export const DEFAULT_LIMIT = 50;

export type CursorValue = string | number;

export interface SortKey<Row> {
  /** Column reference as written in SQL through Kysely, e.g. "spaces.createdAt". */
  column: string;
  direction: "asc" | "desc";
  /** The value of this key in a returned row (used to build the next cursor). */
  value: (row: Row) => CursorValue;
}

export interface Page<Row> {
  rows: Row[];
  next?: { page: string };
  count: number;
}

export function encodeCursor(values: CursorValue[]): string {
  return Buffer.from(JSON.stringify(values)).toString("base64url");
}

export function decodeCursor(page: string, arity: number): CursorValue[] {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(page, "base64url").toString("utf8"));
  } catch {
    values = undefined;
  }
  if (!Array.isArray(values) || values.length !== arity || !values.every((v) => typeof v === "string" || typeof v === "number")) {
    throw new DomainError(
      "invalid",
      "The `page` parameter is not a cursor returned by this list; pass `next.page` from a previous response.",
    );
  }
  return values as CursorValue[];
}

/**
 * Runs a filtered query as one page: counts all matching rows, then fetches `limit + 1` rows after
 * the cursor in the given order (the extra row tells whether a next page exists).
 * The last sort key must be unique (usually the id) so that the order is total.
 */
export async function paginate<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  keys: SortKey<O>[],
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<O>> {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const after = options.page ? decodeCursor(options.page, keys.length) : undefined;

  const countRow = await query
    .clearSelect()
    .clearOrderBy()
    .select((eb) => eb.fn.countAll().as("count"))
    .executeTakeFirst();
  const count = Number((countRow as { count?: unknown } | undefined)?.count ?? 0);

  let pageQuery = query;
  if (after) {
    pageQuery = pageQuery.where(() => afterCursor(keys, after));
  }
  for (const key of keys) {
    pageQuery = pageQuery.orderBy(sql.ref(key.column), key.direction);
  }
  const rows = await pageQuery.limit(limit + 1).execute();
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    rows: pageRows,
    count,
    ...(hasMore && last ? { next: { page: encodeCursor(keys.map((k) => k.value(last))) } } : {}),
  };
}

/** (k1 > v1) OR (k1 = v1 AND k2 > v2) OR ..., with > or < per key direction. */
function afterCursor<Row>(keys: SortKey<Row>[], values: CursorValue[]): Expression<SqlBool> {
  const branches = keys.map((key, i) => {
    const parts = keys.slice(0, i).map((k, j) => sql`${sql.ref(k.column)} = ${values[j]}`);
    const op = key.direction === "asc" ? sql`>` : sql`<`;
    parts.push(sql`${sql.ref(key.column)} ${op} ${values[i]}`);
    return sql`(${sql.join(parts, sql` and `)})`;
  });
  return sql<SqlBool>`(${sql.join(branches, sql` or `)})`;
}

/** Shapes a page for the response envelope. */
export function toList<Row, Item>(page: Page<Row>, present: (row: Row) => Item) {
  return listOf(page, page.rows.map(present));
}

/** The list envelope around items already presented from a page's rows (bulk presenters). */
export function listOf<Item>(page: Page<unknown>, items: Item[]) {
  return {
    items,
    count: page.count,
    ...(page.next ? { next: page.next } : {}),
  };
}

/**
 * Keyset paging over rows already in memory, for lists whose visibility is decided by the access
 * resolver rather than SQL (the caller sees only the spaces they may view). Same cursors and same
 * guarantees as `paginate`: the next page starts strictly after the last returned sort key.
 */
export function paginateRows<Row>(
  rows: readonly Row[],
  keys: Omit<SortKey<Row>, "column">[],
  options: { page?: string | undefined; limit?: number | undefined },
): Page<Row> {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const after = options.page ? decodeCursor(options.page, keys.length) : undefined;
  const compare = (a: CursorValue, b: CursorValue) => (a < b ? -1 : a > b ? 1 : 0);
  const order = (row: Row, values: CursorValue[]) => {
    for (const [i, key] of keys.entries()) {
      const c = compare(key.value(row), values[i] as CursorValue);
      if (c !== 0) return key.direction === "asc" ? c : -c;
    }
    return 0;
  };
  const sorted = [...rows].sort((a, b) =>
    order(
      a,
      keys.map((k) => k.value(b)),
    ),
  );
  const remaining = after ? sorted.filter((row) => order(row, after) > 0) : sorted;
  const pageRows = remaining.slice(0, limit);
  const last = pageRows[pageRows.length - 1];
  return {
    rows: pageRows,
    count: rows.length,
    ...(remaining.length > limit && last ? { next: { page: encodeCursor(keys.map((k) => k.value(last))) } } : {}),
  };
}
