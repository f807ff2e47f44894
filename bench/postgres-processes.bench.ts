/**
 * Two Quire processes on one PostgreSQL database: `quire serve` twice, on a scratch database
 * created for the run and dropped after it, both driven at once with GET space and GET page
 * document. Reports the CPU time per request of each Quire process and of PostgreSQL's backends
 * serving that database (user + system from /proc, deltas over the rounds), and from those the
 * throughput N processes would reach on N+1 cores (N cores for Quire, one for PostgreSQL):
 * min(N / Quire CPU per request, 1 / PostgreSQL CPU per request). Then checks that a token revoked
 * by a third process (as `quire tokens revoke` does) is refused by both, and how long that took.
 *
 * `npm run bench` runs it when BENCH_POSTGRES_URL is set; alone:
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/postgres-processes.bench.ts
 * BENCH_ROUNDS (default 5) rounds of BENCH_ROUND_SECONDS (default 3) per target; 5 connections per process.
 * PostgreSQL must run on this machine (its backends' CPU is read from /proc).
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import type pg from "pg";
import { loadInstanceSecret } from "../src/bootstrap.js";
import { loadConfig } from "../src/config.js";
import { createApiToken, revokeApiToken } from "../src/modules/users/tokens.queries.js";
import { cpuMicros } from "./proc-cpu.js";
import { scratchPostgres } from "./scratch-postgres.js";
import { importGeneratedRepo } from "./seed.js";

const url = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const roundSeconds = Number(process.env.BENCH_ROUND_SECONDS ?? 3);
const CONNECTIONS = 5;
const PAGES = 200;

interface Server {
  child: ChildProcess;
  url: string;
  dataDir: string;
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-bench-proc-"));
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "serve"], {
    cwd: path.resolve(import.meta.dirname, ".."),
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", QUIRE_SAMPLE: "false", QUIRE_DATA_DIR: dataDir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr!.on("data", (d) => (output += d));
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`quire serve did not start:\n${output}`)), 300_000);
    child.stdout!.on("data", (d) => {
      output += d;
      const match = /"address":"(http:[^"]+)"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        // Its log is not needed any more, but must be drained.
        child.stdout!.removeAllListeners("data");
        child.stdout!.resume();
        child.stderr!.removeAllListeners("data");
        child.stderr!.resume();
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`quire serve exited with ${code}:\n${output}`)));
  });
  return { child, url: address, dataDir };
}

/** CPU time (µs) of every backend of the database now, by process id. */
async function backendCpu(admin: pg.Client, database: string): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>("select pid from pg_stat_activity where datname = $1", [database]);
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    const cpu = cpuMicros(pid);
    if (cpu !== undefined) out.set(pid, cpu);
  }
  return out;
}

/** CPU spent between two snapshots by the backends seen in the second (a new backend counts from zero). */
function spent(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, cpu] of after) total += cpu - (before.get(pid) ?? 0);
  return total;
}

