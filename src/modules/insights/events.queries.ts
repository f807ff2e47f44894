/**
 * A published site's insight events in the database: the recorder's batched inserts, the
 * aggregation query of aggregateSiteEvents (GitBook 0.202's select, group by, filters, order and
 * range, compiled to one SQL statement that runs alike on SQLite and PostgreSQL), the visitor
 * segments and retention.
 *
 * Portability: every bucket is a stored column (no date functions), groups are by position
 * (`group by 1, 2`, so an expression need not be written twice), and every comparison that may
 * meet a NULL is written so that it is true or false, never NULL (NOT of it stays exact).
 */
import { CompiledQuery, type RawBuilder, sql } from "kysely";
import { Value } from "typebox/value";
import { dialectOf, type Executor } from "../../db/database.js";
import type { SiteEventClaimsTable, SiteEventsTable } from "../../db/schema.js";
import { invalid } from "../../lib/errors.js";
import { readBounded, rowGuard } from "./bounded-reads.queries.js";
import { canonicalJson, cleanUrl } from "./events.model.js";
import {
  type AggregateBodyValue,
  type AggregateResultValue,
  COLUMN_VALUES,
  type ColumnName,
  type Operator,
  type QueryColumnValue,
  type QueryFilterValue,
} from "./events.schemas.js";

type Sql = RawBuilder<unknown>;
type EventColumn = keyof SiteEventsTable;

const ref = (name: EventColumn): Sql => sql`${sql.ref(`e.${name}`)}`;
const TRUE = sql`1 = 1`;
const FALSE = sql`1 = 0`;
const and = (parts: Sql[]): Sql => (parts.length === 0 ? TRUE : sql`(${sql.join(parts, sql` and `)})`);
const or = (parts: Sql[]): Sql => (parts.length === 0 ? FALSE : sql`(${sql.join(parts, sql` or `)})`);
const not = (part: Sql): Sql => sql`not ${part}`;

/** The claims joined to the events, one alias per claim path (and one for every property). */
class Joins {
  private claims = new Map<string, string>();
  private anyClaim = false;
  claim(path: string): string {
    let alias = this.claims.get(path);
    if (!alias) {
      alias = `cl${this.claims.size}`;
      this.claims.set(path, alias);
    }
    return alias;
  }
  properties(): string {
    this.anyClaim = true;
    return "clp";
  }
  sql(): Sql {
    const parts: Sql[] = [];
    for (const [path, alias] of this.claims) {
      parts.push(
        sql`left join ${sql.table("siteEventClaims")} as ${sql.id(alias)} on ${sql.ref(`${alias}.eventId`)} = ${sql.ref("e.id")} and ${sql.ref(`${alias}.property`)} = ${path}`,
      );
    }
    if (this.anyClaim) parts.push(sql`left join ${sql.table("siteEventClaims")} as clp on ${sql.ref("clp.eventId")} = ${sql.ref("e.id")}`);
    return sql.join(parts, sql` `);
  }
}

interface Dimension {
  kind: "dimension";
  /** The SQL of the column (a page is two: its space and its page). */
  exprs(column: { interval?: string; claim?: string }, joins: Joins): Sql[];
  /** A row's values of `exprs` as the column's value in the result. */
  decode(values: unknown[], column: { interval?: string }): unknown;
  /** A value of a filter as the values of `exprs` (null: SQL NULL). */
  encode(value: unknown): unknown[];
  /** Grouped by it, events without a value are left out (0.202 gives its values no null). */
  present?: boolean;
  /** Greater than, less than: only of a single, ordered value. */
  ordered?: boolean;
  /** Quire does not know it (the visitor's place: no address is kept): always null. */
  unknown?: boolean;
}

interface Aggregate {
  kind: "aggregate";
  parts: Sql[];
  decode(values: unknown[]): unknown;
  encode(value: unknown): unknown[];
}

const num = (v: unknown) => Number(v ?? 0);

