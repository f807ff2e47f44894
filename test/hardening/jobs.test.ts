/**
 * Jobs that recover (issue 14, item 3): short leases renewed by a heartbeat, a restarted process
 * taking back the jobs of a killed one at once, a job that lost its lease stopped, and a late
 * skipped Git sync job leaving a newer run's status alone.
 */
import { spawn } from "node:child_process";
import { hostname } from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { enqueue } from "../../src/jobs/queue.js";
import { defineJob, type JobContext } from "../../src/jobs/registry.js";
import { LEASE_MS, Worker } from "../../src/jobs/worker.js";
import { runGitImport } from "../../src/modules/git-sync/git-sync.service.js";
import { readGitSyncState, updateGitSyncState } from "../../src/modules/git-sync/git-sync-state.service.js";
import { createTestContext, type TestContext } from "../helpers/app.js";
import "../helpers/job-kinds.js";
import { createOrgWithSpace } from "../helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());
beforeEach(async () => {
  await ctx.db.deleteFrom("jobs").execute();
});

function workerWith(run: (ctx: JobContext) => Promise<void>, options: ConstructorParameters<typeof Worker>[2] = {}) {
  const { db, dialect, config, urls, secret } = ctx.deps;
  return new Worker(
    { db, dialect, config, urls, secret, log: pino({ level: "silent" }) },
    [defineJob({ kind: "test-hold", run: (_payload, jobCtx) => run(jobCtx) })],
    options,
  );
}

async function enqueueHold(label: string): Promise<string> {
  const id = await enqueue(ctx.db, "test-hold", { label });
  if (!id) throw new Error("not enqueued");
  return id;
}

/** Marks a job as claimed by `holder` under a lease still valid. */
async function holdAs(id: string, holder: string): Promise<void> {
  await ctx.db
    .updateTable("jobs")
    .set({ state: "running", lockedBy: holder, lockedUntil: new Date(Date.now() + LEASE_MS).toISOString(), attempts: 1 })
    .where("id", "=", id)
    .execute();
}

const jobRow = (id: string) => ctx.db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

