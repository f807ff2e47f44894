/**
 * The durable job queue: rows of the `jobs` table, written in the same transaction as the data
 * that asks for them, so a job exists exactly when its data committed.
 */
import { sql } from "kysely";
import type { DialectName, Executor } from "../db/database.js";
import { skipLockedSuffix } from "../db/dialect.js";
import type { JobRow } from "../db/schema.js";
import { newId } from "../lib/ids.js";
import type { JobKind, JobPayloads } from "./registry.js";

export interface EnqueueOptions {
  /** Skip the insert when a queued or running job already has this key. */
  dedupeKey?: string;
  /** Earliest start (default: now). */
  runAt?: Date;
  /** Attempts of a job whose definition declares none (default 5); a definition's `maxAttempts` wins. */
  maxAttempts?: number;
}

/** Adds a job; returns its id, or null when an equivalent job is already queued or running. */
export async function enqueue<K extends JobKind>(
  db: Executor,
  kind: K,
  payload: JobPayloads[K],
  options: EnqueueOptions = {},
): Promise<string | null> {
  const now = new Date().toISOString();
  const id = newId();
  const result = await db
    .insertInto("jobs")
    .values({
      id,
      kind,
      payload: JSON.stringify(payload),
      state: "queued",
      dedupeKey: options.dedupeKey ?? null,
      attempts: 0,
      maxAttempts: options.maxAttempts ?? 5,
      runAt: (options.runAt ?? new Date()).toISOString(),
      lockedBy: null,
      lockedUntil: null,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    })
    // The partial unique index on live dedupe keys makes a concurrent duplicate a no-op.
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0 ? id : null;
}

/**
 * Claims the next ready job for this worker: a queued job whose time has come, or a running job
 * whose lease expired (its worker died). On PostgreSQL, SKIP LOCKED lets many workers claim
 * concurrently without waiting on each other.
 */
export async function claimNextJob(
  db: Executor,
  dialect: DialectName,
  workerId: string,
  kinds: readonly string[],
  leaseMs: number,
): Promise<JobRow | undefined> {
  if (kinds.length === 0) return undefined;
  const now = new Date();
  const nowIso = now.toISOString();
  const lockedUntil = new Date(now.getTime() + leaseMs).toISOString();
  const kindList = sql.join(kinds.map((k) => sql`${k}`));
  const result = await sql<JobRow>`
    update jobs set state = 'running', locked_by = ${workerId}, locked_until = ${lockedUntil},
      attempts = attempts + 1, updated_at = ${nowIso}
    where id = (
      select id from jobs
      where kind in (${kindList})
        and ((state = 'queued' and run_at <= ${nowIso}) or (state = 'running' and locked_until < ${nowIso}))
      order by run_at, id
      limit 1${skipLockedSuffix(dialect)}
    )
    returning *`.execute(db);
  return result.rows[0];
}

/**
 * Extends the lease of a job this worker runs (its heartbeat). False when the job is no longer this
 * worker's: its lease expired and another worker took it over, or it was released.
 */
export async function renewLease(db: Executor, jobId: string, workerId: string, leaseMs: number): Promise<boolean> {
  const now = Date.now();
  const result = await db
    .updateTable("jobs")
    .set({ lockedUntil: new Date(now + leaseMs).toISOString(), updatedAt: new Date(now).toISOString() })
    .where("id", "=", jobId)
    .where("lockedBy", "=", workerId)
    .where("state", "=", "running")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** What a worker id (`host:pid:instance`, see Worker.id) says about the process that holds a job. */
export function parseWorkerId(workerId: string): { host: string; pid: number; instance: string } | undefined {
  const parts = workerId.split(":");
  if (parts.length < 3) return undefined;
  const instance = parts.pop() as string;
  const pid = Number(parts.pop());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return { host: parts.join(":"), pid, instance };
}

/**
 * Puts back in the queue, ready at once, the running jobs that `isDead` says were held by a process
 * that no longer runs (without waiting for their leases to expire). Returns their ids.
 */
export async function releaseJobsOf(db: Executor, host: string, isDead: (holder: { pid: number; instance: string }) => boolean) {
  // Running jobs are few (the workers' concurrency): filtered here rather than by a LIKE on the host.
  const held = await db.selectFrom("jobs").select(["id", "lockedBy"]).where("state", "=", "running").execute();
  const released: string[] = [];
  const now = new Date().toISOString();
  for (const job of held) {
    const holder = job.lockedBy ? parseWorkerId(job.lockedBy) : undefined;
    if (!holder || holder.host !== host || !isDead(holder)) continue;
    const result = await db
      .updateTable("jobs")
      .set({ state: "queued", runAt: now, lockedBy: null, lockedUntil: null, updatedAt: now })
      .where("id", "=", job.id)
      .where("lockedBy", "=", job.lockedBy)
      .where("state", "=", "running")
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) released.push(job.id);
  }
  return released;
}

export async function markJobSucceeded(db: Executor, job: JobRow): Promise<void> {
  await db
    .updateTable("jobs")
    .set({ state: "succeeded", lockedBy: null, lockedUntil: null, updatedAt: new Date().toISOString() })
    .where("id", "=", job.id)
    .where("lockedBy", "=", job.lockedBy)
    .execute();
}

/**
 * Puts a job this worker runs back in the queue, to run again at `runAt` (a job that does its work
 * in slices): queued again, its attempts counted afresh, its dedupe key still held.
 */
export async function requeueJob(db: Executor, job: JobRow, runAt: Date): Promise<void> {
  await db
    .updateTable("jobs")
    .set({
      state: "queued",
      runAt: runAt.toISOString(),
      attempts: 0,
      lockedBy: null,
      lockedUntil: null,
      updatedAt: new Date().toISOString(),
    })
    .where("id", "=", job.id)
    .where("lockedBy", "=", job.lockedBy)
    .execute();
}

/** Exponential backoff: 5 s, 10 s, 20 s ... capped at 10 minutes. */
export function retryDelayMs(attempt: number): number {
  return Math.min(5_000 * 2 ** Math.max(0, attempt - 1), 600_000);
}

/** Records a failed attempt; returns true when the job will be retried (never when `final`: a retry cannot help). */
export async function markJobFailed(db: Executor, job: JobRow, error: Error, final = false): Promise<boolean> {
  const retry = !final && job.attempts < job.maxAttempts;
  const now = Date.now();
  await db
    .updateTable("jobs")
    .set({
      state: retry ? "queued" : "failed",
      runAt: retry ? new Date(now + retryDelayMs(job.attempts)).toISOString() : job.runAt,
      lockedBy: null,
      lockedUntil: null,
      lastError: error.message.slice(0, 2000),
      updatedAt: new Date(now).toISOString(),
    })
    .where("id", "=", job.id)
    .where("lockedBy", "=", job.lockedBy)
    .execute();
  return retry;
}

/** Deletes the rows of jobs that finished (succeeded or failed) before `before`; returns how many. */
export async function deleteFinishedJobsBefore(db: Executor, before: string): Promise<number> {
  const result = await db
    .deleteFrom("jobs")
    .where("state", "in", ["succeeded", "failed"])
    .where("updatedAt", "<", before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
