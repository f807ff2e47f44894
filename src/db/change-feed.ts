/**
 * PostgreSQL's change feed: which tables changed, in this process and in every other process on the
 * same database, so that hot reads (a token, a space, a member's access) can be kept in the process
 * and retired exactly when a table they read changes (db/prepared.ts, `{ cache: true }`).
 *
 * - Every table carries a statement-level trigger that sends `pg_notify('quire_table_changes',
 *   <table>)`; PostgreSQL delivers it to every listening session when the writing transaction
 *   commits (once per table and transaction). `ensureChangeTriggers` installs the triggers after
 *   migrations, so a table added by a later migration gets one too.
 * - Each process listens on one connection of its own. A notification bumps that table's version.
 * - This process's own writes bump the tables they write as soon as the statement returns (the
 *   plugin below), so a request that follows a write in this process never reads a row kept from
 *   before it.
 * - While the listening connection is down nothing is kept (every read goes to the database), and
 *   every version moves when it comes back, since notifications sent meanwhile were lost.
 *
 * Another process's change is therefore seen once its notification arrives: within milliseconds
 * on a healthy connection (a test holds it under a second). Poolers that multiplex sessions per
 * transaction (PgBouncer in transaction mode) do not carry LISTEN: point Quire at PostgreSQL
 * itself, or at a session-mode pool.
 */
import type {
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from "kysely";
import { sql } from "kysely";
import pg from "pg";
import type { Db } from "./database.js";

export const CHANGE_CHANNEL = "quire_table_changes";

export class TableVersions {
  private versions = new Map<string, number>();
  /** Moves every table's version at once (the feed reconnected: notifications may have been lost). */
  private epoch = 0;
  listening = false;
  /** Every bump so far (this process's writes and the feed's notifications, its own writes' echoes included). */
  changes = 0;

  version(table: string): number {
    return this.versions.get(table) ?? 0;
  }
  bump(table: string): void {
    this.versions.set(table, this.version(table) + 1);
    this.changes++;
  }
  bumpAll(): void {
    this.epoch++;
    this.changes++;
  }
  /** A stamp of the given tables' state: equal stamps, unchanged tables. Undefined while nothing may be kept. */
  stamp(tables: readonly string[]): string | undefined {
    if (!this.listening) return undefined;
    let out = String(this.epoch);
    for (const table of tables) out += `:${this.version(table)}`;
    return out;
  }
}

/** The tables a compiled query names (FROM, JOIN, subqueries), as the database knows them. */
export function tablesOf(node: OperationNode): string[] {
  const found = new Set<string>();
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const value = stack.pop();
    if (!value || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    const record = value as { kind?: string; table?: { identifier?: { name?: string } } };
    if (record.kind === "TableNode" && record.table?.identifier?.name) found.add(record.table.identifier.name);
    for (const child of Object.values(value)) if (child && typeof child === "object") stack.push(child);
  }
  return [...found].sort();
}

/** The table a write statement changes, if the node is one. */
function writtenTable(node: RootOperationNode): string | undefined {
  const target =
    node.kind === "InsertQueryNode"
      ? node.into
      : node.kind === "UpdateQueryNode"
        ? node.table
        : node.kind === "DeleteQueryNode"
          ? node.from
          : node.kind === "MergeQueryNode"
            ? node.into
            : undefined;
  return target ? tablesOf(target)[0] : undefined;
}

/** Bumps the table of each write this process makes, when the statement returns. */
export class OwnWrites implements KyselyPlugin {
  private pending = new WeakMap<object, string>();
  constructor(private versions: TableVersions) {}
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const table = writtenTable(args.node);
    if (table) this.pending.set(args.queryId, table);
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const table = this.pending.get(args.queryId);
    if (table) this.versions.bump(table);
    return args.result;
  }
}

export interface ChangeFeed {
  versions: TableVersions;
  close(): Promise<void>;
}

/**
 * Listens for changes on a connection of its own, reconnecting with backoff (up to 5 s) when it
 * drops. `onError` hears why it dropped (logged by the caller).
 */
export function listenForChanges(
  connectionString: string,
  versions: TableVersions,
  onError: (error: Error) => void = () => {},
): ChangeFeed {
  let client: pg.Client | undefined;
  let closed = false;
  let delay = 100;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const connect = async () => {
    const next = new pg.Client({ connectionString });
    client = next;
    const lost = (error?: Error) => {
      if (client !== next) return;
      versions.listening = false;
      client = undefined;
      if (error) onError(error);
      next.end().catch(() => {});
      if (closed) return;
      timer = setTimeout(() => void connect(), delay);
      timer.unref?.();
      delay = Math.min(delay * 2, 5000);
    };
    next.on("error", lost);
    next.on("end", () => lost());
    next.on("notification", (message) => {
      if (message.channel === CHANGE_CHANNEL && message.payload) versions.bump(message.payload);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGE_CHANNEL}`);
      if (closed || client !== next) return;
      // Whatever changed while no one listened is unknown: everything kept before is retired.
      versions.bumpAll();
      versions.listening = true;
      delay = 100;
    } catch (error) {
      lost(error instanceof Error ? error : new Error(String(error)));
    }
  };
  void connect();
  return {
    versions,
    close: async () => {
      closed = true;
      versions.listening = false;
      clearTimeout(timer);
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}

/**
 * Installs the notifying trigger on every table of the current schema that lacks it (after
 * migrations; idempotent and cheap when every table has it).
 */
export async function ensureChangeTriggers(db: Db): Promise<void> {
  await sql`
    create or replace function quire_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify(${sql.lit(CHANGE_CHANNEL)}, tg_table_name);
      return null;
    end $$`.execute(db);
  await sql`
    do $$
    declare t record;
    begin
      for t in
        select c.relname from pg_class c
        join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p') and n.nspname = current_schema()
          and not exists (select 1 from pg_trigger g where g.tgrelid = c.oid and g.tgname = 'quire_notify_change')
      loop
        execute format(
          'create trigger quire_notify_change after insert or update or delete or truncate on %I for each statement execute function quire_notify_change()',
          t.relname);
      end loop;
    end $$`.execute(db);
}