describe("a job whose process was killed", () => {
  it("is taken back at once by the next process of the host, without waiting for its lease", async () => {
    const id = await enqueueHold("killed");
    const location = ctx.database.location;
    const child = spawn(process.execPath, ["--import", "tsx", "test/helpers/job-holder.ts"], {
      cwd: path.resolve(import.meta.dirname, "../.."),
      env: {
        ...process.env,
        ...(location.databaseUrl ? { QUIRE_HOLDER_DATABASE_URL: location.databaseUrl } : { QUIRE_HOLDER_SQLITE: location.sqlitePath }),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    let output = "";
    child.stderr?.on("data", (d) => (output += d));
    const holder = await new Promise<string>((resolve, reject) => {
      child.stdout?.on("data", (d) => {
        output += d;
        const match = /running (\S+) (\S+)/.exec(output);
        if (match?.[1] === id && match[2]) resolve(match[2]);
      });
      child.on("exit", () => reject(new Error(`the worker process exited:\n${output}`)));
    });

    const running = await jobRow(id);
    expect(running).toMatchObject({ state: "running", lockedBy: holder, attempts: 1 });
    // A short lease, not the 15 to 30 minutes of before.
    expect(Date.parse(running.lockedUntil ?? "") - Date.now()).toBeLessThanOrEqual(LEASE_MS);

    child.kill("SIGKILL");
    await exited;

    // The "restarted" process (this one, on the same host) finds the job ready now.
    const ran: string[] = [];
    const restarted = workerWith(async (jobCtx) => {
      ran.push(jobCtx.jobId);
    });
    expect(await restarted.drain()).toBe(1);
    expect(ran).toEqual([id]);
    expect(await jobRow(id)).toMatchObject({ state: "succeeded", attempts: 2, lockedBy: null });
  });

  it("is taken back when held under this very pid by a previous process (a restarted container reuses pids)", async () => {
    const id = await enqueueHold("predecessor");
    const holder = `${hostname()}:${process.pid}:before`;
    await holdAs(id, holder);
    const ran: string[] = [];
    expect(await workerWith(async (jobCtx) => void ran.push(jobCtx.jobId)).drain()).toBe(1);
    expect(ran).toEqual([id]);
  });

  it("is not taken back while its process still runs", async () => {
    const id = await enqueueHold("alive");
    // Held by a live process of this host (the test runner's parent) under a lease still valid.
    const holder = `${hostname()}:${process.ppid}:abcdef`;
    await holdAs(id, holder);
    const worker = workerWith(async () => {});
    expect(await worker.drain()).toBe(0);
    expect(await jobRow(id)).toMatchObject({ state: "running", lockedBy: holder });
  });
});

describe("leases", () => {
  it("are renewed by a heartbeat while a job runs longer than its lease, so no other worker takes it", async () => {
    const id = await enqueueHold("long");
    let release!: () => void;
    let started!: () => void;
    const isStarted = new Promise<void>((resolve) => (started = resolve));
    const worker = workerWith(
      () => {
        started();
        return new Promise<void>((resolve) => (release = resolve));
      },
      { leaseMs: 1500, heartbeatMs: 100 },
    );
    const run = worker.drain();
    await isStarted;
    // Two leases' time: without the heartbeat the lease would have expired.
    await new Promise((resolve) => setTimeout(resolve, 3200));
    const row = await jobRow(id);
    expect(row.state).toBe("running");
    expect(Date.parse(row.lockedUntil ?? "")).toBeGreaterThan(Date.now());
    const other = workerWith(async () => {
      throw new Error("must not run");
    });
    expect(await other.drain()).toBe(0);
    release();
    expect(await run).toBe(1);
    expect(await jobRow(id)).toMatchObject({ state: "succeeded", attempts: 1 });
  });

  it("stop a run whose lease another worker took over, and keep its outcome out of the job", async () => {
    const id = await enqueueHold("lost");
    let started!: () => void;
    const isStarted = new Promise<void>((resolve) => (started = resolve));
    let abortReason: unknown;
    const worker = workerWith(
      (jobCtx) => {
        started();
        return new Promise<void>((resolve) => {
          jobCtx.signal.addEventListener("abort", () => {
            abortReason = jobCtx.signal.reason;
            resolve();
          });
        });
      },
      { leaseMs: 1000, heartbeatMs: 50 },
    );
    const run = worker.drain();
    await isStarted;
    await ctx.db.updateTable("jobs").set({ lockedBy: "elsewhere:1:zzzzzz" }).where("id", "=", id).execute();
    expect(await run).toBe(1);
    expect(String(abortReason)).toMatch(/taken over by another worker/);
    expect(await jobRow(id)).toMatchObject({ state: "running", lockedBy: "elsewhere:1:zzzzzz" });
  });
});

describe("a late Git sync job", () => {
  function jobContext(): JobContext {
    const { db, dialect, config, urls, secret } = ctx.deps;
    return {
      db,
      dialect,
      config,
      urls,
      secret,
      log: pino({ level: "silent" }),
      notifyJobs: () => {},
      jobId: "job",
      attempt: 1,
      signal: new AbortController().signal,
    };
  }

  const payload = (spaceId: string, actorId: string) => ({
    spaceId,
    remote: "https://git.example.test/acme/docs.git",
    ref: "refs/heads/main",
    projectDirectory: "",
    timestamp: "2026-01-01T00:00:00.000Z",
    requestedAt: "2026-01-01T00:00:01.000Z",
    force: false,
    standalone: false,
    actorId,
  });

  it("never replaces the status of a newer run", async () => {
    const { space, owner } = await createOrgWithSpace(ctx);
    const newer = {
      status: "succeeded" as const,
      requestedAt: "2026-01-02T00:00:01.000Z",
      finishedAt: "2026-01-02T00:00:05.000Z",
      commit: "1".repeat(40),
    };
    await updateGitSyncState(ctx.db, space.id, (state) => ({ ...state, lastTimestamp: "2026-01-02T00:00:00.000Z", lastImport: newer }));
    await runGitImport(jobContext(), payload(space.id, owner.id));
    expect((await readGitSyncState(ctx.db, space.id))?.lastImport).toEqual(newer);
  });

  it("records itself as skipped when the run shown is its own", async () => {
    const { space, owner } = await createOrgWithSpace(ctx);
    const own = payload(space.id, owner.id);
    await updateGitSyncState(ctx.db, space.id, (state) => ({
      ...state,
      lastTimestamp: "2026-01-02T00:00:00.000Z",
      lastImport: { status: "pending", requestedAt: own.requestedAt },
    }));
    await runGitImport(jobContext(), own);
    expect((await readGitSyncState(ctx.db, space.id))?.lastImport).toMatchObject({
      status: "skipped",
      requestedAt: own.requestedAt,
      message: "A newer import or export was already applied.",
    });
  });
});
