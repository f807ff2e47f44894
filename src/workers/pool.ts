/**
 * A small pool of worker threads (piscina) for CPU-heavy work, so that converting a 2 MB Markdown
 * page or indexing a large space never holds the thread that answers requests. The tasks are the
 * functions of tasks.ts; `QUIRE_WORKER_THREADS` sets the number of threads (0 runs them inline, on
 * the calling thread). Threads start on first use and stop after a while idle.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { MessagePort } from "node:worker_threads";
import { Piscina } from "piscina";
import { DomainError } from "../lib/errors.js";
import type { TaskName, Tasks } from "./tasks.js";

export type TaskInput<K extends TaskName> = Parameters<Tasks[K]>[0];
export type TaskOutput<K extends TaskName> = Awaited<ReturnType<Tasks[K]>>;

const here = fileURLToPath(import.meta.url);
/** tasks.js next to this file once built; from the TypeScript sources, a shim that loads tasks.ts through tsx. */
const tasksFile = path.join(path.dirname(here), path.extname(here) === ".ts" ? "tasks.source.mjs" : "tasks.js");

let threads = 1;
let heapMb: number | undefined;
let pool: Piscina | undefined;

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
    readonly task: TaskName,
    readonly heapLimitMb: number | undefined,
  ) {
    const limit =
      heapLimitMb === undefined ? "V8's default heap limit (QUIRE_WORKER_HEAP_MB is not set)" : `QUIRE_WORKER_HEAP_MB=${heapLimitMb}`;
    super("too-large", `${WORK_OF_TASK[task]} ran out of memory in a worker thread (${limit}): ${REMEDY_OF_TASK[task]}`);
    this.name = "WorkerOutOfMemoryError";
  }
}

const WORK_OF_TASK: Record<TaskName, string> = {
  parsePages: "Converting Markdown pages",
  parseSummary: "Reading SUMMARY.md",
  convertMarkdown: "Converting the Markdown",
  prepareDocument: "Preparing the JSON document",
  editorDocumentToYState: "Opening the page for live editing",
  editorYStateToDocument: "Reading the live edited page",
  editorMergeYStates: "Merging the live edited page's states",
  renderHtml: "Rendering the page to HTML",
  writeMarkdown: "Writing the page as Markdown",
  searchTexts: "Extracting the searchable text of pages",
  searchSnippets: "Making the snippets of search results",
  askVocabulary: "Reading the vocabulary of the searched spaces",
  askScore: "Scoring the sections that may answer the question",
  pageReferences: "Finding the files that pages refer to",
  renderPdf: "Rendering the PDF",
};

const RAISE = "raise QUIRE_WORKER_HEAP_MB";
const REMEDY_OF_TASK: Record<TaskName, string> = {
  parsePages: `${RAISE} or split the largest pages (QUIRE_IMPORT_MAX_PAGE_BYTES leaves larger pages out of imports).`,
  parseSummary: `${RAISE}, or split the table of contents (SUMMARY.md).`,
  convertMarkdown: `send a smaller document, or ${RAISE}.`,
  prepareDocument: `send a smaller document, or ${RAISE}.`,
  editorDocumentToYState: `split the page, or ${RAISE}.`,
  editorYStateToDocument: `split the page, or ${RAISE}.`,
  editorMergeYStates: `split the page, or ${RAISE}.`,
  renderHtml: `split the page, or ${RAISE}.`,
  writeMarkdown: `split the page, or ${RAISE}.`,
  searchTexts: `${RAISE}, or split the largest pages.`,
  searchSnippets: `${RAISE}.`,
  askVocabulary: `${RAISE}, or ask in fewer spaces.`,
  askScore: `${RAISE}.`,
  pageReferences: `${RAISE} or split the largest pages (QUIRE_IMPORT_MAX_PAGE_BYTES leaves larger pages out of imports).`,
  renderPdf: `print fewer pages (one page or a section instead of the whole space), or ${RAISE}.`,
};

/**
 * Young generation of each thread. Converting Markdown allocates fast and briefly (micromark's
 * events): with V8's default (48 MB) the thread's heap grew ~120 MB more during the import of an
 * 800-page repository; 16 MB kept it down for ~5% more CPU. The old generation is left to V8
 * unless QUIRE_WORKER_HEAP_MB caps it: any cap, even 512 MB, made V8 collect more often (25-50%
 * more CPU for 35-50 MB less peak RSS on that import, docs/git-import.md), and a cap fails a large page.
 */
const WORKER_YOUNG_GENERATION_MB = 16;

function startPool(): Piscina {
  return new Piscina({
    filename: tasksFile,
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: 30_000,
    resourceLimits: {
      maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
      ...(heapMb === undefined ? {} : { maxOldGenerationSizeMb: heapMb }),
    },
  });
}

export interface RunOptions {
  /** Objects moved to the thread rather than copied (a MessagePort the task talks over). */
  transferList?: readonly (MessagePort | ArrayBuffer)[];
  /** Abort: a queued task is dropped, a running one stops with its thread. */
  signal?: AbortSignal;
}

/** Runs the task `name` of tasks.ts with `input` in a worker thread (inline when configured with 0 threads). */
export async function runInWorker<K extends TaskName>(name: K, input: TaskInput<K>, options: RunOptions = {}): Promise<TaskOutput<K>> {
  const { signal } = options;
  signal?.throwIfAborted();
  if (threads === 0) {
    const { default: runTask } = await import("./tasks.js");
    return runTask({ name, input }, signal) as TaskOutput<K>;
  }
  await takeThread(signal);
  try {
    pool ??= startPool();
    type PiscinaRunOptions = NonNullable<Parameters<Piscina["run"]>[1]>;
    const run: PiscinaRunOptions = { transferList: options.transferList as PiscinaRunOptions["transferList"], signal: signal ?? null };
    return (await pool.run({ name, input }, run)) as TaskOutput<K>;
  } catch (error) {
    // The same error as a task aborted inline (the signal's reason), not piscina's own AbortError.
    signal?.throwIfAborted();
    if ((error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY") throw new WorkerOutOfMemoryError(name, heapMb);
    throw error;
  } finally {
    releaseThread();
  }
}

/**
 * Tasks wait here for a thread rather than in piscina's queue. With `minThreads: 0`, piscina does
 * not replace a thread that died (out of memory, or stopped by an abort) while tasks were queued:
 * they waited until some later task started a thread, for ever if none came (an import's second
 * batch did). Given at most one task per thread, piscina starts a thread for each task it lacks one for.
 */
let inFlight = 0;
const waiting: (() => void)[] = [];

function takeThread(signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (inFlight < threads) {
    inFlight++;
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      waiting.splice(waiting.indexOf(start), 1);
      reject(signal?.reason);
    };
    const start = () => {
      signal?.removeEventListener("abort", onAbort);
      inFlight++;
      resolve();
    };
    waiting.push(start);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function releaseThread(): void {
  inFlight--;
  while (inFlight < threads && waiting.length > 0) waiting.shift()?.();
}

/** Stops the threads (at shutdown); a later task starts a new pool. */
export async function closeWorkerThreads(): Promise<void> {
  const running = pool;
  pool = undefined;
  await running?.destroy();
}
