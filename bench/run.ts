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
import { execFileSync, spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import autocannon from "autocannon";
import { cpuMicros } from "./proc-cpu.js";

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  baseline?: string;
  /** Concurrent connections for this target (default BENCH_CONNECTIONS). */
  connections?: number;
  /**
   * Each request asks these words in a random order, appended to the URL (a query parameter's
   * value): the same results, but a different query each time for whatever keeps answers by query.
   */
  shuffledWords?: string[];
}

const duration = Number(process.env.BENCH_DURATION ?? 12);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
// Short rounds, many of them: a burst of noise from the machine's neighbours spoils one round's
// ratio, and the median of six shrugs it off better than the median of three.
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);

/** Pins this process to core 0 and answers whether the server can have core 1 to itself. */
function pinToCoreZero(): boolean {
  if (os.availableParallelism() < 2) return false;
  try {
    execFileSync("taskset", ["-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

async function startServer(
  pinned: boolean,
): Promise<{ targets: Target[]; responseBytes: number; pid: number | undefined; stop: () => void }> {
  const compiled = process.env.BENCH_SOURCES ? [] : ["--import", path.join(import.meta.dirname, "compiled.mjs")];
  const command = [process.execPath, "--import", "tsx", ...compiled, path.join(import.meta.dirname, "server.ts")];
  // taskset execs the command, so the child is the server itself (SIGTERM reaches it).
  const [file, ...args] = pinned ? ["taskset", "-c", "1", ...command] : command;
  const child = spawn(file!, args, { stdio: ["ignore", "pipe", "inherit"] });
  const lines = readline.createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { ...JSON.parse(first), pid: child.pid, stop: () => child.kill("SIGTERM") };
}

function shuffled(words: readonly string[]): string[] {
  const out = [...words];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as string, out[i] as string];
  }
  return out;
}

async function measure(target: Target, seconds: number, serverPid?: number) {
  const options = { url: target.url, headers: target.headers, connections: target.connections ?? connections };
  const { shuffledWords } = target;
  const path = new URL(target.url);
  const requests = shuffledWords
    ? [
        {
          setupRequest: (request: autocannon.Request) => ({
            ...request,
            path: `${path.pathname}${path.search}${encodeURIComponent(shuffled(shuffledWords).join(" "))}`,
          }),
        },
      ]
    : undefined;
  const cpuBefore = serverPid === undefined ? undefined : cpuMicros(serverPid);
  const result = await autocannon({ ...options, duration: seconds, ...(requests ? { requests } : {}) });
  const cpuAfter = serverPid === undefined ? undefined : cpuMicros(serverPid);
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${target.name}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  }
  const answered = result.requests.total;
  const cpu = cpuBefore !== undefined && cpuAfter !== undefined && answered > 0 ? (cpuAfter - cpuBefore) / answered : undefined;
  return { rps: result.requests.average, p99: result.latency.p99, cpu };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main() {
  if (!process.env.BENCH_SOURCES) {
    execFileSync(process.execPath, [path.join(import.meta.dirname, "..", "scripts", "build-if-stale.mjs")], { stdio: "inherit" });
  }
  const pinned = pinToCoreZero();
  const server = await startServer(pinned);
  const filter = (process.env.BENCH_FILTER ?? "").split(",").filter(Boolean);
  if (filter.length > 0) {
    const chosen = server.targets.filter((t) => filter.some((word) => t.name.includes(word)));
    const baselines = new Set(chosen.flatMap((t) => (t.baseline ? [t.baseline] : [])));
    server.targets = server.targets.filter((t) => chosen.includes(t) || baselines.has(t.name));
  }
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
    const runs = new Map<string, { rps: number; p99: number; cpu: number | undefined }[]>(server.targets.map((t) => [t.name, []]));
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
  if (pinned) execFileSync("taskset", ["-p", "-c", `0-${os.availableParallelism() - 1}`, String(process.pid)], { stdio: "ignore" });
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
