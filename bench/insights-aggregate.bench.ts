/**
 * `npx tsx bench/insights-aggregate.bench.ts [events]` (default 1,000,000): what an aggregation of
 * aggregateSiteEvents over a year of a busy site's events costs on SQLite, and how long it holds the
 * thread that answers requests. Seeds `events` events of one site spread over the last 365 days
 * (page views of 400 paths, one in four by an agent, searches, 404s, referrers) in a fresh
 * database, then runs each aggregation of the Insights page over `lastYear`:
 *
 * - baseline: the statement on the calling thread's own connection (as before bounded-reads.queries.ts);
 * - bounded: through bounded-reads.queries.ts (a worker thread, its read-only connection, the time limit).
 *
 * For each: the wall time, and the longest the calling thread's event loop was held (the longest
 * gap between two turns of a 1 ms timer; a free loop shows 1-2 ms), as figures and as ratios of
 * bounded to baseline measured in the same run. Both reads must give the same result. Then the
 * widest aggregation under a time limit of a fifth of its time: when it was stopped.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import type { Database } from "../src/db/schema.js";
import { QuireCamelCasePlugin } from "../src/db/sqlite-statements.js";
import { configureInsightsReadLimit } from "../src/modules/insights/bounded-reads.queries.js";
import { bucketsOf } from "../src/modules/insights/events.model.js";
import { aggregateEvents } from "../src/modules/insights/events.queries.js";
import type { AggregateBodyValue } from "../src/modules/insights/events.schemas.js";
import { closeWorkerThreads, configureWorkerThreads } from "../src/workers/pool.js";

const events = Number(process.argv[2] ?? 1_000_000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-insights-bench-"));
const file = path.join(dir, "quire.db");
configureWorkerThreads(1);
const handle = openDatabase({ sqlitePath: file });
await migrateToLatest(handle.db);

// One organization and site (the events' foreign key), written directly.
const siteId = "site-bench";
const raw = new SQLite(file);
raw.pragma("foreign_keys = OFF");
const seedStart = performance.now();
const columns = [
  "id",
  "site_id",
  "at",
  "hour",
  "day",
  "week",
  "month",
  "hour_of_day",
  "day_of_week",
  "type",
  "visitor",
  "session",
  "display_context",
  "url",
  "url_path",
  "browser",
  "device",
  "os",
  "segment",
  "bot",
  "page_id",
  "space_id",
  "referrer_domain",
  "search_query",
  "search_result",
];
const insert = raw.prepare(`insert into site_events (${columns.join(", ")}) values (${columns.map(() => "?").join(", ")})`);
const now = Date.now();
const yearMs = 365 * 86_400_000;
const REFERRERS = [null, null, null, "www.google.com", "github.com", "news.ycombinator.com", "stackoverflow.com", "chatgpt.com"];
const BOTS = [null, null, null, "gptbot", "claudebot", "googlebot"];
raw.transaction(() => {
  for (let i = 0; i < events; i++) {
    const at = new Date(now - 3_600_000 - Math.floor((i / events) * yearMs));
    const b = bucketsOf(at);
    const kind = i % 20;
    const type = kind === 0 ? "search_type_query" : "page_view";
    const missing = kind === 1; // a 404: a page view of no page
    const p = (i * 7919) % 400;
    insert.run(
      `e${i}`,
      siteId,
      b.at,
      b.hour,
      b.day,
      b.week,
      b.month,
      b.hourOfDay,
      b.dayOfWeek,
      type,
      `v${i % 5000}`,
      `s${i % 20000}`,
      "site",
      `https://docs.example.com/p${p}`,
      missing ? `/gone/${p % 60}` : `/p${p}`,
      "firefox",
      "desktop",
      "linux",
      "",
      BOTS[i % BOTS.length],
      type === "page_view" && !missing ? `page${p}` : null,
      type === "page_view" && !missing ? "space-bench" : null,
      REFERRERS[i % REFERRERS.length],
      type === "search_type_query" ? `query ${i % 300}` : null,
      type === "search_type_query" ? (i % 3 === 0 ? null : "found") : null,
    );
  }
})();
raw.close();
console.log(
  `seeded ${events.toLocaleString("en")} events over 365 days in ${((performance.now() - seedStart) / 1000).toFixed(1)} s (${file})`,
);

// The calling thread's own connection, as before: a Kysely of the same file that bounded-reads.queries.ts
// does not know (no file recorded), so the statement runs on it, on this thread.
const direct = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(file) }), plugins: [new QuireCamelCasePlugin()] });

const queries: [string, AggregateBodyValue][] = [
  [
    "views by day",
    { range: "lastYear", groupBy: [{ column: "datetime", interval: "day" }], where: [{ column: "eventType", values: ["page_view"] }] },
  ],
  [
    "top referrers",
    { range: "lastYear", groupBy: [{ column: "referrerDomain" }], select: [{ column: "eventsCount" }], limit: 10 } as AggregateBodyValue,
  ],
  [
    "404 paths",
    {
      range: "lastYear",
      where: [
        { column: "eventType", values: ["page_view"] },
        { column: "page", values: [null] },
      ],
      groupBy: [{ column: "urlPath" }],
      select: [{ column: "eventsCount" }],
      limit: 10,
    } as AggregateBodyValue,
  ],
  [
    "agents by week",
    {
      range: "lastYear",
      groupBy: [{ column: "datetime", interval: "week" }, { column: "visitorBot" }],
      select: [{ column: "eventsCount" }],
    },
  ],
];

async function measure(run: () => Promise<unknown>): Promise<{ wallMs: number; blockedMs: number; result: string }> {
  // A 1 ms timer, as requests arriving would be: the longest gap between two of its turns is the
  // longest the thread was held.
  let last = performance.now();
  let blockedMs = 0;
  const ticking = setInterval(() => {
    const t = performance.now();
    blockedMs = Math.max(blockedMs, t - last);
    last = t;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  blockedMs = 0;
  const start = performance.now();
  const result = JSON.stringify(await run());
  const wallMs = performance.now() - start;
  await new Promise((resolve) => setTimeout(resolve, 5));
  clearInterval(ticking);
  return { wallMs, blockedMs, result };
}

const spaces = ["space-bench"];
// A first read of each kind warms the page cache and starts the worker thread.
await aggregateEvents(handle.db, siteId, queries[0]![1], new Date(), spaces);
await aggregateEvents(direct, siteId, queries[0]![1], new Date(), spaces);
console.log(
  `load average: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")} on ${os.availableParallelism()} cores`,
);
console.log("aggregation            baseline wall  blocked  |  bounded wall  blocked  |  wall ratio  blocked ratio");
for (const [name, body] of queries) {
  const baseline = await measure(() => aggregateEvents(direct, siteId, body, new Date(), spaces));
  const bounded = await measure(() => aggregateEvents(handle.db, siteId, body, new Date(), spaces));
  if (baseline.result !== bounded.result) throw new Error(`${name}: the two reads differ`);
  const f = (ms: number) => `${ms.toFixed(0).padStart(7)} ms`;
  console.log(
    `${name.padEnd(22)} ${f(baseline.wallMs)} ${f(baseline.blockedMs)}  | ${f(bounded.wallMs)} ${f(bounded.blockedMs)}  |  ${(bounded.wallMs / baseline.wallMs).toFixed(2).padStart(8)}  ${(bounded.blockedMs / baseline.blockedMs).toFixed(3).padStart(12)}`,
  );
}
// The time limit: the widest aggregation under a limit of a fifth of its time stops at the limit
// (how late after it, is how promptly a statement is stopped), and the next read is whole.
const [widest, widestBody] = queries[queries.length - 1]!;
const full = await measure(() => aggregateEvents(handle.db, siteId, widestBody, new Date(), spaces));
const limit = Math.max(10, Math.round(full.wallMs / 5));
configureInsightsReadLimit(limit);
const stopped = performance.now();
const outcome = await aggregateEvents(handle.db, siteId, widestBody, new Date(), spaces).then(
  () => "answered",
  (error: Error) => error.message.slice(0, 40),
);
console.log(
  `${widest} under a ${limit} ms limit: "${outcome}..." after ${(performance.now() - stopped).toFixed(0)} ms (${full.wallMs.toFixed(0)} ms without a limit)`,
);
configureInsightsReadLimit(10_000);
await direct.destroy();
await handle.destroy();
await closeWorkerThreads();
fs.rmSync(dir, { recursive: true, force: true });