async function main() {
  const name = `quire_bench_procs_${process.pid}`;
  const scratch = await scratchPostgres(url, name);
  const { handle, admin, organization, token, user } = scratch;
  const databaseUrl = new URL(scratch.url);
  const servers: Server[] = [];
  try {
    const env = {
      DATABASE_URL: databaseUrl.href,
      // API processes as behind a load balancer (README: several processes); the jobs (the import
      // below) run in this process's worker.
      QUIRE_SERVICES: "web",
      // The limiter runs (its cost is measured, counts in the database as by default) but never refuses the load.
      QUIRE_RATE_LIMIT_TOKEN: "1000000000",
      QUIRE_RATE_LIMIT_ADDRESS: "1000000000",
    };
    servers.push(...(await Promise.all([startServer(env), startServer(env)])));
    const [a, b] = servers as [Server, Server];
    const auth = { authorization: `Bearer ${token}` };
    const api = async (base: string, pathname: string, init: RequestInit = {}) => {
      const res = await fetch(`${base}${pathname}`, { ...init, headers: { ...auth, "content-type": "application/json", ...init.headers } });
      if (!res.ok) throw new Error(`${init.method ?? "GET"} ${pathname}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<any>;
    };
    const space = await api(a.url, `/v1/orgs/${organization.id}/spaces`, { method: "POST", body: JSON.stringify({ title: "Bench" }) });
    const config = loadConfig({ DATABASE_URL: databaseUrl.href, QUIRE_DATA_DIR: a.dataDir, LOG_LEVEL: "silent" });
    const { repo } = await importGeneratedRepo(
      { db: handle.db, dialect: handle.dialect, config, secret: await loadInstanceSecret(handle.db) },
      { spaceId: space.id, actorId: user.id, pages: PAGES, images: 0 },
    );
    repo.cleanup();
    const pages = (await api(b.url, `/v1/spaces/${space.id}/content/pages`)).pages;
    const page = pages[3].pages[2];
    const revision = (await api(b.url, `/v1/spaces/${space.id}/content`)).id as string;
    const targets = [
      { name: "GET space", path: `/v1/spaces/${space.id}` },
      { name: "GET page document", path: `/v1/spaces/${space.id}/revisions/${revision}/page/${page.id}/document` },
    ];

    const drive = (server: Server, target: (typeof targets)[number], seconds: number) =>
      autocannon({ url: `${server.url}${target.path}`, headers: auth, connections: CONNECTIONS, duration: seconds });
    for (const target of targets) await Promise.all(servers.map((s) => drive(s, target, 2)));

    console.log(
      `Two Quire processes on one PostgreSQL database (${os.availableParallelism()} cores here), ${CONNECTIONS} connections each, ` +
        `${rounds} rounds of ${roundSeconds}s per target; CPU per request from /proc, totals over the rounds`,
    );
    console.log(
      `${"target".padEnd(20)} ${"req/s A+B".padStart(10)} ${"Quire A µs".padStart(11)} ${"Quire B µs".padStart(11)} ${"PG µs".padStart(7)}  N processes on N+1 cores: req/s (limited by)`,
    );
    for (const target of targets) {
      let requests = [0, 0];
      let quire = [0, 0];
      let postgres = 0;
      let elapsed = 0;
      for (let round = 0; round < rounds; round++) {
        const quireBefore = servers.map((s) => cpuMicros(s.child.pid!) ?? Number.NaN);
        const pgBefore = await backendCpu(admin, name);
        const started = performance.now();
        const results = await Promise.all(servers.map((s) => drive(s, target, roundSeconds)));
        elapsed += (performance.now() - started) / 1000;
        const pgAfter = await backendCpu(admin, name);
        const quireAfter = servers.map((s) => cpuMicros(s.child.pid!) ?? Number.NaN);
        for (const r of results) {
          if (r.non2xx > 0 || r.errors > 0) throw new Error(`${target.name}: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
        }
        requests = requests.map((n, i) => n + results[i]!.requests.total);
        quire = quire.map((n, i) => n + quireAfter[i]! - quireBefore[i]!);
        postgres += spent(pgBefore, pgAfter);
      }
      const total = requests[0]! + requests[1]!;
      const perQuire = quire.map((cpu, i) => cpu / requests[i]!);
      const quireMean = (quire[0]! + quire[1]!) / total;
      const perPg = postgres / total;
      const projections = [1, 2, 4, 8].map((n) => {
        const byQuire = (n * 1e6) / quireMean;
        const byPg = perPg > 0 ? 1e6 / perPg : Number.POSITIVE_INFINITY;
        return `${n}: ${Math.round(Math.min(byQuire, byPg))} (${byQuire <= byPg ? "Quire" : "PostgreSQL"})`;
      });
      console.log(
        `${target.name.padEnd(20)} ${(total / elapsed).toFixed(0).padStart(10)} ${perQuire[0]!.toFixed(0).padStart(11)} ${perQuire[1]!.toFixed(0).padStart(11)} ${perPg.toFixed(1).padStart(7)}  ${projections.join(", ")}; PostgreSQL's core saturates past N = ${perPg > 0 ? (quireMean / perPg).toFixed(0) : "∞"}`,
      );
    }

    // A token used (and so kept) by both processes, revoked by a third one.
    const second = await createApiToken(handle.db, user.id, "revoked by the bench");
    const secondAuth = { authorization: `Bearer ${second.token}` };
    for (const s of servers) {
      const res = await fetch(`${s.url}/v1/spaces/${space.id}`, { headers: secondAuth });
      if (res.status !== 200) throw new Error(`the new token was refused before its revocation: ${res.status}`);
    }
    await revokeApiToken(handle.db, second.id);
    const revokedAt = performance.now();
    const refusedAfter = await Promise.all(
      servers.map(async (s) => {
        for (;;) {
          const res = await fetch(`${s.url}/v1/spaces/${space.id}`, { headers: secondAuth });
          if (res.status === 401) return performance.now() - revokedAt;
          if (performance.now() - revokedAt > 10_000) throw new Error("a revoked token was still accepted after 10 s");
        }
      }),
    );
    console.log(
      `Revoked token refused by both processes ${refusedAfter.map((ms, i) => `${"AB"[i]} ${ms.toFixed(0)} ms`).join(", ")} after the revoking commit`,
    );
  } finally {
    await Promise.all(
      servers.map(async (s) => {
        s.child.kill("SIGTERM");
        if (s.child.exitCode === null) await new Promise((resolve) => s.child.once("exit", resolve));
        fs.rmSync(s.dataDir, { recursive: true, force: true });
      }),
    );
    await scratch.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
