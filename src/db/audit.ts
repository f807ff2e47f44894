/**
 * The audit log's writer. A request (or a command of the `quire` CLI) that may change something
 * runs inside an `AuditScope` (async-local, so no service has to pass it along): who acts, from
 * where, and the entries it owes. The scope's entries are written by the first transaction that
 * commits inside it, as that transaction's last statements (`withAuditedTransactions` wraps
 * `db.transaction()`), so a change and its entry commit or roll back together; a rolled-back
 * transaction gives its entries back to the scope. A write made by a single statement outside any
 * transaction, while the scope owes entries, is run in a transaction of its own that writes them
 * too. What is left when the request ends (entries of a request that changed nothing, a failed
 * sign-in) is written then, before the answer is sent.
 *
 * A scope owes one entry by default, the route's own (its action, its target, the fields the body
 * set, secrets replaced), unless code recorded a more precise one with `recordAudit` (a sign-in, a
 * token). Rows are only ever inserted here; the retention job is the only deletion.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { CompiledQuery, QueryResult } from "kysely";
import type { Db, Executor, Trx } from "./database.js";

export type AuditSource = "ui" | "api" | "integration" | "script";

export interface AuditActor {
  type: "user" | "integration" | "system";
  id: string;
  label?: string | null;
  /** The API token of the request (its id). */
  tokenId?: string | null;
}

export interface AuditTarget {
  type: string;
  id: string;
  label?: string | null;
}

export interface AuditEntry {
  action: string;
  target: AuditTarget;
  /** The organizations it belongs to; when absent, found from the target or the scope. */
  orgIds?: string[];
  payload?: Record<string, unknown>;
  /** Who, when not the scope's actor (a sign-in: the user who signed in). */
  actor?: AuditActor;
}

/** The route's own entry, finished when written (a created object's id comes from the transaction's result). */
export interface RouteEntry {
  action: string;
  /** The route's path pattern (`/v1/spaces/:spaceId`) and its parameters. */
  url: string;
  params: Record<string, string>;
  body: unknown;
  /** Found from the parameters before the handler ran (a deleted object's organization is not found after). */
  orgIds?: string[];
}

export interface AuditOrigin {
  source: AuditSource;
  address?: string | null;
  userAgent?: string | null;
  requestId?: string | null;
}

export class AuditScope {
  /** Set once known (the session's member, the SCIM token). */
  actor: AuditActor | undefined;
  /** Read when an entry is written, for actors known only later (the API token, checked after the scope opens). */
  actorOf: (() => AuditActor | undefined) | undefined;
  /** The organization every entry belongs to, when the caller is tied to one (a SCIM token). */
  orgId: string | undefined;
  private pending: AuditEntry[] = [];
  private route: RouteEntry | undefined;
  /** Code recorded its own entry: the route's generic one is not written. */
  private explicit = false;

  constructor(
    readonly origin: AuditOrigin,
    route?: RouteEntry,
  ) {
    this.route = route;
  }

  record(entry: AuditEntry): void {
    this.pending.push(entry);
    this.explicit = true;
  }

  /** The entries owed now (the route's own included, finished with `result`); the scope owes nothing after. */
  take(result?: unknown): Taken {
    const entries = this.pending;
    const route = this.explicit ? undefined : this.route;
    this.pending = [];
    this.route = undefined;
    return { entries, route, result };
  }

  /** A transaction that wrote `taken` rolled back: they are owed again. */
  giveBack(taken: Taken): void {
    this.pending = [...taken.entries, ...this.pending];
    if (taken.route && !this.explicit) this.route = taken.route;
  }

  get owes(): boolean {
    return this.pending.length > 0 || this.route !== undefined;
  }

  /** The route's entry is not owed (its change failed); explicit entries still are. */
  dropRouteEntry(): void {
    this.route = undefined;
  }

  currentActor(): AuditActor | undefined {
    return this.actor ?? this.actorOf?.();
  }
}

interface Taken {
  entries: AuditEntry[];
  route: RouteEntry | undefined;
  result: unknown;
}

const scopes = new AsyncLocalStorage<AuditScope>();
/**
 * Scopes whose work has not finished. On Node 20 an enabled AsyncLocalStorage installs promise hooks
 * that run for every promise the process makes, reads included (a few percent of a cached read's
 * CPU): the storage is disabled whenever no scope is open, and `run` enables it again.
 */
