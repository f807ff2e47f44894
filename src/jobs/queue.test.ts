import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/helpers/db.js";
import { loadConfig } from "../config.js";
import { Urls } from "../http/urls.js";
import { conflicting, invalid, missing, preconditionFailed, tooLarge } from "../lib/errors.js";
import { claimNextJob, enqueue, retryDelayMs } from "./queue.js";
import { defineJob, isDeterministicFailure, type JobDefinition, PermanentJobError } from "./registry.js";
import { Worker } from "./worker.js";

declare module "./registry.js" {
  interface JobPayloads {
    "test-echo": { value: number; failTimes?: number };
  }
}

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.cleanup());
beforeEach(async () => {
  await db.db.deleteFrom("jobs").execute();
});

function makeWorker(definitions: JobDefinition<any>[]) {
  const deps = {
    db: db.db,
    dialect: db.dialect,
    config: loadConfig({}),
    urls: new Urls("http://q.test"),
    log: pino({ level: "silent" }),
    secret: "test-secret",
  };
  return new Worker(deps, definitions);
}

describe("job queue", () => {
  it("runs a job once and records success", async () => {
    const seen: number[] = [];
    const job = defineJob({
      kind: "test-echo",
      async run(p) {
        seen.push(p.value);
      },
    });
    await enqueue(db.db, "test-echo", { value: 7 });
    expect(await makeWorker([job]).drain()).toBe(1);
    expect(seen).toEqual([7]);
    const row = await db.db.selectFrom("jobs").selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: "succeeded", attempts: 1, lockedBy: null });
  });

  it("retries a failing job later with backoff, then marks it failed and calls onFailed", async () => {
    const failures: string[] = [];
    const job = defineJob({
      kind: "test-echo",
      maxAttempts: 2,
      async run() {
        throw new Error("boom");
      },
      async onFailed(_p, error) {
        failures.push(error.message);
      },
    });
    await enqueue(db.db, "test-echo", { value: 1 }, { maxAttempts: 2 });
    const worker = makeWorker([job]);
    expect(await worker.drain()).toBe(1);
    let row = await db.db.selectFrom("jobs").selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: "queued", attempts: 1, lastError: "boom" });
    expect(Date.parse(row.runAt) - Date.now()).toBeGreaterThan(retryDelayMs(1) - 1000);
    // Not ready yet: the worker leaves it alone.
    expect(await worker.drain()).toBe(0);
    await db.db
      .updateTable("jobs")
      .set({ runAt: new Date(Date.now() - 1000).toISOString() })
      .execute();
    expect(await worker.drain()).toBe(1);
    row = await db.db.selectFrom("jobs").selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: "failed", attempts: 2 });
    expect(failures).toEqual(["boom"]);
  });

  it("gives up after the attempts its definition declares, however it was enqueued (the periodic jobs take the default)", async () => {
    const failures: number[] = [];
    const job = defineJob({
      kind: "test-echo",
      maxAttempts: 2,
      async run() {
        throw new Error("boom");
      },
      async onFailed(p) {
        failures.push(p.value);
      },
    });
    // As the worker enqueues a periodic job: no maxAttempts of its own.
    await enqueue(db.db, "test-echo", { value: 1 });
    const worker = makeWorker([job]);
    for (let attempt = 1; attempt <= 2; attempt++) {
      await db.db
        .updateTable("jobs")
        .set({ runAt: new Date(Date.now() - 1000).toISOString() })
        .execute();
      expect(await worker.drain()).toBe(1);
    }
    expect(await db.db.selectFrom("jobs").select(["state", "attempts"]).executeTakeFirstOrThrow()).toEqual({
      state: "failed",
      attempts: 2,
    });
    expect(failures).toEqual([1]);
  });

  it("fails a job at once, without retries, when its error is marked permanent", async () => {
    const failures: string[] = [];
    let runs = 0;
    const job = defineJob({
      kind: "test-echo",
      maxAttempts: 5,
      async run(p) {
        runs++;
        if (p.value === 1) throw new PermanentJobError("the page is nested too deep");
        // Any error may carry the flag (a domain error, one from a worker thread).
        throw Object.assign(new Error("invalid input"), { permanent: true });
      },
      async onFailed(_p, error) {
        failures.push(error.message);
      },
    });
    await enqueue(db.db, "test-echo", { value: 1 }, { maxAttempts: 5 });
    await enqueue(db.db, "test-echo", { value: 2 }, { maxAttempts: 5 });
    expect(await makeWorker([job]).drain()).toBe(2);
    const rows = await db.db.selectFrom("jobs").select(["state", "attempts", "lastError"]).orderBy("lastError").execute();
    expect(rows).toEqual([
      { state: "failed", attempts: 1, lastError: "invalid input" },
      { state: "failed", attempts: 1, lastError: "the page is nested too deep" },
    ]);
    expect(runs).toBe(2);
    expect(failures.sort()).toEqual(["invalid input", "the page is nested too deep"]);
  });

  it("tells deterministic failures (input, limits, stack overflow) from transient ones", () => {
    expect(isDeterministicFailure(invalid("bad"))).toBe(true);
    expect(isDeterministicFailure(tooLarge("big"))).toBe(true);
    expect(isDeterministicFailure(missing("gone"))).toBe(true);
    expect(isDeterministicFailure(new RangeError("Maximum call stack size exceeded"))).toBe(true);
    expect(isDeterministicFailure(new PermanentJobError("x"))).toBe(true);
    expect(isDeterministicFailure(conflicting("moved meanwhile"))).toBe(false);
    expect(isDeterministicFailure(preconditionFailed("stale"))).toBe(false);
    expect(isDeterministicFailure(new Error("ECONNRESET"))).toBe(false);
    expect(isDeterministicFailure(new TypeError("fetch failed"))).toBe(false);
  });

  it("deduplicates live jobs by key but allows a new one after the first finished", async () => {
    expect(await enqueue(db.db, "test-echo", { value: 1 }, { dedupeKey: "k" })).not.toBeNull();
    expect(await enqueue(db.db, "test-echo", { value: 2 }, { dedupeKey: "k" })).toBeNull();
    await makeWorker([defineJob({ kind: "test-echo", async run() {} })]).drain();
    expect(await enqueue(db.db, "test-echo", { value: 3 }, { dedupeKey: "k" })).not.toBeNull();
  });

  it("lets another worker take over a job whose lease expired", async () => {
    await enqueue(db.db, "test-echo", { value: 1 });
    const first = await claimNextJob(db.db, db.dialect, "w1", ["test-echo"], 60_000);
    expect(first?.lockedBy).toBe("w1");
    expect(await claimNextJob(db.db, db.dialect, "w2", ["test-echo"], 60_000)).toBeUndefined();
    await db.db
      .updateTable("jobs")
      .set({ lockedUntil: new Date(Date.now() - 1).toISOString() })
      .execute();
    const second = await claimNextJob(db.db, db.dialect, "w2", ["test-echo"], 60_000);
    expect(second).toMatchObject({ id: first!.id, lockedBy: "w2", attempts: 2 });
  });

  it("never runs a job twice when several workers claim concurrently", async () => {
    for (let i = 0; i < 40; i++) await enqueue(db.db, "test-echo", { value: i });
    const claims = await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        const mine: string[] = [];
        for (;;) {
          const job = await claimNextJob(db.db, db.dialect, `w${w}`, ["test-echo"], 60_000);
          if (!job) return mine;
          mine.push(job.id);
        }
      }),
    );
    const all = claims.flat();
    expect(all).toHaveLength(40);
    expect(new Set(all).size).toBe(40);
  });

  it("stops a running worker loop cleanly", async () => {
    const seen: number[] = [];
    const echo = defineJob({
      kind: "test-echo",
      async run(p) {
        seen.push(p.value);
      },
    });
    const worker = makeWorker([echo]);
    worker.start();
    await enqueue(db.db, "test-echo", { value: 5 });
    worker.notify();
    for (let i = 0; i < 50 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await worker.stop();
    expect(seen).toEqual([5]);
  });
});