/** One stored column, its value as is (or through `decode`). */
function plain(
  name: EventColumn,
  options: Partial<Dimension> & { decodeOne?: (v: unknown) => unknown; encodeOne?: (v: unknown) => unknown } = {},
): Dimension {
  const { decodeOne, encodeOne, ...rest } = options;
  return {
    kind: "dimension",
    exprs: () => [ref(name)],
    decode: ([v]) => (decodeOne ? decodeOne(v) : (v ?? null)),
    encode: (v) => [encodeOne ? encodeOne(v) : v],
    ordered: true,
    ...rest,
  };
}

/** A text column 0.202 gives no null: an event without it counts as "". */
function text(name: EventColumn): Dimension {
  return {
    kind: "dimension",
    exprs: () => [sql`coalesce(${ref(name)}, '')`],
    decode: ([v]) => (v ?? "") as string,
    encode: (v) => [v],
    ordered: true,
  };
}

const unknownColumn: Dimension = { kind: "dimension", exprs: () => [], decode: () => null, encode: () => [], unknown: true };

const BUCKET: Record<string, { column: EventColumn; iso: (v: string) => string }> = {
  hour: { column: "hour", iso: (v) => `${v}:00:00.000Z` },
  day: { column: "day", iso: (v) => `${v}T00:00:00.000Z` },
  week: { column: "week", iso: (v) => `${v}T00:00:00.000Z` },
  month: { column: "month", iso: (v) => `${v}-01T00:00:00.000Z` },
};
const bucketOf = (interval: string | undefined) => BUCKET[interval ?? "day"] ?? BUCKET.day!;

/** A link's target as stored: a URL without its query and fragment, keys sorted. */
export function linkTargetKey(target: unknown): string {
  const ref = target as Record<string, unknown>;
  const url = ref?.kind === "url" && typeof ref.url === "string" ? cleanUrl(ref.url) : null;
  return canonicalJson(url ? { ...ref, url: url.url } : target);
}

const rating = (value: string) =>
  sql`sum(case when ${ref("type")} = 'page_post_feedback' and ${ref("feedbackRating")} = ${sql.lit(value)} then 1 else 0 end)`;
const askRating = (value: 1 | -1) => sql`sum(case when ${ref("askRating")} = ${sql.lit(value)} then 1 else 0 end)`;

