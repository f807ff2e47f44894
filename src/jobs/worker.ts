/**
 * The worker loop: claims ready jobs and runs them, `concurrency` at a time, polling when idle.
 * Any number of workers (threads of `quire serve` or separate `quire worker` processes) may share
 * one PostgreSQL database; each job runs once at a time thanks to the claim's row lock and lease.
 *
 * Leases are short (LEASE_MS) and renewed by a heartbeat while a job runs, so a job whose process
 * died is taken over by another worker within a lease, however long the job itself may run. A job
 * whose lease was lost (another worker took it over) has its signal aborted and can no longer record
 * an outcome. On start, a worker puts back at once the jobs held by processes of the same host that
 * no longer run (a restart after a crash or kill -9 does not wait for their leases).
 */
import { hostname } from "node:os";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Db, DialectName } from "../db/database.js";
import type { Urls } from "../http/urls.js";
import { newId } from "../lib/ids.js";
import { WorkerOutOfMemoryError } from "../workers/pool.js";
import { claimNextJob, enqueue, markJobFailed, markJobSucceeded, releaseJobsOf, renewLease, requeueJob } from "./queue.js";
import { isPermanentJobError, type JobDefinition, type JobKind, type PeriodicJob } from "./registry.js";

export interface WorkerDeps {
  db: Db;
  dialect: DialectName;
  config: Config;
  urls: Urls;
  log: Logger;
  secret: string;
}

export interface WorkerOptions {
  concurrency?: number;
  pollIntervalMs?: number;
  periodic?: PeriodicJob[];
  /** Lease of a claimed job (default LEASE_MS); renewed every `heartbeatMs` while it runs. */
  leaseMs?: number;
  /** Default: a quarter of the lease, so that a slow database write or two cannot lose it. */
  heartbeatMs?: number;
}

/** A claimed job's lease: how long after its process dies another worker may take it over. */
export const LEASE_MS = 60_000;

/** Whether a process of this host still runs (signal 0 checks without signalling). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Ids of this process's workers: a job held under this pid by another id is a predecessor's. */
const workersOfThisProcess = new Set<string>();

