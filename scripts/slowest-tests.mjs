#!/usr/bin/env node
/**
 * Prints where a test run's time went, from vitest's JSON report (`--reporter=json --outputFile=<file>`):
 * the time of all files added up, and the slowest files (a database test appears once per database). Durations are wall time of a
 * file in its worker, so on a busy machine they say where to look, not what a file costs alone.
 *
 *   node scripts/slowest-tests.mjs <report.json> [how many, default 20]
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";

const [file, count = "20"] = process.argv.slice(2);
if (!file) {
  console.error("usage: node scripts/slowest-tests.mjs <vitest JSON report> [how many]");
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, "utf8"));
const rows = report.testResults.map((r) => ({
  file: relative(process.cwd(), r.name),
  seconds: (r.endTime - r.startTime) / 1000,
  tests: r.assertionResults.length,
}));
const total = rows.reduce((sum, r) => sum + r.seconds, 0);
console.log(`${rows.length} test file runs, ${total.toFixed(0)} s of file time in all (two workers share the wall clock)`);
for (const r of rows.sort((a, b) => b.seconds - a.seconds).slice(0, Number(count))) {
  console.log(`${r.seconds.toFixed(1).padStart(8)} s  ${String(r.tests).padStart(4)} tests  ${r.file}`);
}
