/**
 * A small pool of worker threads (piscina) for CPU-heavy work, so that converting a 2 MB Markdown
 * page or indexing a large space never holds the thread that answers requests. It runs the tasks of
 * any task module (`TaskModule`: the engines keep theirs, content/tasks.ts for the content engine)
 * and imports none; `QUIRE_WORKER_THREADS` sets the number of threads (0 runs them inline, on the
 * calling thread). Long database reads run on a thread of their own (the `reads` lane), apart
 * from that work. Threads start on first use and stop after a while idle.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { MessagePort } from "node:worker_threads";
import { Piscina } from "piscina";
import { DomainError } from "../lib/errors.js";

/**
 * A module of tasks a thread can run: its default export takes `{ name, input }` (and, when run
 * inline, an abort signal) and runs the task of that name. Each engine keeps its own (content's is
 * content/tasks.ts); this pool knows none of them.
 */
export interface TaskModule {
  /** The module's file URL (a .ts file when Quire runs from its sources, through tsx), for the threads. */
  url: URL;
  /** The module loaded on the calling thread, for tasks run inline (0 threads). */
  load(): Promise<{ default: (task: { name: string; input: unknown }, signal?: AbortSignal) => unknown }>;
  /** What the task `name` was doing and what would let it through, for a thread that ran out of memory. */
  outOfMemory(name: string): { work: string; remedy: string };
}

const here = fileURLToPath(import.meta.url);
/** entry.js next to this file once built; from the TypeScript sources, a shim that loads entry.ts through tsx. */
const entryFile = path.join(path.dirname(here), path.extname(here) === ".ts" ? "entry.source.mjs" : "entry.js");

let threads = 1;
let heapMb: number | undefined;

/** Sets the number of threads (config `workerThreads`); takes effect for the next pool started. */
export function configureWorkerThreads(count: number): void {
  threads = count;
}

/**
 * Caps each thread's old generation at `mb` MiB (config `workerHeapMb`, QUIRE_WORKER_HEAP_MB);
 * undefined leaves it to V8. Takes effect for the next pool started; tasks run inline (0 threads)
 * share the process's heap and are not capped.
 */
export function configureWorkerHeap(mb: number | undefined): void {
  heapMb = mb;
}

/**
 * A task whose thread ran out of heap. piscina rejects the task with ERR_WORKER_OUT_OF_MEMORY and
 * starts another thread for the next one, so only this task fails: it becomes a "too-large" domain
 * error (413 for a request, a failed import for a job) naming the setting that would let it through.
 */
export class WorkerOutOfMemoryError extends DomainError {
  constructor(
    readonly task: string,
    readonly heapLimitMb: number | undefined,
    described: { work: string; remedy: string },
  ) {
    const limit =
      heapLimitMb === undefined ? "V8's default heap limit (QUIRE_WORKER_HEAP_MB is not set)" : `QUIRE_WORKER_HEAP_MB=${heapLimitMb}`;
    super("too-large", `${described.work} ran out of memory in a worker thread (${limit}): ${described.remedy}`);
    this.name = "WorkerOutOfMemoryError";
  }
}

/**
 * Young generation of each thread. Converting Markdown allocates fast and briefly (micromark's
 * events): with V8's default (48 MB) the thread's heap grew ~120 MB more during the import of an
 * 800-page repository; 16 MB kept it down for ~5% more CPU. The old generation is left to V8
 * unless QUIRE_WORKER_HEAP_MB caps it: any cap, even 512 MB, made V8 collect more often (25-50%
 * more CPU for 35-50 MB less peak RSS on that import, docs/git-import.md), and a cap fails a large page.
 */
const WORKER_YOUNG_GENERATION_MB = 16;

function startPool(maxThreads: number): Piscina {
  return new Piscina({
    filename: entryFile,
    minThreads: 0,
    maxThreads,
    idleTimeout: 30_000,
    resourceLimits: {
      maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
      ...(heapMb === undefined ? {} : { maxOldGenerationSizeMb: heapMb }),
    },
  });
}

/**
 * Threads of one kind of work, with their own queue. Tasks wait here for a thread rather than in
 * piscina's queue. With `minThreads: 0`, piscina does not replace a thread that died (out of
 * memory, or stopped by an abort) while tasks were queued: they waited until some later task
 * started a thread, for ever if none came (an import's second batch did). Given at most one task
 * per thread, piscina starts a thread for each task it lacks one for.
 */
class Lane {
  private pool: Piscina | undefined;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: () => number) {}

  async run(tasks: TaskModule, name: string, input: unknown, options: RunOptions): Promise<unknown> {
    await this.take(options.signal);
    // The time limit counts from the thread taken, not from the wait for it.
    const signal =
      options.timeLimitMs === undefined
        ? options.signal
        : AbortSignal.any([AbortSignal.timeout(options.timeLimitMs), ...(options.signal ? [options.signal] : [])]);
    try {
      this.pool ??= startPool(this.size());
      type PiscinaRunOptions = NonNullable<Parameters<Piscina["run"]>[1]>;
      const run: PiscinaRunOptions = { transferList: options.transferList as PiscinaRunOptions["transferList"], signal: signal ?? null };
      return await this.pool.run({ module: tasks.url.href, name, input }, run);
    } catch (error) {
      // The same error as a task aborted inline (the signal's reason), not piscina's own AbortError.
      signal?.throwIfAborted();
      if ((error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY")
        throw new WorkerOutOfMemoryError(name, heapMb, tasks.outOfMemory(name));
      throw error;
    } finally {
      this.release();
    }
  }

  private take(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.inFlight < this.size()) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(start), 1);
        reject(signal?.reason);
      };
      const start = () => {
        signal?.removeEventListener("abort", onAbort);
        this.inFlight++;
        resolve();
      };
      this.waiting.push(start);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private release(): void {
    this.inFlight--;
    while (this.inFlight < this.size() && this.waiting.length > 0) this.waiting.shift()?.();
  }

  async close(): Promise<void> {
    const running = this.pool;
    this.pool = undefined;
    await running?.destroy();
  }
}

/**
 * `work`: the CPU-heavy tasks (conversions, indexing), on the configured threads. `reads`: long
 * database reads given a time limit (the insights' aggregations, up to 10 s each), on one thread of
 * their own so that a read held to its limit never delays a conversion a reader or an import waits for.
 */
const lanes = { work: new Lane(() => threads), reads: new Lane(() => 1) };
export type LaneName = keyof typeof lanes;

export interface RunOptions {
  /** Objects moved to the thread rather than copied (a MessagePort the task talks over). */
  transferList?: readonly (MessagePort | ArrayBuffer)[];
  /** Abort: a queued task is dropped, a running one stops with its thread. */
  signal?: AbortSignal;
  /** The threads it runs on (`work` when not given). */
  lane?: LaneName;
  /** Stops the task with its thread (a TimeoutError) once it has run this long; not for tasks run inline. */
  timeLimitMs?: number;
}

/** Runs the task `name` of `tasks` with `input` in a worker thread (inline when configured with 0 threads). */
export async function runTask(tasks: TaskModule, name: string, input: unknown, options: RunOptions = {}): Promise<unknown> {
  options.signal?.throwIfAborted();
  if (threads === 0) {
    const { default: run } = await tasks.load();
    return run({ name, input }, options.signal);
  }
  return lanes[options.lane ?? "work"].run(tasks, name, input, options);
}

/** Stops the threads (at shutdown); a later task starts a new pool. */
export async function closeWorkerThreads(): Promise<void> {
  await Promise.all(Object.values(lanes).map((lane) => lane.close()));
}