/** Every column of 0.202, as Quire reads it from site_events. */
const COLUMNS: Record<ColumnName, Dimension | Aggregate> = {
  datetime: {
    kind: "dimension",
    exprs: (c) => [ref(bucketOf(c.interval).column)],
    decode: ([v], c) => bucketOf(c.interval).iso(String(v)),
    encode: (v) => [v],
    ordered: true,
  },
  dayOfWeek: plain("dayOfWeek", { decodeOne: num }),
  hourOfDay: plain("hourOfDay", { decodeOne: num }),
  url: plain("url"),
  urlPath: plain("urlPath"),
  eventType: plain("type"),
  eventsCount: { kind: "aggregate", parts: [sql`count(*)`], decode: ([v]) => num(v), encode: (v) => [v] },
  sessionsCount: { kind: "aggregate", parts: [sql`count(distinct ${ref("session")})`], decode: ([v]) => num(v), encode: (v) => [v] },
  visitorsCount: { kind: "aggregate", parts: [sql`count(distinct ${ref("visitor")})`], decode: ([v]) => num(v), encode: (v) => [v] },
  siteSection: plain("siteSection"),
  siteSpace: plain("siteSpace"),
  siteShareKey: plain("siteShareKey"),
  displayContext: plain("displayContext"),
  page: {
    kind: "dimension",
    exprs: () => [ref("spaceId"), ref("pageId")],
    decode: ([space, page]) => (space == null ? null : { space, page: page ?? null }),
    encode: (v) => {
      const value = v as { space: string; page: string | null } | null;
      return value === null ? [undefined, null] : [value.space, value.page];
    },
  },
  visitorGeoCountry: unknownColumn,
  visitorGeoPoint: unknownColumn,
  visitorDevice: plain("device"),
  visitorBrowser: plain("browser"),
  visitorOS: plain("os"),
  visitorBot: plain("bot", { encodeOne: (v) => (v === "" ? null : v) }),
  visitorLanguage: plain("language"),
  visitorAuthenticated: plain("authenticated", {
    decodeOne: (v) => (v == null ? null : Number(v) === 1),
    encodeOne: (v) => (v == null ? null : v ? 1 : 0),
  }),
  visitorClaimProperty: {
    kind: "dimension",
    exprs: (_c, joins) => [sql.ref(`${joins.properties()}.property`)],
    decode: ([v]) => v,
    encode: (v) => [v],
    present: true,
    ordered: true,
  },
  visitorClaim: {
    kind: "dimension",
    exprs: (c, joins) => [sql`coalesce(${sql.ref(`${joins.claim(c.claim ?? "")}.value`)}, '')`],
    decode: ([v]) => (v ?? "") as string,
    encode: (v) => [v],
    ordered: true,
  },
  eventLinkTargetValue: plain("linkTarget", {
    present: true,
    ordered: false,
    decodeOne: (v) => JSON.parse(String(v)),
    encodeOne: linkTargetKey,
  }),
  eventLinkTargetKind: plain("linkKind", { present: true }),
  eventLinkTargetDomain: plain("linkDomain"),
  eventLinkPosition: plain("linkPosition", { present: true }),
  eventAPIOperationPath: plain("apiPath"),
  eventAPIOperationMethod: plain("apiMethod"),
  eventLLMSVariant: plain("llmsVariant"),
  eventPageNotFoundType: plain("notFoundType"),
  eventMarkdownSource: plain("markdownSource"),
  eventSearchQuery: plain("searchQuery", { present: true }),
  eventSearchResultRecordId: plain("searchResult"),
  eventPageFeedbackRating: plain("feedbackRating", { present: true }),
  eventPageFeedbackComment: plain("feedbackComment", { present: true }),
  eventAskResponseRating: plain("askRating", { present: true, decodeOne: num }),
  pageFeedbackRating: {
    kind: "aggregate",
    parts: [rating("ok"), rating("good"), rating("bad")],
    decode: ([ok, good, bad]) => ({ ok: num(ok), good: num(good), bad: num(bad) }),
    encode: (v) => {
      const value = v as { ok: number; good: number; bad: number };
      return [value.ok, value.good, value.bad];
    },
  },
  askResponseRating: {
    kind: "aggregate",
    parts: [askRating(1), askRating(-1)],
    decode: ([positive, negative]) => ({ positive: num(positive), negative: num(negative) }),
    encode: (v) => {
      const value = v as { positive: number; negative: number };
      return [value.positive, value.negative];
    },
  },
  referrer: text("referrer"),
  referrerDomain: text("referrerDomain"),
  utmSource: text("utmSource"),
  utmMedium: text("utmMedium"),
  utmCampaign: text("utmCampaign"),
  utmTerm: text("utmTerm"),
  utmContent: text("utmContent"),
  eventAdDomain: plain("adDomain", { present: true }),
  eventAdPlacement: plain("adPlacement", { present: true }),
  eventTrademarkPlacement: plain("trademarkPlacement", { present: true }),
};

const COMPARE: Record<Exclude<Operator, "in" | "notIn">, Sql> = {
  greaterThan: sql`>`,
  greaterThanOrEqual: sql`>=`,
  lessThan: sql`<`,
  lessThanOrEqual: sql`<=`,
};

/** `expr` equal to `value`, true or false (never NULL): NULL equals only NULL. */
function equal(expr: Sql, value: unknown): Sql {
  return value === null ? sql`${expr} is null` : sql`(${expr} is not null and ${expr} = ${value})`;
}

