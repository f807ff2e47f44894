/**
 * What `npm run bench` (run.ts) and the paired two-commit run (ab.ts) share: the targets a bench
 * server (server.ts) offers, starting one, and measuring a target with autocannon and the server's
 * CPU time from /proc.
 */
import { execFileSync, spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import autocannon from "autocannon";
import { cpuMicros } from "./proc-cpu.js";

export interface Target {
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

export interface BenchServer {
  targets: Target[];
  responseBytes: number;
  pid: number | undefined;
  stop: () => void;
}

/** One measurement of a target: requests per second, p99 latency, and server CPU µs per request (when its pid is known). */
export interface Measured {
  rps: number;
  p99: number;
  cpu: number | undefined;
}

export const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

/** Pins this process to core 0 and answers whether the server can have core 1 to itself. */
export function pinToCoreZero(): boolean {
  if (os.availableParallelism() < 2) return false;
  try {
    execFileSync("taskset", ["-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Gives this process every core back (after pinToCoreZero). */
export function unpin(): void {
  execFileSync("taskset", ["-p", "-c", `0-${os.availableParallelism() - 1}`, String(process.pid)], { stdio: "ignore" });
}

/**
 * Starts a bench server (by default this checkout's server.ts; ab.ts passes another checkout's),
 * on core 1 when `pinned`, and returns once it has printed its targets.
 */
/**
 * `compiled`: the server loads src/ modules from the build in dist/ (bench/compiled.mjs), as `quire
 * serve` runs, rather than tsx's transpile (whose keepNames wrappers cost CPU in every closure).
 */
export async function startServer(
  pinned: boolean,
  { script = path.join(import.meta.dirname, "server.ts"), compiled = false }: { script?: string; compiled?: boolean } = {},
): Promise<BenchServer> {
  // The checkout's own tsx, so that the server's imports resolve from its own files.
  const hooks = compiled ? ["--import", path.join(path.dirname(script), "compiled.mjs")] : [];
  const command = [process.execPath, "--import", "tsx", ...hooks, script];
  // taskset execs the command, so the child is the server itself (SIGTERM reaches it).
  const [file, ...args] = pinned ? ["taskset", "-c", "1", ...command] : command;
  const child = spawn(file!, args, { stdio: ["ignore", "pipe", "inherit"], cwd: path.dirname(path.dirname(script)) });
  const lines = readline.createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`bench server ${script} exited with ${code}`)));
  });
  return { ...JSON.parse(first), pid: child.pid, stop: () => child.kill("SIGTERM") };
}

/** The targets whose name holds one of `filter`'s words, with their baselines (all of them for an empty filter). */
export function chooseTargets(targets: Target[], filter: string[]): Target[] {
  if (filter.length === 0) return targets;
  const chosen = targets.filter((t) => filter.some((word) => t.name.includes(word)));
  const baselines = new Set(chosen.flatMap((t) => (t.baseline ? [t.baseline] : [])));
  return targets.filter((t) => chosen.includes(t) || baselines.has(t.name));
}

function shuffled(words: readonly string[]): string[] {
  const out = [...words];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as string, out[i] as string];
  }
  return out;
}

/** Load-tests `target` for `seconds`; with the server's pid, its CPU time per request answered (from /proc). */
export async function measure(target: Target, seconds: number, serverPid?: number): Promise<Measured> {
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

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
