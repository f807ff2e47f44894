/**
 * Queries compiled once and executed many times. Kysely builds and compiles a query on every call,
 * which costs more than executing a point read; hot paths (authentication, loading an object and
 * the caller's access) define their queries with `prepared()` instead. They are still written with
 * Kysely's typed builder: `param(name)` stands for a value supplied at execution.
 *
 * Only for queries whose shape does not depend on the values (no `in (...)` over a list).
 */
import { type Compilable, CompiledQuery, type Kysely } from "kysely";
import type { Executor } from "./database.js";

const MARK = "\u0000quire-param:";

export type Param = (name: string) => any;

export function prepared<Params extends Record<string, unknown>, Row>(
  build: (db: Kysely<any>, param: Param) => Compilable<Row>,
): (db: Executor, params: Params) => Promise<Row[]> {
  // Compiled per Kysely instance (the SQL differs by dialect); a transaction shares its
  // database's dialect, so the first executor seen for a dialect can compile for all of them.
  const byAdapter = new WeakMap<object, CompiledQuery<Row>>();
  return async (db, params) => {
    const adapter = db.getExecutor().adapter;
    let compiled = byAdapter.get(adapter.constructor);
    if (!compiled) {
      compiled = build(db as Kysely<any>, (name) => `${MARK}${name}`).compile();
      byAdapter.set(adapter.constructor, compiled);
    }
    const parameters = compiled.parameters.map((value) =>
      typeof value === "string" && value.startsWith(MARK) ? params[value.slice(MARK.length)] : value,
    );
    const result = await db.executeQuery<Row>({ ...compiled, parameters });
    return result.rows;
  };
}