const RANGE_MS: Record<string, number> = {
  lastYear: 365 * 86_400_000,
  last3Months: 90 * 86_400_000,
  last30Days: 30 * 86_400_000,
  last7Days: 7 * 86_400_000,
  last24Hours: 86_400_000,
};

/** The times a range covers, as ISO strings (both ends included). */
export function rangeOf(range: AggregateBodyValue["range"], now: Date): { from: string; to: string } {
  if (typeof range === "string") return { from: new Date(now.getTime() - (RANGE_MS[range] ?? 0)).toISOString(), to: now.toISOString() };
  const from = new Date(range.from);
  const to = new Date(range.to);
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) throw invalid("body.range: `from` and `to` must be date-times.");
  if (from > to) throw invalid("body.range: `from` is after `to`; give a range that ends after it starts.");
  return { from: from.toISOString(), to: to.toISOString() };
}

const keyOf = (c: QueryColumnValue) =>
  JSON.stringify([c.column, c.column === "datetime" ? (c.interval ?? "day") : null, c.column === "visitorClaim" ? c.claim : null]);

function checkClaim(c: { column: string; claim?: string | undefined }, at: string) {
  if (c.column === "visitorClaim" && !c.claim)
    throw invalid(`${at}: the visitorClaim column needs \`claim\`, the claim's path (e.g. "plan").`);
}

/** The SQL condition of one filter (WHERE for a column of events, HAVING for a count). */
function condition(filter: QueryFilterValue, at: string, joins: Joins): { having: boolean; sql: Sql } {
  checkClaim(filter, at);
  const item = COLUMN_VALUES[filter.column];
  filter.values.forEach((value, i) => {
    if (!Value.Check(item, value))
      throw invalid(`${at}.values[${i}] is not a value of the ${filter.column} column: ${JSON.stringify(value)?.slice(0, 100)}.`);
  });
  const operator = filter.operator ?? "in";
  const def = COLUMNS[filter.column];
  if (def.kind === "aggregate") {
    const rows = filter.values.map((v) => def.encode(v));
    if (operator === "in" || operator === "notIn") {
      const matched = or(rows.map((parts) => and(def.parts.map((p, i) => sql`${p} = ${parts[i]}`))));
      return { having: true, sql: operator === "in" ? matched : not(matched) };
    }
    const [first] = rows;
    if (!first) throw invalid(`${at}: \`${operator}\` needs a value.`);
    return { having: true, sql: and(def.parts.map((p, i) => sql`${p} ${COMPARE[operator]} ${first[i]}`)) };
  }
  if (filter.column === "datetime") {
    if (operator === "in" || operator === "notIn") {
      // A time matches the events of its UTC day (a filter names no interval).
      const days = filter.values.map((v) => new Date(String(v)).toISOString().slice(0, 10));
      const matched = or(days.map((d) => equal(ref("day"), d)));
      return { having: false, sql: operator === "in" ? matched : not(matched) };
    }
    const [first] = filter.values;
    if (first === undefined) throw invalid(`${at}: \`${operator}\` needs a value.`);
    return { having: false, sql: sql`${ref("at")} ${COMPARE[operator]} ${new Date(String(first)).toISOString()}` };
  }
  if (def.unknown) {
    // No visitor's place is known: every event's is null.
    const hasNull = filter.values.includes(null);
    if (operator === "in") return { having: false, sql: hasNull ? TRUE : FALSE };
    if (operator === "notIn") return { having: false, sql: hasNull ? FALSE : TRUE };
    return { having: false, sql: FALSE };
  }
  if (filter.column === "visitorClaimProperty") {
    // Whether the event's visitor brought such a claim: a subquery, not the join, which would
    // count an event once per claim.
    const claimOf = (test: Sql) =>
      sql`exists (select 1 from ${sql.table("siteEventClaims")} as cf where ${sql.ref("cf.eventId")} = ${sql.ref("e.id")} and ${test})`;
    const property = sql.ref("cf.property");
    if (operator === "in" || operator === "notIn") {
      const values = filter.values.filter((v): v is string => typeof v === "string");
      const matched = values.length ? claimOf(sql`${property} in (${sql.join(values)})`) : FALSE;
      return { having: false, sql: operator === "in" ? matched : not(matched) };
    }
    const [first] = filter.values;
    if (typeof first !== "string") throw invalid(`${at}: \`${operator}\` needs one value that is not null.`);
    return { having: false, sql: claimOf(sql`${property} ${COMPARE[operator]} ${first}`) };
  }
  const exprs = def.exprs(filter, joins);
  if (operator === "in" || operator === "notIn") {
    const matched = or(
      filter.values.map((v) => {
        const encoded = def.encode(v);
        return and(exprs.map((e, i) => (encoded[i] === undefined ? TRUE : equal(e, encoded[i]))));
      }),
    );
    return { having: false, sql: operator === "in" ? matched : not(matched) };
  }
  if (!def.ordered) throw invalid(`${at}: the ${filter.column} column is compared with \`in\` or \`notIn\` only.`);
  const [first] = filter.values;
  if (first === undefined || first === null) throw invalid(`${at}: \`${operator}\` needs one value that is not null.`);
  const [expr] = exprs;
  return { having: false, sql: sql`${expr} ${COMPARE[operator]} ${def.encode(first)[0]}` };
}

