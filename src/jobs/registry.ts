/**
 * Job kinds and their payloads. A job file declares its payload by extending JobPayloads:
 *
 *   declare module "../registry.js" { interface JobPayloads { "git-import": { spaceId: string } } }
 *
 * so that enqueue("git-import", ...) and the handler agree on the payload type at compile time.
 */
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Db, DialectName } from "../db/database.js";
import type { Urls } from "../http/urls.js";

// biome-ignore lint: extended by declaration merging in each job file.
export interface JobPayloads {}

export type JobKind = keyof JobPayloads & string;

export interface JobContext {
  db: Db;
  dialect: DialectName;
  config: Config;
  urls: Urls;
  log: Logger;
  /** Instance key (unseals credentials carried by jobs). */
  secret: string;
  /** Wakes this process's worker (after enqueueing follow-up jobs). */
  notifyJobs: () => void;
  jobId: string;
  /** 1 for the first run, 2 for the first retry, and so on. */
  attempt: number;
  /** Aborted when the worker stops; long jobs should pass it to child processes. */
  signal: AbortSignal;
}

export interface JobDefinition<K extends JobKind = JobKind> {
  kind: K;
  /**
   * Attempts before the job is marked failed (default 5). There is no per-kind lease: leases are
   * short and renewed by a heartbeat while a job runs, however long it runs (see worker.ts).
   */
  maxAttempts?: number;
  /** Runs the job. Throwing schedules a retry with backoff, until maxAttempts. */
  run(payload: JobPayloads[K], ctx: JobContext): Promise<void>;
  /** Called once when the last attempt failed, to record the failure where users can see it. */
  onFailed?(payload: JobPayloads[K], error: Error, ctx: JobContext): Promise<void>;
}

export function defineJob<K extends JobKind>(definition: JobDefinition<K>): JobDefinition<K> {
  return definition;
}

/** A task the worker enqueues on a fixed period (deduplicated, so many workers enqueue it once). */
export interface PeriodicJob {
  kind: JobKind;
  everyMs: number;
}
