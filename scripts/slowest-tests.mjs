#!/usr/bin/env node
/**
 * Prints where a test run's time went, from vitest's JSON report (`--reporter=json --outputFile=<file>`):
 * the time of all files added up, and the slowest files (a database test appears once per database). Durations are wall time of a
 * file in its worker, so on a busy machine they say where to look, not what a file costs alone.
 *
 *   node scripts/slowest-tests.mjs <report.json> [how many, default 20] [--durations test/durations.json]
 *
 * With --durations, also writes the seconds of every file that took 10 s or more (the longest of
 * its projects) into that file, which test/sequencer.ts reads to start the longest files first.
 * Write it from a whole run on the CI machine: a partial run would forget the other files.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const args = process.argv.slice(2);
const durationsAt = args.indexOf("--durations");
const durationsFile = durationsAt === -1 ? undefined : args.splice(durationsAt, 2)[1];
const [file, count = "20"] = args;
if (!file || (durationsAt !== -1 && !durationsFile)) {
  console.error("usage: node scripts/slowest-tests.mjs <vitest JSON report> [how many] [--durations <file>]");
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, "utf8"));
/** The checkout the report's run was in (file paths are absolute): the nearest folder with a package.json. */
function checkoutOf(testFile) {
  for (let dir = dirname(testFile); dir !== dirname(dir); dir = dirname(dir)) if (existsSync(join(dir, "package.json"))) return dir;
  return process.cwd();
}
const root = report.testResults.length ? checkoutOf(report.testResults[0].name) : process.cwd();
const rows = report.testResults.map((r) => ({
  // Relative to that checkout, so that a report of a clean clone (CI's) names files as this checkout does.
  file: relative(root, r.name),
  seconds: (r.endTime - r.startTime) / 1000,
  tests: r.assertionResults.length,
}));
const total = rows.reduce((sum, r) => sum + r.seconds, 0);
console.log(`${rows.length} test file runs, ${total.toFixed(0)} s of file time in all (two workers share the wall clock)`);
for (const r of rows.sort((a, b) => b.seconds - a.seconds).slice(0, Number(count))) {
  console.log(`${r.seconds.toFixed(1).padStart(8)} s  ${String(r.tests).padStart(4)} tests  ${r.file}`);
}

if (durationsFile) {
  const seconds = {};
  for (const r of rows) if (r.seconds >= 10) seconds[r.file] = Math.max(seconds[r.file] ?? 0, Math.round(r.seconds));
  const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : 1)));
  const about = JSON.parse(readFileSync(durationsFile, "utf8")).about;
  writeFileSync(durationsFile, `${JSON.stringify({ about, seconds: sorted }, null, 2)}\n`);
  console.log(`${Object.keys(sorted).length} files of 10 s or more written to ${durationsFile}`);
}
