/**
 * Runs a task of the content engine (tasks.ts) in the worker pool (workers/pool.ts), typed by the
 * task's name: what the engine's off-thread modules and the families call.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type RunOptions, runTask, type TaskModule } from "../workers/pool.js";
import type { TaskName, Tasks } from "./tasks.js";

export type TaskInput<K extends TaskName> = Parameters<Tasks[K]>[0];
export type TaskOutput<K extends TaskName> = Awaited<ReturnType<Tasks[K]>>;

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
  searchVocabulary: "Indexing the vocabulary of the searched space",
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
  searchVocabulary: `${RAISE}.`,
  askVocabulary: `${RAISE}, or ask in fewer spaces.`,
  askScore: `${RAISE}.`,
  pageReferences: `${RAISE} or split the largest pages (QUIRE_IMPORT_MAX_PAGE_BYTES leaves larger pages out of imports).`,
  renderPdf: `print fewer pages (one page or a section instead of the whole space), or ${RAISE}.`,
};

/** tasks.ts from the sources (vitest, tsx), tasks.js once built: the same extension as this file. */
const CONTENT_TASKS: TaskModule = {
  url: new URL(`./tasks${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url),
  load: () => import("./tasks.js") as ReturnType<TaskModule["load"]>,
  outOfMemory: (name) => ({ work: WORK_OF_TASK[name as TaskName], remedy: REMEDY_OF_TASK[name as TaskName] }),
};

/** Runs the content task `name` with `input` in a worker thread (inline when configured with 0 threads). */
export function runInWorker<K extends TaskName>(name: K, input: TaskInput<K>, options: RunOptions = {}): Promise<TaskOutput<K>> {
  return runTask(CONTENT_TASKS, name, input, options) as Promise<TaskOutput<K>>;
}
