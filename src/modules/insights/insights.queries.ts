/**
 * Insights of published sites: the recorder's batched writes (counters added to, visitors and
 * questions inserted once) and the reads of the Insights page and the site question operations.
 * Days are UTC days as YYYY-MM-DD; times ISO strings.
 */
import { type Compilable, CompiledQuery, sql } from "kysely";
import { dialectOf, type Executor } from "../../db/database.js";
import type {
  SiteInsightSaltsTable,
  SitePageViewsTable,
  SiteQuestionAnswersTable,
  SiteQuestionsTable,
  SiteSearchesTable,
  SiteVisitorsTable,
} from "../../db/schema.js";
import { type Page, paginate, type SortKey } from "../../lib/pagination.js";
import { readBounded, rowGuard } from "./bounded-reads.queries.js";

/** The salt of a day, made by the first process that needs it (others read the same one). */
export async function saltOfDay(db: Executor, day: string, fresh: string): Promise<string> {
  await db
    .insertInto("siteInsightSalts")
    .values({ day, salt: fresh } satisfies SiteInsightSaltsTable)
    .onConflict((oc) => oc.column("day").doNothing())
    .execute();
  const row = await db.selectFrom("siteInsightSalts").select("salt").where("day", "=", day).executeTakeFirstOrThrow();
  return row.salt;
}

