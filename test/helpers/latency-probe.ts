/**
 * A health check from outside the server's process, like a load balancer's: a client in the test's
 * own process would be held by a stalled event loop too, and would not see the stall.
 */
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { expect } from "vitest";
import { configureWorkerThreads } from "../../src/workers/pool.js";

/**
 * Requests the URL every 20 ms until its stdin closes, printing each answer's latency in ms (a
 * request not answered counts from when it was sent, and the next waits for it).
 */
const PROBE = `
const url = process.argv[1];
let done = false;
process.stdin.on("end", () => { done = true; });
process.stdin.resume();
(async () => {
  while (!done) {
    const started = performance.now();
    const res = await fetch(url);
    await res.text();
    if (res.status !== 200) throw new Error("healthz answered " + res.status);
    process.stdout.write((performance.now() - started).toFixed(1) + "\\n");
    await new Promise((r) => setTimeout(r, 20));
  }
})().catch((e) => { console.error(e); process.exit(1); });
`;

/** Starts probing `url`; `stop()` ends the probe and returns the latency of each answer, in ms. */
export async function startLatencyProbe(url: string): Promise<{ stop(): Promise<number[]> }> {
  const probe = spawn(process.execPath, ["-e", PROBE, url], { stdio: ["pipe", "pipe", "inherit"] });
  let output = "";
  probe.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise((resolve) => probe.on("close", resolve));
  await new Promise((resolve) => setTimeout(resolve, 300)); // the probe's first answers
  return {
    async stop() {
      probe.stdin.end();
      await exited;
      return output.split("\n").filter(Boolean).map(Number);
    },
  };
}

/** What a piece of work cost the server's request thread, measured by `whileProbing`. */
export interface ProbedRun<T> {
  result: T;
  /** Latency of each /healthz answer while the work ran, in ms. */
  latencies: number[];
  /** Share of the time this process's event loop (the server's request thread) was busy. */
  busy: number;
  ms: number;
}

/** Runs `work` while probing `healthUrl` from another process, and measures the request thread meanwhile. */
export async function whileProbing<T>(healthUrl: string, work: () => Promise<T>): Promise<ProbedRun<T>> {
  const probe = await startLatencyProbe(healthUrl);
  const started = performance.now();
  const loop = performance.eventLoopUtilization();
  let result: T;
  let latencies: number[];
  try {
    result = await work();
  } finally {
    latencies = await probe.stop();
  }
  return { result, latencies, busy: performance.eventLoopUtilization(loop).utilization, ms: performance.now() - started };
}

/** One run's figures: its time, the request thread's share, the worst /healthz latency. */
export function describeRun(name: string, run: ProbedRun<unknown>): string {
  return `${name}: ${run.ms.toFixed(0)} ms, request thread busy ${(run.busy * 100).toFixed(0)}%, worst /healthz ${Math.max(...run.latencies).toFixed(0)} ms over ${run.latencies.length} requests`;
}

/**
 * The work ran in a worker thread (`worker`): the request thread was far less busy than with the
 * same work forced onto it (`inline`), which kept it busy and shows the measure can tell the two
 * apart. Relative, not a wall-clock bound. Prints the figures and returns them.
 */
export function expectLessOfTheRequestThread(worker: ProbedRun<unknown>, inline: ProbedRun<unknown>): string {
  const figures = `${describeRun("worker thread", worker)}; ${describeRun("inline", inline)}`;
  console.log(figures);
  expect(worker.latencies.length, figures).toBeGreaterThan(10);
  expect(inline.busy, figures).toBeGreaterThan(0.8);
  // Relative, not an absolute "under 50%": the request thread's own share (the body's JSON parse,
  // the database) is a wall-clock measure that other processes on the machine stretch (one run
  // beside other tests: 63% against 28-38% alone). Work that went back to the request thread
  // would make the two runs alike.
  expect(worker.busy, figures).toBeLessThan(inline.busy - 0.25);
  return figures;
}

/**
 * As expectLessOfTheRequestThread, and /healthz was held less, at worst, than the same work
 * held it inline. Relative, not an absolute bound (200 ms, the figure printed): a loaded machine
 * stretches both runs alike, and work gone back to the request thread makes them alike.
 */
export function expectOffTheRequestThread(worker: ProbedRun<unknown>, inline: ProbedRun<unknown>): void {
  const figures = expectLessOfTheRequestThread(worker, inline);
  expect(Math.max(...worker.latencies), figures).toBeLessThan(Math.max(...inline.latencies));
}

/**
 * Runs `work` with the worker threads, then again forced onto the request thread
 * (QUIRE_WORKER_THREADS=0), for tests that compare the two runs' results and their latencies.
 */
export async function bothWays<T>(work: () => Promise<T>): Promise<{ worker: T; inline: T }> {
  const worker = await work();
  return { worker, inline: await onTheRequestThread(work) };
}

/** Runs `work` with the worker threads off (QUIRE_WORKER_THREADS=0), as a comparison for the threaded run. */
export async function onTheRequestThread<T>(work: () => Promise<T>): Promise<T> {
  configureWorkerThreads(0);
  try {
    return await work();
  } finally {
    configureWorkerThreads(1);
  }
}