/**
 * Runs an aggregation of 0.202 over a site's events. The result has one column per `groupBy`
 * column, then one per `select` column not already there (a column of events in `select` is grouped
 * by too); a query with neither counts events. Without `order`: by time when grouped by time, else
 * by the first count, largest first; ties by the grouped columns.
 */
/** `readableSpaces`: the site's spaces the caller may read (only their events and those of no space count). */
export async function aggregateEvents(
  db: Executor,
  siteId: string,
  body: AggregateBodyValue,
  now: Date,
  readableSpaces: readonly string[],
): Promise<AggregateResultValue> {
  const joins = new Joins();
  const output: QueryColumnValue[] = [];
  const seen = new Set<string>();
  const add = (c: QueryColumnValue, at: string) => {
    checkClaim(c, at);
    if (seen.has(keyOf(c))) return;
    seen.add(keyOf(c));
    output.push(c);
  };
  for (const [i, c] of (body.groupBy ?? []).entries()) add(c, `body.groupBy[${i}]`);
  for (const [i, c] of (body.select ?? []).entries()) add(c, `body.select[${i}]`);
  if (output.length === 0) add({ column: "eventsCount" }, "body.select");

  const { from, to } = rangeOf(body.range, now);
  const where: Sql[] = [sql`${ref("siteId")} = ${siteId}`, sql`${ref("at")} >= ${from}`, sql`${ref("at")} <= ${to}`];
  // Events of a space are counted only when the caller may read it; events of no space (the site's
  // llms.txt, MCP, searches, 404s) always.
  where.push(
    readableSpaces.length
      ? sql`(${ref("spaceId")} is null or ${ref("spaceId")} in (${sql.join(readableSpaces.map((id) => sql`${id}`))}))`
      : sql`${ref("spaceId")} is null`,
  );
  const having: Sql[] = [];
  (body.where ?? []).forEach((f, i) => {
    const c = condition(f, `body.where[${i}]`, joins);
    (c.having ? having : where).push(c.sql);
  });

  // The SELECT list: each output column's expressions, named c<column>p<part> (no underscore: the camel-case plugin would rename it).
  const selects: Sql[] = [];
  const grouped: number[] = [];
  const slots = output.map((c, ci) => {
    const def = COLUMNS[c.column];
    const exprs = def.kind === "aggregate" ? def.parts : def.exprs(c, joins);
    const names = exprs.map((expr, pi) => {
      const name = `c${ci}p${pi}`;
      selects.push(sql`${expr} as ${sql.id(name)}`);
      if (def.kind === "dimension") {
        grouped.push(selects.length);
        if (def.present) where.push(sql`${expr} is not null`);
      }
      return name;
    });
    return { column: c, def, names };
  });

  // ORDER BY names of the SELECT list (both databases take a bare output name there).
  const order: Sql[] = [];
  const direction = (d: "asc" | "desc") => (d === "desc" ? sql`desc` : sql`asc`);
  if (body.order) {
    const by = body.order.by;
    checkClaim(by, "body.order.by");
    const slot = slots.find((s) => keyOf(s.column) === keyOf(by));
    if (slot) for (const name of slot.names) order.push(sql`${sql.id(name)} ${direction(body.order.direction)}`);
    else {
      const def = COLUMNS[by.column];
      if (def.kind !== "aggregate")
        throw invalid(`body.order.by: ${by.column} is not among the columns grouped by or selected; add it to \`groupBy\`.`);
      def.parts.forEach((part, pi) => {
        const name = `o${pi}`;
        selects.push(sql`${part} as ${sql.id(name)}`);
        order.push(sql`${sql.id(name)} ${direction(body.order?.direction ?? "desc")}`);
      });
    }
  } else {
    const time = slots.find((s) => s.column.column === "datetime");
    const count = slots.find((s) => s.def.kind === "aggregate");
    if (time) for (const name of time.names) order.push(sql`${sql.id(name)} asc`);
    else if (count) for (const name of count.names) order.push(sql`${sql.id(name)} desc`);
  }
  for (const s of slots) if (s.def.kind === "dimension") for (const name of s.names) order.push(sql`${sql.id(name)} asc`);
  if (selects.length === 0) selects.push(sql`count(*) as ${sql.id("none")}`);

  // Last: the time limit's check, made only for the rows every other condition keeps (bounded-reads.queries.ts).
  where.push(rowGuard(db));
  const query = sql<
    Record<string, unknown>
  >`select ${sql.join(selects)} from ${sql.table("siteEvents")} as e ${joins.sql()} where ${and(where)}${
    grouped.length ? sql` group by ${sql.join(grouped.map((n) => sql.lit(n)))}` : sql``
  }${having.length ? sql` having ${and(having)}` : sql``}${order.length ? sql` order by ${sql.join(order)}` : sql``} limit ${sql.lit(body.limit ?? 1000)}`;
  const rows = await readBounded(db, query.compile(db), "The aggregation");
  // A grouped column Quire does not know (the visitor's place) is null in every row.
  return {
    columns: slots.map((s) => ({
      column: s.column.column,
      ...(s.column.column === "visitorClaim" ? { claim: s.column.claim } : {}),
      values: rows.map((row) =>
        s.def.decode(
          s.names.map((n) => row[n]),
          s.column,
        ),
      ),
    })),
  };
}