/** Sites that still exist among these ids (a site deleted between a view and the flush is skipped). */
export async function existingSiteIds(db: Executor, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom("sites")
    .select("id")
    .where("id", "in", [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * Counter rows written through an insert compiled once per dialect, table and number of rows:
 * building and compiling a 200-row upsert with Kysely on every write cost as much as the database's
 * own work of it. Rows go in slices of 200, then 20, then one by one (a few compiled statements,
 * not one per remainder size). `build`: the statement of these rows (placeholders: the parameters
 * are each row's `columns`, in order).
 */
const counterSql = new Map<string, string>();
async function writeCounters<T extends object>(
  db: Executor,
  table: string,
  rows: readonly T[],
  columns: readonly (keyof T & string)[],
  build: (rows: T[]) => Compilable,
): Promise<void> {
  let i = 0;
  for (const size of [200, 20, 1]) {
    for (; i + size <= rows.length; i += size) {
      const key = `${dialectOf(db)}:${table}:${size}`;
      let text = counterSql.get(key);
      if (text === undefined) {
        // Placeholder rows with the columns in `columns`' order: the statement's parameters follow it.
        const row = Object.fromEntries(columns.map((column) => [column, null])) as T;
        const compiled = build(Array.from({ length: size }, () => row)).compile();
        if (compiled.parameters.length !== size * columns.length) throw new Error(`${table} insert: unexpected parameters`);
        counterSql.set(key, (text = compiled.sql));
      }
      const parameters: unknown[] = [];
      for (let r = i; r < i + size; r++) for (const column of columns) parameters.push(rows[r]![column]);
      await db.executeQuery(CompiledQuery.raw(text, parameters));
    }
  }
}

const PAGE_VIEW_COLUMNS = [
  "siteId",
  "day",
  "spaceId",
  "pageId",
  "source",
  "agent",
  "views",
] as const satisfies readonly (keyof SitePageViewsTable)[];
const VISITOR_COLUMNS = ["siteId", "day", "visitor", "agent"] as const satisfies readonly (keyof SiteVisitorsTable)[];
// Every column of each table is written: a column added and not listed fails here.
const everyCounterColumn: [
  Exclude<keyof SitePageViewsTable, (typeof PAGE_VIEW_COLUMNS)[number]>,
  Exclude<keyof SiteVisitorsTable, (typeof VISITOR_COLUMNS)[number]>,
] extends [never, never]
  ? true
  : never = true;
void everyCounterColumn;

export async function addPageViews(db: Executor, rows: readonly SitePageViewsTable[]): Promise<void> {
  await writeCounters(db, "sitePageViews", rows, PAGE_VIEW_COLUMNS, (slice) =>
    db
      .insertInto("sitePageViews")
      .values(slice)
      .onConflict((oc) =>
        oc
          .columns(["siteId", "day", "spaceId", "pageId", "source", "agent"])
          .doUpdateSet({ views: sql`site_page_views.views + excluded.views` }),
      ),
  );
}

export async function addVisitors(db: Executor, rows: readonly SiteVisitorsTable[]): Promise<void> {
  await writeCounters(db, "siteVisitors", rows, VISITOR_COLUMNS, (slice) =>
    db
      .insertInto("siteVisitors")
      .values(slice)
      .onConflict((oc) => oc.columns(["siteId", "day", "visitor"]).doNothing()),
  );
}

export async function addSearches(db: Executor, rows: readonly SiteSearchesTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto("siteSearches")
      .values(rows.slice(i, i + 200))
      .onConflict((oc) =>
        oc.columns(["siteId", "day", "query"]).doUpdateSet({
          searches: sql`site_searches.searches + excluded.searches`,
          noResult: sql`site_searches.no_result + excluded.no_result`,
        }),
      )
      .execute();
  }
}

/** The questions of a site by key (to add answers to the ones already asked). */
export async function questionsByKey(db: Executor, siteId: string, keys: readonly string[]): Promise<Map<string, SiteQuestionsTable>> {
  if (keys.length === 0) return new Map();
  const rows = await db
    .selectFrom("siteQuestions")
    .selectAll()
    .where("siteId", "=", siteId)
    .where("key", "in", [...keys])
    .execute();
  return new Map(rows.map((r) => [r.key, r]));
}

export async function insertQuestions(db: Executor, rows: readonly SiteQuestionsTable[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto("siteQuestions")
    .values([...rows])
    .execute();
}

export async function touchQuestion(db: Executor, id: string, askedAt: string): Promise<void> {
  await db.updateTable("siteQuestions").set({ askedAt }).where("id", "=", id).where("askedAt", "<", askedAt).execute();
}

export async function insertAnswers(db: Executor, rows: readonly SiteQuestionAnswersTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto("siteQuestionAnswers")
      .values(rows.slice(i, i + 200))
      .execute();
}

/** Retention: every insights row of days before `beforeDay` (and answers before its start). */
export async function deleteInsightsBefore(db: Executor, beforeDay: string): Promise<number> {
  let deleted = 0;
  const count = (r: { numDeletedRows: bigint }) => {
    deleted += Number(r.numDeletedRows);
  };
  count(await db.deleteFrom("sitePageViews").where("day", "<", beforeDay).executeTakeFirst());
  count(await db.deleteFrom("siteVisitors").where("day", "<", beforeDay).executeTakeFirst());
  count(await db.deleteFrom("siteSearches").where("day", "<", beforeDay).executeTakeFirst());
  count(await db.deleteFrom("siteQuestionAnswers").where("createdAt", "<", beforeDay).executeTakeFirst());
  // A question whose every answer is gone goes too.
  count(
    await db
      .deleteFrom("siteQuestions")
      .where("askedAt", "<", beforeDay)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom("siteQuestionAnswers").select("id").whereRef("siteQuestionAnswers.questionId", "=", "siteQuestions.id"))),
      )
      .executeTakeFirst(),
  );
  return deleted;
}

/** Salts of past days are of no use once their day is over: kept two days (a flush just after midnight). */
export async function deleteSaltsBefore(db: Executor, beforeDay: string): Promise<void> {
  await db.deleteFrom("siteInsightSalts").where("day", "<", beforeDay).execute();
}

const n = (value: unknown) => Number(value ?? 0);

export interface DayCounts {
  day: string;
  browser: number;
  agent: number;
}

/** Views per day, by browsers and agents. */
export async function viewsByDay(db: Executor, siteId: string, from: string, to: string): Promise<DayCounts[]> {
  const rows = await db
    .selectFrom("sitePageViews")
    .select(["day", "agent"])
    .select((eb) => eb.fn.sum<number | string>("views").as("views"))
    .where("siteId", "=", siteId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .groupBy(["day", "agent"])
    .execute();
  return foldDays(rows.map((r) => ({ day: r.day, agent: n(r.agent), value: n(r.views) })));
}

/** Distinct visitors per day, by browsers and agents. */
export async function visitorsByDay(db: Executor, siteId: string, from: string, to: string): Promise<DayCounts[]> {
  const rows = await db
    .selectFrom("siteVisitors")
    .select(["day", "agent"])
    .select((eb) => eb.fn.countAll<number | string>().as("visitors"))
    .where("siteId", "=", siteId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .groupBy(["day", "agent"])
    .execute();
  return foldDays(rows.map((r) => ({ day: r.day, agent: n(r.agent), value: n(r.visitors) })));
}

function foldDays(rows: { day: string; agent: number; value: number }[]): DayCounts[] {
  const byDay = new Map<string, DayCounts>();
  for (const row of rows) {
    const day = byDay.get(row.day) ?? { day: row.day, browser: 0, agent: 0 };
    if (row.agent) day.agent += row.value;
    else day.browser += row.value;
    byDay.set(row.day, day);
  }
  return [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
}

export interface SourceCount {
  source: SitePageViewsTable["source"];
  agent: boolean;
  views: number;
}

/** Views by where they came from (a page, its Markdown, llms.txt, llms-full.txt, MCP) and by whom. */
export async function viewsBySource(db: Executor, siteId: string, from: string, to: string): Promise<SourceCount[]> {
  const rows = await db
    .selectFrom("sitePageViews")
    .select(["source", "agent"])
    .select((eb) => eb.fn.sum<number | string>("views").as("views"))
    .where("siteId", "=", siteId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .groupBy(["source", "agent"])
    .orderBy("source")
    .orderBy("agent")
    .execute();
  return rows.map((r) => ({ source: r.source, agent: n(r.agent) === 1, views: n(r.views) }));
}

export interface PageCount {
  spaceId: string;
  pageId: string;
  browser: number;
  agent: number;
}

/** The pages read most (as HTML or Markdown), by browsers and agents. */
export async function topPages(db: Executor, siteId: string, from: string, to: string, limit: number): Promise<PageCount[]> {
  const rows = await db
    .selectFrom("sitePageViews")
    .select(["spaceId", "pageId"])
    .select(sql<number | string>`sum(case when agent = 0 then views else 0 end)`.as("browser"))
    .select(sql<number | string>`sum(case when agent = 1 then views else 0 end)`.as("agentViews"))
    .select((eb) => eb.fn.sum<number | string>("views").as("total"))
    .where("siteId", "=", siteId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .where("pageId", "!=", "")
    .groupBy(["spaceId", "pageId"])
    .orderBy("total", "desc")
    .orderBy("pageId")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ spaceId: r.spaceId, pageId: r.pageId, browser: n(r.browser), agent: n(r.agentViews) }));
}

export interface SearchCount {
  query: string;
  searches: number;
  noResult: number;
}

/** The searches made most; with `noResultOnly`, those that found nothing, most made first. */
export async function topSearches(
  db: Executor,
  siteId: string,
  from: string,
  to: string,
  limit: number,
  noResultOnly = false,
): Promise<SearchCount[]> {
  let query = db
    .selectFrom("siteSearches")
    .select("query")
    .select((eb) => [eb.fn.sum<number | string>("searches").as("searches"), eb.fn.sum<number | string>("noResult").as("noResult")])
    .where("siteId", "=", siteId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .groupBy("query");
  if (noResultOnly) query = query.having((eb) => eb.fn.sum("noResult"), ">", 0);
  const rows = await query
    .orderBy(noResultOnly ? sql`sum(no_result)` : sql`sum(searches)`, "desc")
    .orderBy("query")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ query: r.query, searches: n(r.searches), noResult: n(r.noResult) }));
}

/** Searches in all, and those that found nothing. */
export async function searchTotals(
  db: Executor,
  siteId: string,
  from: string,
  to: string,
): Promise<{ searches: number; noResult: number }> {
  const row = await db
    .selectFrom("siteSearches")
    .select((eb) => [eb.fn.sum<number | string>("searches").as("searches"), eb.fn.sum<number | string>("noResult").as("noResult")])
    .where("siteId", "=", siteId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .executeTakeFirst();
  return { searches: n(row?.searches), noResult: n(row?.noResult) };
}

export interface AnswerFilter {
  /** Times (ISO), inclusive. */
  from?: string | undefined;
  to?: string | undefined;
  answered?: readonly SiteQuestionAnswersTable["answered"][] | undefined;
  channel?: readonly SiteQuestionAnswersTable["channel"][] | undefined;
  questionId?: string | undefined;
  type?: SiteQuestionsTable["type"] | undefined;
}

function answersOf(db: Executor, siteId: string, filter: AnswerFilter) {
  let query = db
    .selectFrom("siteQuestionAnswers")
    .innerJoin("siteQuestions", "siteQuestions.id", "siteQuestionAnswers.questionId")
    .where("siteQuestionAnswers.siteId", "=", siteId);
  if (filter.from) query = query.where("siteQuestionAnswers.createdAt", ">=", filter.from);
  if (filter.to) query = query.where("siteQuestionAnswers.createdAt", "<=", filter.to);
  if (filter.answered?.length) query = query.where("siteQuestionAnswers.answered", "in", [...filter.answered]);
  if (filter.channel?.length) query = query.where("siteQuestionAnswers.channel", "in", [...filter.channel]);
  if (filter.questionId) query = query.where("siteQuestionAnswers.questionId", "=", filter.questionId);
  if (filter.type) query = query.where("siteQuestions.type", "=", filter.type);
  return query;
}

export type AnswerRow = SiteQuestionAnswersTable & { type: SiteQuestionsTable["type"] };

/** What the counts read of an answer: neither its text nor its sources, so a year of a busy site's questions stays small to read. */
export type AnswerFacts = Pick<AnswerRow, "id" | "questionId" | "type" | "answered" | "channel" | "createdAt">;

export async function listAnswerFacts(db: Executor, siteId: string, filter: AnswerFilter): Promise<AnswerFacts[]> {
  // Every answer of the period (a year of a busy site's): read as the events are (bounded-reads.queries.ts).
  const query = answersOf(db, siteId, filter)
    .where(rowGuard(db))
    .select([
      "siteQuestionAnswers.id",
      "siteQuestionAnswers.questionId",
      "siteQuestions.type",
      "siteQuestionAnswers.answered",
      "siteQuestionAnswers.channel",
      "siteQuestionAnswers.createdAt",
    ]);
  return readBounded(db, query.compile(), "Counting the questions asked");
}

/** One page of the answers that match, newest first (keyset paging in the database). */
export function pageOfAnswers(
  db: Executor,
  siteId: string,
  filter: AnswerFilter,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<AnswerRow>> {
  const query = answersOf(db, siteId, filter).selectAll("siteQuestionAnswers").select("siteQuestions.type");
  const keys: SortKey<AnswerRow>[] = [
    { column: "siteQuestionAnswers.createdAt", direction: "desc", value: (r) => r.createdAt },
    { column: "siteQuestionAnswers.id", direction: "desc", value: (r) => r.id },
  ];
  return paginate(query, keys, options);
}

/** The answers that match, whole, with their question's type (one question's sources read them). */
export async function listAnswers(db: Executor, siteId: string, filter: AnswerFilter): Promise<AnswerRow[]> {
  return answersOf(db, siteId, filter)
    .selectAll("siteQuestionAnswers")
    .select("siteQuestions.type")
    .orderBy("siteQuestionAnswers.createdAt", "desc")
    .orderBy("siteQuestionAnswers.id", "desc")
    .execute();
}

/** One answer of the site, whole, with its question's type. */
export async function getAnswer(db: Executor, siteId: string, id: string): Promise<AnswerRow | undefined> {
  return answersOf(db, siteId, {})
    .selectAll("siteQuestionAnswers")
    .select("siteQuestions.type")
    .where("siteQuestionAnswers.id", "=", id)
    .executeTakeFirst();
}

export async function getQuestion(db: Executor, siteId: string, id: string): Promise<SiteQuestionsTable | undefined> {
  return db.selectFrom("siteQuestions").selectAll().where("siteId", "=", siteId).where("id", "=", id).executeTakeFirst();
}

/** The questions with an answer the filter keeps: one statement however many they are (no list of ids is sent). */
export async function questionsAnswered(db: Executor, siteId: string, filter: AnswerFilter): Promise<SiteQuestionsTable[]> {
  return db
    .selectFrom("siteQuestions")
    .selectAll()
    .where("siteId", "=", siteId)
    .where("id", "in", answersOf(db, siteId, filter).select("siteQuestionAnswers.questionId"))
    .execute();
}
