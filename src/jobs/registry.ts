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
import { DomainError, type DomainErrorKind } from "../lib/errors.js";

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

/** What a job answers to run again later: the rest of its work, not a failure (attempts start over). */
export interface JobContinuation {
  continueAt: Date;
}

export interface JobDefinition<K extends JobKind = JobKind> {
  kind: K;
  /**
   * Attempts before the job is marked failed; when absent, the `maxAttempts` the job was enqueued
   * with (default 5). There is no per-kind lease: leases are
   * short and renewed by a heartbeat while a job runs, however long it runs (see worker.ts).
   */
  maxAttempts?: number;
  /**
   * Enqueued on this period (milliseconds) by every worker started with the periodic jobs, once per
   * period however many workers run (the enqueue is deduplicated). Absent: runs only when enqueued.
   */
  everyMs?: number;
  /**
   * Runs the job. Throwing schedules a retry with backoff, until maxAttempts; throwing an error
   * marked `permanent` (PermanentJobError) fails the job at once. Answering `{ continueAt }` puts
   * the same job back in the queue for that time (long work done in slices: between two slices
   * the jobs queued meanwhile run first, and the job's dedupe key stays held).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: most jobs' run is an async function answering nothing (void).
  run(payload: JobPayloads[K], ctx: JobContext): Promise<void | JobContinuation>;
  /** Called once when the last attempt failed, to record the failure where users can see it. */
  onFailed?(payload: JobPayloads[K], error: Error, ctx: JobContext): Promise<void>;
}

/**
 * Thrown by a job that will fail the same way however often it runs (invalid or too large input,
 * content nested too deep...): the worker marks it failed at once, without the retries and
 * backoff a transient failure (a network error, a database that went away) gets.
 */
export class PermanentJobError extends Error {
  /** The flag the worker honours (any error may carry it). */
  readonly permanent = true;

  constructor(message: string) {
    super(message);
    this.name = "PermanentJobError";
  }
}

/** Whether the worker should fail a job for good on this error (`permanent: true`), rather than retry it. */
export function isPermanentJobError(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { permanent?: unknown }).permanent === true;
}

/**
 * Whether running the same work again would fail the same way: a domain error about the input or
 * the caller (invalid, too large, forbidden, not found; not a conflict or a precondition, which a
 * concurrent change may lift), or a RangeError (a stack overflow, an array or string over V8's
 * length limit: the same input overflows again). For jobs to decide what they throw; the worker
 * itself only honours `permanent`.
 */
export function isDeterministicFailure(error: unknown): boolean {
  if (isPermanentJobError(error)) return true;
  if (error instanceof DomainError) return DETERMINISTIC_KINDS.has(error.kind);
  return error instanceof RangeError;
}

const DETERMINISTIC_KINDS: ReadonlySet<DomainErrorKind> = new Set(["invalid", "too-large", "forbidden", "not-found"]);

export function defineJob<K extends JobKind>(definition: JobDefinition<K>): JobDefinition<K> {
  return definition;
}

/** A task the worker enqueues on a fixed period (deduplicated, so many workers enqueue it once). */
export interface PeriodicJob {
  kind: JobKind;
  everyMs: number;
}

/** The periodic jobs among these definitions: those that declare `everyMs`. */
export function periodicJobsOf(definitions: readonly JobDefinition<JobKind>[]): PeriodicJob[] {
  return definitions.flatMap((definition) =>
    definition.everyMs === undefined ? [] : [{ kind: definition.kind, everyMs: definition.everyMs }],
  );
}
