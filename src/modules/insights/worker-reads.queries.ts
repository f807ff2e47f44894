/**
 * The insights reads that scan a site's events, run in a worker thread (bounded-reads.queries.ts) on a
 * read-only connection of the thread's own, under a time limit.
 *
 * better-sqlite3 has no statement timeout nor interrupt, and stopping the thread would not stop
 * a statement either: a thread is stopped only when it runs JavaScript again, so a runaway scan
 * would go on using a core after its request was answered. So the statements call
 * `quire_within_deadline()` for the rows they keep (the last term of their WHERE, for one row in
 * 64 at random): a JavaScript function that, once the time is up, throws, which ends the statement there.
 */
import { CamelCasePlugin } from "kysely";
import { openReadOnlySqlite, type ReadOnlySqlite } from "../../db/read-only.js";

export interface RowsRead {
  sql: string;
  parameters: readonly unknown[];
  /** The database file (each thread opens it once, read-only). */
  file: string;
  /** How long the statement may run, in ms. */
  limitMs: number;
}

export type RowsResult = { rows: Record<string, unknown>[] } | { timedOut: true };

/** Name of the SQL function the statements call per row (registered on every connection opened here). */
export const DEADLINE_FUNCTION = "quire_within_deadline";

class DeadlinePassed extends Error {}

/** Rows keyed as Kysely's CamelCasePlugin keys them on the calling thread (`question_id`: `questionId`). */
class Keys extends CamelCasePlugin {
  of(column: string): string {
    return this.camelCase(column);
  }
}
const keys = new Keys();

let deadline = Number.POSITIVE_INFINITY;
const connections = new Map<string, ReadOnlySqlite>();

/** Connections a thread keeps open (one database in a server; a test process opens many, one after the other). */
const MAX_CONNECTIONS = 4;

function connectionTo(file: string): ReadOnlySqlite {
  let sqlite = connections.get(file);
  if (!sqlite) {
    for (const [other, open] of connections) {
      if (connections.size < MAX_CONNECTIONS) break;
      open.close();
      connections.delete(other);
    }
    sqlite = openReadOnlySqlite(file);
    sqlite.function(DEADLINE_FUNCTION, { deterministic: false }, () => {
      if (Date.now() >= deadline) throw new DeadlinePassed();
      return 1;
    });
    connections.set(file, sqlite);
  }
  return sqlite;
}

/** Runs one read (a statement Quire compiled, never a caller's text): its rows, or that it ran out of time. */
export function readRows(input: RowsRead): RowsResult {
  const sqlite = connectionTo(input.file);
  deadline = Date.now() + input.limitMs;
  try {
    const statement = sqlite.prepare(input.sql).raw(true);
    const names = statement.columns().map((c) => keys.of(c.name));
    const values = statement.all(...input.parameters) as unknown[][];
    return { rows: values.map((row) => Object.fromEntries(names.map((name, i) => [name, row[i]]))) };
  } catch (error) {
    if (error instanceof DeadlinePassed) return { timedOut: true };
    throw error;
  } finally {
    deadline = Number.POSITIVE_INFINITY;
  }
}

const TASKS = { readRows };
export type InsightsTaskName = keyof typeof TASKS;

export default function run(task: { name: string; input: unknown }): unknown {
  const fn = TASKS[task.name as InsightsTaskName];
  if (!fn) throw new Error(`No insights task named ${task.name}.`);
  return fn(task.input as RowsRead);
}
