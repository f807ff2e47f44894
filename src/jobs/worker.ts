/**
 * The worker loop: claims ready jobs and runs them, `concurrency` at a time, polling when idle.
 * Any number of workers (threads of `quire serve` or separate `quire worker` processes) may share
 * one PostgreSQL database; each job runs once at a time thanks to the claim's row lock and lease.
 */
import { hostname } from "node:os";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Db, DialectName } from "../db/database.js";
import type { Urls } from "../http/urls.js";
import { newId } from "../lib/ids.js";
import { claimNextJob, enqueue, markJobFailed, markJobSucceeded } from "./queue.js";
import type { JobDefinition, JobKind, PeriodicJob } from "./registry.js";

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
}

const DEFAULT_LEASE_MS = 15 * 60_000;

export class Worker {
  readonly id = `${hostname()}:${process.pid}:${newId().slice(0, 6)}`;
  private readonly byKind: Map<string, JobDefinition>;
  /** The longest lease any job kind asks for (a claim is made before its kind is known). */
  private readonly leaseMs: number;
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
    this.leaseMs = Math.max(DEFAULT_LEASE_MS, ...definitions.map((d) => d.leaseMs ?? DEFAULT_LEASE_MS));
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
    let count = 0;
    while (await this.runOne()) count++;
    return count;
  }

  private async run(): Promise<void> {
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
    const ctx = { ...this.deps, log, jobId: job.id, attempt: job.attempts, signal: this.abort.signal, notifyJobs: () => this.notify() };
    const payload = JSON.parse(job.payload);
    const started = Date.now();
    try {
      await definition.run(payload, ctx);
      await markJobSucceeded(this.deps.db, job);
      log.info({ ms: Date.now() - started }, "job succeeded");
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      const retry = await markJobFailed(this.deps.db, job, error).catch((e) => {
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
