/**
 * `npm run bench`: load-tests the hot paths with autocannon against a server in a child process,
 * and reports each figure as a ratio against baselines measured in the same run (these machines
 * are noisy, so only same-run ratios are comparable).
 *
 * BENCH_DURATION (seconds per target, default 10), BENCH_CONNECTIONS (default 10). Latency targets
 * (search) also run with one connection, so that their p99 is the request's own latency rather
 * than time spent queued behind nine others on a single-threaded server.
 */
import { execFileSync, spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import autocannon from "autocannon";

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  baseline?: string;
  /** Concurrent connections for this target (default BENCH_CONNECTIONS). */
  connections?: number;
}

const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

async function startServer(): Promise<{ targets: Target[]; responseBytes: number; stop: () => void }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "server.ts")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { ...JSON.parse(first), stop: () => child.kill("SIGTERM") };
}

async function measure(target: Target) {
  const options = { url: target.url, headers: target.headers, connections: target.connections ?? connections };
  // A short warm-up lets V8 optimise the hot paths before the measured run.
  await autocannon({ ...options, duration: 2 });
  const result = await autocannon({ ...options, duration });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${target.name}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  }
  return { rps: result.requests.average, p99: result.latency.p99 };
}

async function main() {
  const server = await startServer();
  try {
    console.log(`autocannon: ${connections} connections, ${duration}s per target (after a 2s warm-up); response ${server.responseBytes} bytes`);
    const results = new Map<string, { rps: number; p99: number }>();
    for (const target of server.targets) {
      results.set(target.name, await measure(target));
    }
    console.log("");
    console.log(`${"target".padEnd(50)} ${"req/s".padStart(9)} ${"p99 ms".padStart(7)}  ratio`);
    for (const target of server.targets) {
      const r = results.get(target.name)!;
      const base = target.baseline ? results.get(target.baseline) : undefined;
      const ratio = base ? `${((r.rps / base.rps) * 100).toFixed(0)}% of ${target.baseline}` : "";
      console.log(`${target.name.padEnd(50)} ${r.rps.toFixed(0).padStart(9)} ${String(r.p99).padStart(7)}  ${ratio}`);
    }
  } finally {
    server.stop();
  }
  // One-shot measurements, each in its own process so that their memory figures are their own.
  console.log("");
  for (const [script, args] of [
    ["import.bench.ts", ["1000", "2000"]],
    ["merge.bench.ts", []],
    ["merge-api.bench.ts", []],
  ] as const) {
    const output = execFileSync(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, script), ...args], { encoding: "utf8" });
    console.log(output.trim());
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