/** The events of a site by the claims its visitors brought: events, visitors, sessions. */
export async function visitorSegments(db: Executor, siteId: string) {
  const query = db
    .selectFrom("siteEvents")
    .select(({ fn }) => [
      "segment",
      fn.countAll().as("events"),
      sql<number>`count(distinct ${sql.ref("visitor")})`.as("visitors"),
      sql<number>`count(distinct ${sql.ref("session")})`.as("sessions"),
    ])
    .where("siteId", "=", siteId)
    .where(rowGuard(db))
    .groupBy("segment");
  const rows = await readBounded(db, query.compile(), "Counting the visitor segments");
  return rows.map((r) => ({ segment: r.segment, events: Number(r.events), visitors: Number(r.visitors), sessions: Number(r.sessions) }));
}

const EVENT_COLUMNS = [
  "id",
  "siteId",
  "at",
  "hour",
  "day",
  "week",
  "month",
  "hourOfDay",
  "dayOfWeek",
  "type",
  "visitor",
  "session",
  "displayContext",
  "url",
  "urlPath",
  "browser",
  "device",
  "os",
  "authenticated",
  "segment",
  "siteSection",
  "siteSpace",
  "siteShareKey",
  "spaceId",
  "pageId",
  "notFoundType",
  "referrer",
  "referrerDomain",
  "utmSource",
  "utmMedium",
  "utmCampaign",
  "utmTerm",
  "utmContent",
  "language",
  "bot",
  "searchQuery",
  "searchResult",
  "feedbackRating",
  "feedbackComment",
  "linkTarget",
  "linkKind",
  "linkDomain",
  "linkPosition",
  "apiPath",
  "apiMethod",
  "llmsVariant",
  "markdownSource",
  "adDomain",
  "adPlacement",
  "trademarkPlacement",
  "askRating",
] as const satisfies readonly (keyof SiteEventsTable)[];
// Every column of the table is written: a column added to SiteEventsTable and not listed fails here.
const everyColumn: Exclude<keyof SiteEventsTable, (typeof EVENT_COLUMNS)[number]> extends never ? true : never = true;
void everyColumn;

