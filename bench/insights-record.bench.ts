/**
 * `npx tsx bench/insights-record.bench.ts [reads]` (default 1,000 per pass): what recording a read
 * of a published site costs, by part, on SQLite, without the rest of the server: the recorder's
 * view() as the request path calls it, then its flush (the counters and the events), over passes
 * shaped like bench/published.bench.ts's (three user agents, 200 addresses, one URL per page).
 * CPU per read of each part, medians of the passes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import pino from "pino";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { InsightsRecorder } from "../src/modules/insights/recorder.service.js";

const READS = Number(process.argv[2] ?? 1000);
const PASSES = Number(process.argv[3] ?? 12);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-record-bench-"));
const file = path.join(dir, "quire.db");
const handle = openDatabase({ sqlitePath: file });
await migrateToLatest(handle.db);
const raw = new SQLite(file);
raw.pragma("foreign_keys = OFF");
const now = new Date().toISOString();
raw
  .prepare(
    "insert into sites (id, org_id, type, title, basename, visibility, agents_context, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  )
  .run("site-bench", "org-bench", "basic", "Bench", "bench", "public", "", now, now);
raw.close();

const recorder = new InsightsRecorder({ db: handle.db, secret: "bench-secret", log: pino({ level: "silent" }) }, true, 60_000);
const agents = ["Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "GPTBot/1.2", "curl/8.5.0"];
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const viewUs: number[] = [];
const flushUs: number[] = [];
for (let pass = 0; pass < PASSES; pass++) {
  const t = cpu();
  for (let i = 0; i < READS; i++) {
    recorder.view(
      {
        siteId: "site-bench",
        ip: `198.51.100.${i % 200}`,
        userAgent: agents[i % agents.length],
        url: `http://localhost:8080/bench/page-${i}`,
        referrer: undefined,
        language: "en-US,en;q=0.9",
      },
      "page",
      "space-bench",
      `page-${i}`,
    );
  }
  const t2 = cpu();
  await recorder.flush(true);
  const t3 = cpu();
  viewUs.push((t2 - t) / READS);
  flushUs.push((t3 - t2) / READS);
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const counted = new SQLite(file, { readonly: true });
const events = counted.prepare("select count(*) as n from site_events").get() as { n: number };
counted.close();
console.log(
  `recording ${READS} reads per pass, ${PASSES} passes (${events.n} events written): view() ${median(viewUs).toFixed(1)} µs per read, flush ${median(flushUs).toFixed(1)} µs per read; CPU medians`,
);
await handle.destroy?.();
fs.rmSync(dir, { recursive: true, force: true });
