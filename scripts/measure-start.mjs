#!/usr/bin/env node
// Measures the start of the built server (`npm run build` first) on an existing SQLite database:
// from spawning `node bin/quire.js serve` until its "quire is serving" log line and a 200 from
// /healthz. Prints, per run and as the median of the runs, the CPU time (user + system, all threads
// of the process, read from /proc/<pid>/stat at that moment) and the wall time. CPU time is the
// figure to compare on a shared machine: wall time moves with the load of other processes.
//
//   node scripts/measure-start.mjs [--runs 5] [--node-arg=--no-enable-source-maps ...] [--entry bin/quire.js]
//
// The first start (on a fresh temporary data directory, QUIRE_SAMPLE=false) makes the database
// and is not counted. By default node runs with `npm start`'s flags.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const runs = Number(option("--runs", "5"));
const entry = path.resolve(root, option("--entry", "bin/quire.js"));
const extra = args.filter((a) => a.startsWith("--node-arg=")).map((a) => a.slice("--node-arg=".length));
const nodeArgs = extra.length > 0 ? extra : ["--enable-source-maps", "--max-semi-space-size=4"];
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** utime + stime of every thread of the process, in seconds. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

async function healthy(port) {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200;
  } catch {
    return false;
  }
}

async function startOnce(dataDir) {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...nodeArgs, entry, "serve"], {
    cwd: root,
    env: { ...process.env, QUIRE_DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", QUIRE_SAMPLE: "false", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const serving = new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      output += chunk;
      if (output.includes('"msg":"quire is serving"')) resolve();
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.once("exit", (code) => reject(new Error(`the server exited (${code}) before serving:\n${output}`)));
  });
  await serving;
  while (!(await healthy(port))) await new Promise((r) => setTimeout(r, 5));
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = cpuSeconds(child.pid);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
  return { cpu, wall };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const dataDir = mkdtempSync(path.join(os.tmpdir(), "quire-start-"));
try {
  await startOnce(dataDir); // makes and migrates the database: not counted
  const results = [];
  for (let i = 0; i < runs; i++) {
    const result = await startOnce(dataDir);
    results.push(result);
    console.log(`run ${i + 1}: cpu ${result.cpu.toFixed(2)} s, wall ${result.wall.toFixed(2)} s`);
  }
  const cpu = median(results.map((r) => r.cpu));
  const wall = median(results.map((r) => r.wall));
  console.log(
    `median of ${runs} (node ${nodeArgs.join(" ")} ${path.relative(root, entry)} serve): cpu ${cpu.toFixed(2)} s, wall ${wall.toFixed(2)} s`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