/** Rows per multi-row insert: 20 x 51 parameters, inside both databases' limits. */
const EVENTS_PER_INSERT = 20;

/**
 * The SQL of an insert of `rows` events, by dialect, compiled once: building and compiling a
 * many-row insert with Kysely on every write cost more than the database's own work of storing
 * the rows. Its parameters are the rows' values, row after row, in EVENT_COLUMNS' order.
 */
const insertSql = new Map<string, string>();
function insertSqlOf(db: Executor, rows: number): string {
  const key = `${dialectOf(db)}:${rows}`;
  let text = insertSql.get(key);
  if (text === undefined) {
    const row = Object.fromEntries(EVENT_COLUMNS.map((column) => [column, null]));
    const compiled = db
      .insertInto("siteEvents")
      .values(Array.from({ length: rows }, () => row as unknown as SiteEventsTable))
      .compile();
    if (compiled.parameters.length !== rows * EVENT_COLUMNS.length) throw new Error("siteEvents insert: unexpected parameters");
    insertSql.set(key, (text = compiled.sql));
  }
  return text;
}

async function insertEventRows(db: Executor, rows: readonly SiteEventsTable[]): Promise<void> {
  const parameters: unknown[] = [];
  for (const row of rows) for (const column of EVENT_COLUMNS) parameters.push(row[column] ?? null);
  await db.executeQuery(CompiledQuery.raw(insertSqlOf(db, rows.length), parameters));
}

export async function insertEvents(
  db: Executor,
  events: readonly SiteEventsTable[],
  claims: readonly SiteEventClaimsTable[],
): Promise<void> {
  let i = 0;
  for (; i + EVENTS_PER_INSERT <= events.length; i += EVENTS_PER_INSERT) await insertEventRows(db, events.slice(i, i + EVENTS_PER_INSERT));
  // The rest one by one: one more compiled statement, not one per remainder size.
  for (; i < events.length; i++) await insertEventRows(db, [events[i]!]);
  for (let i = 0; i < claims.length; i += 500)
    await db
      .insertInto("siteEventClaims")
      .values(claims.slice(i, i + 500))
      .execute();
}

/** The events of days before `beforeDay` (and their claims): the retention job's. */
export async function deleteEventsBefore(db: Executor, beforeDay: string): Promise<number> {
  await db
    .deleteFrom("siteEventClaims")
    .where("eventId", "in", (q) => q.selectFrom("siteEvents").select("id").where("day", "<", beforeDay))
    .execute();
  const result = await db.deleteFrom("siteEvents").where("day", "<", beforeDay).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The site's adaptive schema (which claims are categories), or null when it has none. */
export async function adaptiveSchemaOf(db: Executor, siteId: string): Promise<unknown> {
  const row = await db.selectFrom("siteAdaptiveSchemas").select("jsonSchema").where("siteId", "=", siteId).executeTakeFirst();
  if (!row) return null;
  try {
    return JSON.parse(row.jsonSchema);
  } catch {
    return null;
  }
}