let openScopes = 0;
function scopeEnded(): void {
  if (--openScopes === 0) scopes.disable();
}

/** Runs `fn` with `scope` as the audit scope of everything it awaits (until the promise it returns settles). */
export function inAuditScope<T>(scope: AuditScope, fn: () => T): T {
  openScopes++;
  let result: T;
  try {
    result = scopes.run(scope, fn);
  } catch (error) {
    scopeEnded();
    throw error;
  }
  // A native promise only: other thenables (Fastify's reply) are not the work's end.
  if (!(result instanceof Promise)) {
    scopeEnded();
    return result;
  }
  return result.then(
    (value) => {
      scopeEnded();
      return value;
    },
    (error: unknown) => {
      scopeEnded();
      throw error;
    },
  ) as T;
}

/** Runs `fn` outside any audit scope: bookkeeping that is no one's change (a token's last use) carries no entry. */
export function outsideAudit<T>(fn: () => T): T {
  return scopes.exit(fn);
}

export function currentAuditScope(): AuditScope | undefined {
  return scopes.getStore();
}

/** Records an entry in the current scope (written with the next transaction that commits, else when the request ends). */
export function recordAudit(entry: AuditEntry): void {
  currentAuditScope()?.record(entry);
}

/** Sets who acts in the current scope, once known (the web app's member, a SCIM token). */
export function setAuditActor(actor: AuditActor, orgId?: string): void {
  const scope = currentAuditScope();
  if (!scope) return;
  scope.actor = actor;
  if (orgId !== undefined) scope.orgId = orgId;
}

/**
 * Makes every `db.transaction().execute(fn)` write the current scope's owed entries before it
 * commits (the database handle is patched in place; transactions outside a scope are unchanged),
 * and runs a write made outside a transaction (a single statement on `db`) in one when the scope
 * still owes entries, so that it and its entries commit together. Reads never open one.
 */
export function withAuditedTransactions(db: Db): Db {
  const begin = db.transaction.bind(db);
  (db as { transaction: unknown }).transaction = () => auditedBuilder(begin());
  // Every query built on `db` (builders, `sql` templates, `db.executeQuery`) runs through this
  // executor; a transaction's executor is a new one, so statements inside a transaction pass by.
  const executor = db.getExecutor();
  const execute = executor.executeQuery.bind(executor);
  executor.executeQuery = (<R>(compiled: CompiledQuery): Promise<QueryResult<R>> => {
    const scope = currentAuditScope();
    if (!scope?.owes || !isWrite(compiled)) return execute<R>(compiled);
    return db.transaction().execute((trx) => trx.getExecutor().executeQuery<R>(compiled));
  }) as typeof executor.executeQuery;
  return db;
}

const WRITE_NODES = new Set(["InsertQueryNode", "UpdateQueryNode", "DeleteQueryNode", "MergeQueryNode"]);
const WRITE_SQL = /^\s*(insert|update|delete|replace|merge|upsert)\b/i;

/** Whether a statement may change a row: a write builder's, a select with a writing CTE, or raw SQL that starts with a write verb or holds one in a CTE. */
export function isWrite(compiled: CompiledQuery): boolean {
  const node = compiled.query as { kind: string; with?: { expressions: { expression: { kind: string } }[] } };
  if (WRITE_NODES.has(node.kind)) return true;
  if (node.kind === "SelectQueryNode") return node.with?.expressions.some((cte) => WRITE_NODES.has(cte.expression.kind)) ?? false;
  if (node.kind === "RawNode") {
    const text = compiled.sql;
    return WRITE_SQL.test(text) || (/^\s*with\b/i.test(text) && /\b(insert|update|delete)\b/i.test(text));
  }
  return false;
}

type Builder = ReturnType<Db["transaction"]>;

