/**
 * `npm run bench`: load-tests the hot paths with autocannon against a server in a child process,
 * and reports each figure as a ratio against baselines measured in the same run (these machines
 * are noisy, so only same-run ratios are comparable).
 *
 * Two figures per target: the server process's CPU time per request (user + system of all its
 * threads, from /proc, divided by the requests answered), and requests per second. CPU per request
 * is the one to compare: other programs sharing the server's core slow its requests down but do
 * not add to its CPU time, so the ratio holds on a busy machine where req/s wanders.
 *
 * BENCH_DURATION (seconds per target, default 12), split into BENCH_ROUNDS (default 6) rounds;
 * req/s is the median of the rounds, p99 the worst round. BENCH_CONNECTIONS (default 10). Latency targets
 * (search) also run with one connection, so that their p99 is the request's own latency rather
 * than time spent queued behind nine others on a single-threaded server.
 *
 * Where `taskset` exists and there are two or more cores, the server runs on core 1 and autocannon
 * (this process) on core 0: unpinned, the two fight over both cores and figures vary by half from
 * one run to the next; pinned, they repeat within a few percent.
 *
 * BENCH_FILTER (comma-separated): only the targets whose name holds one of the words (with their
 * baselines), and none of the one-shot measurements.
 *
 * The server runs the compiled build (dist/, built first when a source is newer: `npm start`'s
 * check), as `quire serve` does; the bench's own files go through tsx, and bench/compiled.mjs
 * loads every src/ module they import from dist/. BENCH_SOURCES=1 runs the sources through tsx
 * instead (no build; tsx's output costs a few percent more CPU per request than tsc's).
 *
 * BENCH_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres): also GET space on
 * PostgreSQL, against a raw `pg` server, on a database created for the run and dropped after it;
 * and, among the one-shot measurements, two Quire processes on one database
 * (postgres-processes.bench.ts: CPU per request of each and of PostgreSQL's backends).
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { chooseTargets, connections, type Measured, measure, median, pinToCoreZero, startServer, unpin } from "./load.js";

const duration = Number(process.env.BENCH_DURATION ?? 12);
// Short rounds, many of them: a burst of noise from the machine's neighbours spoils one round's
// ratio, and the median of six shrugs it off better than the median of three.
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);

async function main() {
  if (!process.env.BENCH_SOURCES) {
    execFileSync(process.execPath, [path.join(import.meta.dirname, "..", "scripts", "build-if-stale.mjs")], { stdio: "inherit" });
  }
  const pinned = pinToCoreZero();
  const server = await startServer(pinned, { compiled: !process.env.BENCH_SOURCES });
  server.targets = chooseTargets(server.targets, (process.env.BENCH_FILTER ?? "").split(",").filter(Boolean));
  try {
    const seconds = Math.max(1, Math.round(duration / rounds));
    console.log(
      `autocannon: ${connections} connections; ${rounds} rounds of ${seconds}s per target (after a 2s warm-up); response ${server.responseBytes} bytes`,
    );
    console.log(process.env.BENCH_SOURCES ? "server: the sources, through tsx" : "server: the compiled build (dist/)");
    console.log(
      pinned ? "server pinned to core 1, autocannon to core 0" : "not pinned (no taskset or a single core): expect noisy figures",
    );
    // A short warm-up lets V8 optimise the hot paths before anything is measured.
    for (const target of server.targets) await measure(target, 2);
    // Every target is measured once per round and a ratio is taken within a round, so that it
    // compares figures taken seconds apart rather than minutes (the machine's speed drifts).
    const runs = new Map<string, Measured[]>(server.targets.map((t) => [t.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const target of server.targets) runs.get(target.name)!.push(await measure(target, seconds, server.pid));
    }
    console.log("");
    console.log(
      `${"target".padEnd(50)} ${"req/s".padStart(9)} ${"p99 ms".padStart(7)} ${"CPU µs/req".padStart(10)}  ratios to the baseline (median of the rounds' ratios; CPU: lowest-highest round)`,
    );
    for (const target of server.targets) {
      const r = runs.get(target.name)!;
      const base = target.baseline ? runs.get(target.baseline) : undefined;
      const percent = base ? median(r.map((x, i) => x.rps / base[i]!.rps)) * 100 : 0;
      const cpuRatios = base ? r.flatMap((x, i) => (x.cpu && base[i]!.cpu ? [x.cpu / base[i]!.cpu!] : [])) : [];
      const cpuRatio =
        cpuRatios.length > 0
          ? `CPU/req ${median(cpuRatios).toFixed(2)}x (${Math.min(...cpuRatios).toFixed(2)}-${Math.max(...cpuRatios).toFixed(2)}), `
          : "";
      const ratio = base ? `${cpuRatio}req/s ${percent.toFixed(percent < 10 ? 1 : 0)}% of ${target.baseline}` : "";
      const rps = median(r.map((x) => x.rps));
      const p99 = Math.max(...r.map((x) => x.p99));
      const cpus = r.flatMap((x) => (x.cpu === undefined ? [] : [x.cpu]));
      const cpu = cpus.length > 0 ? median(cpus).toFixed(0) : "-";
      console.log(`${target.name.padEnd(50)} ${rps.toFixed(0).padStart(9)} ${String(p99).padStart(7)} ${cpu.padStart(10)}  ${ratio}`);
    }
  } finally {
    server.stop();
  }
  // The one-shot measurements (which run git and use both cores) get every core back.
  if (pinned) unpin();
  if (process.env.BENCH_FILTER) return;
  // One-shot measurements, each in its own process so that their memory figures are their own.
  console.log("");
  for (const [script, args] of [
    ["import.bench.ts", ["1000", "2000"]],
    ["merge.bench.ts", []],
    ["merge-api.bench.ts", []],
    ["published.bench.ts", ["1000"]],
    ["page-document-api.bench.ts", []],
    // Two `quire serve` processes on one PostgreSQL database, on a scratch database of that server.
    ...(process.env.BENCH_POSTGRES_URL ? ([["postgres-processes.bench.ts", []]] as const) : []),
  ] as const) {
    const output = execFileSync(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, script), ...args], {
      encoding: "utf8",
    });
    console.log(output.trim());
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
