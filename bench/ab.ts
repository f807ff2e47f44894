/**
 * `npm run bench`'s server targets on two commits, measured paired in one run: the same targets
 * of each commit's own bench server (bench/server.ts of that checkout, its code and its database),
 * taken in alternating rounds (A B, B A, A B, ...) so that both commits see the same machine, load
 * drifts included. On a shared machine only such paired figures compare two commits: two runs of
 * `npm run bench` minutes apart differ by more than most changes.
 *
 *   BENCH_FILTER="new query each time" npx tsx bench/ab.ts <commit A> [<commit B>]
 *
 * A is checked out for the run in a detached worktree under the system's temporary directory
 * (its node_modules a symlink to this checkout's) and removed afterwards; B is this checkout as it
 * is (uncommitted changes included) unless a second commit is given. The two bench servers must
 * offer the same targets (the filtered ones and their baselines): the run stops otherwise.
 *
 * Both servers run their sources through tsx (not the dist/ build `npm run bench` uses): an older
 * commit may have no compiled loader, and the two sides must run the same way.
 *
 * Both servers run on core 1 and autocannon on core 0 where taskset exists (as in run.ts); only one
 * server is load-tested at a time, the other idle. Each round measures every chosen target once on
 * one server, in the order `npm run bench` does, so each server sees the sequence of requests a
 * plain `npm run bench` would send it (what one target leaves in a cache is there for the next).
 *
 * Printed per target: for A and B, the median over rounds of server CPU µs per request, of req/s,
 * and of the ratio to the target's baseline; then B ÷ A of CPU per request and of req/s, each the
 * median of the per-pair ratios (a pair: the two servers' rounds next to each other), with the
 * lowest and highest pair. CPU per request is the figure to read on a busy machine (other programs
 * slow the server but do not add to its CPU time); req/s moves with the load.
 *
 * BENCH_ROUNDS (default 6): rounds per server (so twice as many in all); BENCH_DURATION (default
 * 12): seconds per target and server, split over the rounds; BENCH_CONNECTIONS (default 10).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type BenchServer, chooseTargets, connections, type Measured, measure, median, pinToCoreZero, startServer } from "./load.js";

const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const duration = Number(process.env.BENCH_DURATION ?? 12);
const filter = (process.env.BENCH_FILTER ?? "").split(",").filter(Boolean);

const repo = path.resolve(import.meta.dirname, "..");
const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" }).trim();

interface Side {
  label: string;
  commit: string;
  server?: BenchServer;
  runs: Map<string, Measured[]>;
}

/** A detached worktree of `commit` with this checkout's node_modules, and how to remove it. */
function checkout(commit: string): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-ab-"));
  git("worktree", "add", "--quiet", "--detach", dir, commit);
  fs.symlinkSync(fs.realpathSync(path.join(repo, "node_modules")), path.join(dir, "node_modules"));
  return {
    dir,
    remove: () => {
      git("worktree", "remove", "--force", dir);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function main() {
  const [commitA, commitB] = process.argv.slice(2);
  if (!commitA) {
    console.error('usage: BENCH_FILTER="new query each time" npx tsx bench/ab.ts <commit A> [<commit B>, default this checkout]');
    process.exit(2);
  }
  if (filter.length === 0) console.log("no BENCH_FILTER: every server target (this takes a while)");
  const checkouts = [checkout(commitA), ...(commitB ? [checkout(commitB)] : [])];
  const dirs = [checkouts[0]!.dir, commitB ? checkouts[1]!.dir : repo];
  const sides: Side[] = [
    { label: "A", commit: git("rev-parse", "--short", commitA), runs: new Map() },
    {
      label: "B",
      commit: commitB ? git("rev-parse", "--short", commitB) : `${git("rev-parse", "--short", "HEAD")} (this checkout)`,
      runs: new Map(),
    },
  ];
  const pinned = pinToCoreZero();
  try {
    // One after the other: each seeds a 1,000-page space, which takes the cores for a while.
    for (const [i, side] of sides.entries()) {
      side.server = await startServer(pinned, { script: path.join(dirs[i]!, "bench", "server.ts") });
      side.server.targets = chooseTargets(side.server.targets, filter);
    }
    const [a, b] = sides as [Side & { server: BenchServer }, Side & { server: BenchServer }];
    const names = (side: Side) => side.server!.targets.map((t) => t.name).join("\n");
    if (names(a) !== names(b)) throw new Error(`The two bench servers offer different targets:\nA:\n${names(a)}\nB:\n${names(b)}`);
    if (a.server.targets.length === 0) throw new Error(`No target matches BENCH_FILTER=${process.env.BENCH_FILTER}`);

    const seconds = Math.max(1, Math.round(duration / rounds));
    console.log(`A = ${a.commit}, B = ${b.commit}`);
    console.log(
      `autocannon: ${connections} connections; ${rounds} rounds of ${seconds}s per target and server, alternating A B / B A (after a 2s warm-up each)`,
    );
    console.log(
      pinned ? "servers pinned to core 1, autocannon to core 0" : "not pinned (no taskset or a single core): expect noisy figures",
    );
    for (const side of [a, b]) {
      for (const target of side.server.targets) await measure(target, 2);
      for (const target of side.server.targets) side.runs.set(target.name, []);
    }
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? [a, b] : [b, a]) {
        for (const target of side.server.targets) side.runs.get(target.name)!.push(await measure(target, seconds, side.server.pid));
      }
      process.stderr.write(`round ${round + 1}/${rounds} done\n`);
    }
    report(a, b);
  } finally {
    for (const side of sides) side.server?.stop();
    // The servers end on SIGTERM; their worktree goes once they are gone.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const c of checkouts) c.remove();
  }
}

function report(a: Side & { server: BenchServer }, b: Side & { server: BenchServer }) {
  const fixed = (n: number, digits = 0) => n.toFixed(digits);
  const range = (ratios: number[]) => `${median(ratios).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`;
  console.log("");
  for (const target of a.server.targets) {
    console.log(target.name);
    for (const side of [a, b]) {
      const r = side.runs.get(target.name)!;
      const base = target.baseline ? side.runs.get(target.baseline) : undefined;
      const cpus = r.flatMap((x) => (x.cpu === undefined ? [] : [x.cpu]));
      const cpuRatios = base ? r.flatMap((x, i) => (x.cpu && base[i]!.cpu ? [x.cpu / base[i]!.cpu!] : [])) : [];
      const toBase = base
        ? `; to ${target.baseline}: CPU/req ${cpuRatios.length ? fixed(median(cpuRatios), 2) : "-"}x, req/s ${fixed(median(r.map((x, i) => x.rps / base[i]!.rps)) * 100, 1)}%`
        : "";
      console.log(
        `  ${side.label} ${side.commit.padEnd(22)} CPU ${(cpus.length ? fixed(median(cpus)) : "-").padStart(6)} µs/req, ${fixed(median(r.map((x) => x.rps))).padStart(6)} req/s, p99 ${Math.max(...r.map((x) => x.p99))} ms${toBase}`,
      );
    }
    const ra = a.runs.get(target.name)!;
    const rb = b.runs.get(target.name)!;
    const cpuPairs = ra.flatMap((x, i) => (x.cpu && rb[i]!.cpu ? [rb[i]!.cpu! / x.cpu] : []));
    const rpsPairs = ra.map((x, i) => rb[i]!.rps / x.rps);
    console.log(
      `  B / A: CPU per request ${cpuPairs.length ? range(cpuPairs) : "-"}, req/s ${range(rpsPairs)} (median of ${ra.length} pairs, lowest-highest)`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