export class Worker {
  /** `host:pid:instance`: the instance tells a restarted process with a reused pid from its predecessor. */
  readonly id = `${hostname()}:${process.pid}:${newId().slice(0, 6)}`;
  private readonly byKind: Map<string, JobDefinition>;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private reclaimed = false;
  private readonly abort = new AbortController();
  private running = new Set<Promise<void>>();
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private stopping = false;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly deps: WorkerDeps,
    definitions: readonly JobDefinition<any>[],
    private readonly options: WorkerOptions = {},
  ) {
    this.byKind = new Map(definitions.map((d) => [d.kind, d]));
    this.leaseMs = options.leaseMs ?? LEASE_MS;
    this.heartbeatMs = options.heartbeatMs ?? Math.max(10, Math.floor(this.leaseMs / 4));
    workersOfThisProcess.add(this.id);
  }

  /**
   * Puts back in the queue the jobs held by dead processes of this host: another pid that no longer
   * runs, or this very pid under an id none of this process's workers has (a previous process: a
   * restarted container often gets the same pid).
   */
  async reclaimDeadJobs(): Promise<string[]> {
    const host = hostname();
    const released = await releaseJobsOf(this.deps.db, host, (holder) =>
      holder.pid === process.pid ? !workersOfThisProcess.has(`${host}:${holder.pid}:${holder.instance}`) : !processRuns(holder.pid),
    );
    if (released.length > 0) this.deps.log.warn({ jobs: released }, "took back jobs whose process on this host died");
    return released;
  }

  private async reclaimOnce(): Promise<void> {
    if (this.reclaimed) return;
    this.reclaimed = true;
    await this.reclaimDeadJobs().catch((err) => this.deps.log.error({ err }, "could not take back the jobs of dead processes"));
  }

  start(): void {
    if (this.loop) return;
    this.stopping = false;
    for (const task of this.options.periodic ?? []) {
      const schedule = () => {
        enqueue(this.deps.db, task.kind as JobKind, {} as never, { dedupeKey: `periodic:${task.kind}` })
          .then(() => this.notify())
          .catch((err) => this.deps.log.error({ err, kind: task.kind }, "could not schedule periodic job"));
      };
      schedule();
      const timer = setInterval(schedule, task.everyMs);
      timer.unref();
      this.timers.push(timer);
    }
    this.loop = this.run();
  }

  /** Wakes an idle worker (after enqueueing from the same process). */
  notify(): void {
    this.wake?.();
  }

  /** Stops claiming, aborts running jobs' signals after `graceMs`, waits for them to settle. */
  async stop(graceMs = 10_000): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    const loop = this.loop;
    this.stopping = true;
    this.loop = undefined;
    this.notify();
    const abortTimer = setTimeout(() => this.abort.abort(), graceMs);
    await loop;
    await Promise.allSettled([...this.running]);
    clearTimeout(abortTimer);
  }

  /** Runs every job that is ready now, then returns (used by tests and `quire worker --once`). */
  async drain(): Promise<number> {
    await this.reclaimOnce();
    let count = 0;
    while (await this.runOne()) count++;
    return count;
  }

  private async run(): Promise<void> {
    await this.reclaimOnce();
    const concurrency = Math.max(1, this.options.concurrency ?? 1);
    const interval = this.options.pollIntervalMs ?? 1000;
    while (!this.stopping) {
      if (this.running.size >= concurrency) {
        await Promise.race(this.running);
        continue;
      }
      let claimed = false;
      try {
        claimed = await this.startOne();
      } catch (err) {
        this.deps.log.error({ err }, "job claim failed");
      }
      if (!claimed && !this.stopping) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, interval);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
      }
    }
  }

  private async startOne(): Promise<boolean> {
    const job = await claimNextJob(this.deps.db, this.deps.dialect, this.id, [...this.byKind.keys()], this.leaseMs);
    if (!job) return false;
    const task = this.execute(job).finally(() => this.running.delete(task));
    this.running.add(task);
    return true;
  }

  private async runOne(): Promise<boolean> {
    const job = await claimNextJob(this.deps.db, this.deps.dialect, this.id, [...this.byKind.keys()], this.leaseMs);
    if (!job) return false;
    await this.execute(job);
    return true;
  }

  private async execute(job: Awaited<ReturnType<typeof claimNextJob>> & object): Promise<void> {
    const definition = this.byKind.get(job.kind);
    const log = this.deps.log.child({ jobId: job.id, kind: job.kind, attempt: job.attempts });
    if (!definition) return;
    // Aborted when the worker stops, or when this job's lease is lost to another worker.
    const lost = new AbortController();
    const signal = AbortSignal.any([this.abort.signal, lost.signal]);
    const ctx = { ...this.deps, log, jobId: job.id, attempt: job.attempts, signal, notifyJobs: () => this.notify() };
    const payload = JSON.parse(job.payload);
    const started = Date.now();
    let finished = false;
    const heartbeat = setInterval(() => {
      renewLease(this.deps.db, job.id, this.id, this.leaseMs).then(
        (held) => {
          if (held || lost.signal.aborted || finished) return;
          log.warn("job lease lost to another worker: stopping this run");
          lost.abort(new Error("The job's lease was taken over by another worker."));
        },
        (err) => log.warn({ err }, "could not renew the job's lease"),
      );
    }, this.heartbeatMs);
    heartbeat.unref();
    const runWithHeartbeat = async () => {
      try {
        return await definition.run(payload, ctx);
      } finally {
        // Stopped before the outcome is recorded: a late beat would find the job no longer running.
        finished = true;
        clearInterval(heartbeat);
      }
    };
    try {
      const outcome = await runWithHeartbeat();
      if (outcome?.continueAt) {
        await requeueJob(this.deps.db, job, outcome.continueAt);
        log.info({ ms: Date.now() - started, continueAt: outcome.continueAt.toISOString() }, "job continues later");
      } else {
        await markJobSucceeded(this.deps.db, job);
        log.info({ ms: Date.now() - started }, "job succeeded");
      }
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      // A job that says the failure is permanent, or a task that ran out of a worker thread's heap
      // (it would run out of it again), fails now: a retry would only repeat the work.
      const final = isPermanentJobError(error) || error instanceof WorkerOutOfMemoryError;
      // The definition's attempts govern: the row's are only what enqueue() was told (5 by default,
      // as for the periodic jobs, which the worker enqueues without knowing their definition).
      const attempts = definition.maxAttempts ?? job.maxAttempts;
      const retry = await markJobFailed(this.deps.db, { ...job, maxAttempts: attempts }, error, final).catch((e) => {
        log.error({ err: e }, "could not record job failure");
        return true;
      });
      log.warn({ err: error, retry }, "job failed");
      if (!retry && definition.onFailed) {
        await definition.onFailed(payload, error, ctx).catch((e) => log.error({ err: e }, "onFailed handler failed"));
      }
    }
  }
}