function auditedBuilder(builder: Builder): Builder {
  return new Proxy(builder, {
    get(target, property) {
      if (property === "execute") {
        return <T>(fn: (trx: Trx) => Promise<T>): Promise<T> => {
          const scope = currentAuditScope();
          if (!scope) return target.execute(fn);
          let taken: Taken | undefined;
          return target
            .execute(async (trx) => {
              const result = await fn(trx);
              if (scope.owes) {
                taken = scope.take(result);
                await writeTaken(trx, scope, taken);
              }
              return result;
            })
            .catch((error: unknown) => {
              if (taken) scope.giveBack(taken);
              throw error;
            });
        };
      }
      if (property === "setIsolationLevel" || property === "setAccessMode") {
        return (value: never) => auditedBuilder((target[property] as (v: never) => Builder)(value));
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Runs `fn` in `db` when it is a transaction, else in one of its own: for code that records an
 * entry after its write (`recordAudit` with the id the write made), so that both commit together.
 */
export function inTransaction<T>(db: Executor, fn: (trx: Executor) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : (db as Db).transaction().execute(fn);
}

/** Writes what the scope still owes, outside a transaction (the request or command is over). */
export async function flushAudit(db: Executor, scope: AuditScope): Promise<void> {
  if (!scope.owes) return;
  await writeTaken(db, scope, scope.take());
}

async function writeTaken(db: Executor, scope: AuditScope, taken: Taken): Promise<void> {
  const entries = [...taken.entries];
  if (taken.route) entries.push(routeEntry(taken.route, taken.result));
  const now = new Date().toISOString();
  const rows = [];
  for (const entry of entries) {
    let actor = entry.actor ?? scope.currentActor() ?? ANONYMOUS;
    // A user named by id alone (a sign-in, a sign-out) is labelled as the others are, by email.
    if (actor.type === "user" && !actor.label) {
      const user = await db.selectFrom("users").select("email").where("id", "=", actor.id).executeTakeFirst();
      if (user) actor = { ...actor, label: user.email };
    }
    const orgIds = entry.orgIds ?? (await organizationsOf(db, scope, entry, actor));
    for (const orgId of orgIds.length > 0 ? orgIds : [null]) {
      rows.push({
        id: randomUUID(),
        orgId,
        occurredAt: now,
        action: entry.action,
        source: scope.origin.source,
        actorType: actor.type,
        actorId: actor.id,
        actorLabel: actor.label ?? null,
        tokenId: actor.tokenId ?? null,
        targetType: entry.target.type,
        targetId: entry.target.id,
        targetLabel: entry.target.label ?? null,
        address: scope.origin.address ?? null,
        userAgent: scope.origin.userAgent ?? null,
        requestId: scope.origin.requestId ?? null,
        payload: JSON.stringify(redact(entry.payload ?? {}, 0)),
      });
    }
  }
  if (rows.length > 0) await db.insertInto("auditEvents").values(rows).execute();
}

/** An entry written without a known actor (a failed sign-in). */
const ANONYMOUS: AuditActor = { type: "system", id: "anonymous", label: "Not signed in" };

// ---------------------------------------------------------------------------------------------
// The route's own entry: its target is the last identifier in the path, or the object a creation
// returned; the payload is the path's identifiers and the fields the body set.

const TYPE_OF_PARAM: Record<string, string> = {
  org: "organization",
  space: "space",
  collection: "collection",
  site: "site",
  number: "change-request",
  page: "page",
  reply: "comment-reply",
  commentReply: "comment-reply",
  tokenId: "token",
};

function kebab(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
}

function singular(segment: string): string {
  const word = kebab(segment);
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  return word.endsWith("s") ? word.slice(0, -1) : word;
}

/** The path's parameters, in order, with the literal segment before each. */
function pathParts(url: string): { literal?: string; param?: string }[] {
  return url
    .split("/")
    .filter((s) => s !== "")
    .map((s) => (s.startsWith(":") ? { param: s.slice(1) } : { literal: s }));
}

export function routeEntry(route: RouteEntry, result: unknown): AuditEntry {
  const parts = pathParts(route.url);
  const last = parts[parts.length - 1];
  const created = createdId(result);
  let target: AuditTarget | undefined;
  if (last?.literal && /s$/.test(last.literal) && created) {
    target = { type: singular(last.literal), id: created };
  } else {
    for (let i = parts.length - 1; i >= 0 && !target; i--) {
      const param = parts[i]?.param;
      if (!param || SECRET_KEY.test(param)) continue;
      const id = route.params[param];
      if (id === undefined) continue;
      const before = parts[i - 1]?.literal;
      const type = param === "id" && before ? singular(before) : (TYPE_OF_PARAM[param] ?? kebab(param.replace(/Id$/, "")));
      target = { type, id };
    }
  }
  target ??= created ? { type: "object", id: created } : { type: "instance", id: "-" };
  const params = Object.fromEntries(Object.entries(route.params).filter(([key]) => !SECRET_KEY.test(key)));
  const createdIn = typeof result === "object" && result !== null ? (result as { orgId?: unknown }).orgId : undefined;
  const orgIds = route.orgIds?.length ? route.orgIds : typeof createdIn === "string" ? [createdIn] : undefined;
  return { action: route.action, target, ...(orgIds ? { orgIds } : {}), payload: { params, fields: fieldsOf(route.body) } };
}

/** The id of what the transaction created: its result's `id`, or the result itself when it is an id (a service that returns the new id). */
function createdId(result: unknown): string | undefined {
  if (typeof result === "string") return /^[A-Za-z0-9_-]{1,100}$/.test(result) ? result : undefined;
  if (typeof result !== "object" || result === null) return undefined;
  const id = (result as { id?: unknown }).id;
  return typeof id === "string" && id.length <= 200 ? id : undefined;
}

// ---------------------------------------------------------------------------------------------
// What may be stored. Values under a key that names a secret never are; long texts and large
// structures are summarized (a page's content is not the audit log's business, that it changed is).

/** Keys whose values are secrets, or capabilities (a sign-in link's token, an identity provider's answer). */
export const SECRET_KEY =
  /secret|password|passphrase|token|private|credential|certificate|^cert|assertion|samlresponse|signature|^key$|apikey|sealed|hash|verifier|^code$|^state$|_csrf/i;
const MAX_TEXT = 200;
const MAX_ITEMS = 20;
const MAX_DEPTH = 3;

function fieldsOf(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return {};
  return redact(body as Record<string, unknown>, 0) as Record<string, unknown>;
}

export function redact(value: unknown, depth: number): unknown {
  if (value === null || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value === "string") return value.length <= MAX_TEXT ? value : `[${value.length} characters]`;
  if (Array.isArray(value)) {
    if (value.length > MAX_ITEMS || depth >= MAX_DEPTH) return `[${value.length} items]`;
    return value.map((item) => redact(item, depth + 1));
  }
  if (typeof value === "object") {
    if (depth >= MAX_DEPTH) return "[object]";
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (key === "_csrf") continue;
      out[key] = SECRET_KEY.test(key) ? "[redacted]" : redact(item, depth + 1);
    }
    return out;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Which organizations an entry belongs to: the scope's, the target's, else every organization of
// the user it is about (a personal API token lets its holder act in all of theirs).

async function organizationsOf(db: Executor, scope: AuditScope, entry: AuditEntry, actor: AuditActor): Promise<string[]> {
  if (scope.orgId) return [scope.orgId];
  const params = (entry.payload?.params ?? {}) as Record<string, unknown>;
  const { type, id } = entry.target;
  const found = await organizationsOfParams(db, params, entry.target);
  if (found.length > 0) return found;
  // About a user (theirs, a token of theirs): the organizations they are in.
  const userId = params.userId ?? entry.payload?.userId ?? (type === "user" ? id : actor.type === "user" ? actor.id : undefined);
  if (typeof userId !== "string") return [];
  const rows = await db.selectFrom("members").select("orgId").where("userId", "=", userId).execute();
  return rows.map((row) => row.orgId);
}

/** The organization named by a route's parameters (directly, or as the owner of its space, collection, identity provider). */
export async function organizationsOfParams(db: Executor, params: Record<string, unknown>, target?: AuditTarget): Promise<string[]> {
  const given = params.organizationId ?? params.org;
  if (typeof given === "string") return [given];
  const type = target?.type;
  const id = target?.id;
  if (type === "organization" && id) return [id];
  const spaceId = params.spaceId ?? params.space ?? (type === "space" ? id : undefined);
  if (typeof spaceId === "string") return orgOfRow(db, "spaces", spaceId);
  const collectionId = params.collectionId ?? (type === "collection" ? id : undefined);
  if (typeof collectionId === "string") return orgOfRow(db, "collections", collectionId);
  const providerId = params.providerId;
  if (typeof providerId === "string") {
    const saml = await orgOfRow(db, "samlProviders", providerId);
    return saml.length > 0 ? saml : orgOfRow(db, "oidcProviders", providerId);
  }
  return [];
}

async function orgOfRow(db: Executor, table: "spaces" | "collections" | "samlProviders" | "oidcProviders", id: string): Promise<string[]> {
  const row = await db.selectFrom(table).select("orgId").where("id", "=", id).executeTakeFirst();
  return row ? [row.orgId] : [];
}
