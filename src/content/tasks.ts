/**
 * The content engine's CPU-heavy work, run in worker threads (workers/pool.ts, through run-in-worker.ts): converting Markdown pages and reading
 * SUMMARY.md of an import, converting Markdown given to the API, preparing JSON documents given to the API, extracting the searchable text of
 * documents, rendering PDFs and rendering large documents to HTML for the web app. Inputs and outputs are plain data, and
 * documents travel as JSON text: a string is copied between threads in one piece, where an object
 * graph of a large document would be cloned node by node on the calling thread.
 */

import type { MessagePort } from "node:worker_threads";
import { isWorkerThread, move } from "piscina";
import {
  type AskCandidate,
  type AskTerm,
  buildVocabulary,
  type PackedAskVocabulary,
  packAskVocabulary,
  type ScoredCandidate,
  scoreCandidates,
} from "./ask/analysis.js";
import { type DocumentPreparation, type PreparedDocument, prepareDocumentNow } from "./document/off-thread.js";
import { documentSearchText, type SearchTextContext, type SearchTextSection } from "./document/plain-text.js";
import type { JSONDocument } from "./document/types.js";
import type { ReadYState } from "./editor/off-thread.js";
import { type ResolveTable, resolverFor } from "./git-sync/resolve.js";
import { extractReferences } from "./gitbook-repo/references.js";
import { parseSummary as parseSummaryNow } from "./gitbook-repo/summary.js";
import type { HtmlRender, RenderedHtml } from "./html/off-thread.js";
import type { ContentLinkTable } from "./markdown/content-links.js";
import { type PageFrontmatter, parseMarkdownPage } from "./markdown/index.js";
import { type ConvertedMarkdown, convertMarkdownNow } from "./markdown/off-thread.js";
import type { MarkdownWrite } from "./markdown/write-off-thread.js";
import type { PdfRenderTask } from "./pdf/render-task.js";
import type { SearchQuery } from "./search/fulltext.js";
import { snippetOf } from "./search/snippets.js";
import { type PackedVocabulary, packVocabulary } from "./search/typos.js";
import { canonicalJson, objectHash } from "./store/canonical.js";

export interface PageToParse {
  source: string;
  /** Root-relative path of the file, for its relative links. */
  fromPath: string;
  /** JSON of the page's previous document, whose block keys unchanged blocks keep. */
  previousJson?: string | undefined;
}

export interface ParsedPage {
  frontmatter: PageFrontmatter;
  title?: string | undefined;
  warnings: string[];
  /** The document's object hash (kind "document") and canonical JSON, ready to store. */
  hash: string;
  json: string;
}

/** Converts Markdown pages of an import to documents (the same as parseMarkdownPage on the calling thread). */
export function parsePages(input: { table: ResolveTable; pages: PageToParse[] }): ParsedPage[] {
  return input.pages.map((page) => {
    const previous = page.previousJson ? (JSON.parse(page.previousJson) as JSONDocument) : undefined;
    const parsed = parseMarkdownPage(page.source, { resolve: resolverFor(input.table, page.fromPath), ...(previous ? { previous } : {}) });
    const json = canonicalJson(parsed.document);
    return { frontmatter: parsed.frontmatter, title: parsed.title, warnings: parsed.warnings, hash: objectHash("document", json), json };
  });
}

/** Converts one page of Markdown given to the API (off-thread.ts); the same as convertMarkdownNow on the calling thread. */
export function convertMarkdown(input: { markdown: string; previousJson?: string; links?: ContentLinkTable }): ConvertedMarkdown {
  return convertMarkdownNow(input);
}

/** A JSON document given to the API with its previous version's block keys, ready to store (document/off-thread.ts). */
export function prepareDocument(input: DocumentPreparation): PreparedDocument {
  return prepareDocumentNow(input);
}

/** The sections of text of documents given as JSON, with what readers may see of them (search indexing). */
export function searchTexts(input: { documents: { json: string; context: SearchTextContext }[] }): SearchTextSection[][] {
  return input.documents.map(({ json, context }) => documentSearchText(JSON.parse(json) as JSONDocument, context));
}

/** A site search's vocabulary of a space, packed (search/typos.ts): its words "\n"-joined, their occurrences alike. */
export function searchVocabulary(input: { words: string; occurrences: Int32Array }): PackedVocabulary {
  const words = input.words === "" ? [] : input.words.split("\n");
  return packVocabulary(words.map((word, i) => ({ word, occurrences: input.occurrences[i] ?? 0 })));
}

/** Snippets of search results (search/snippets.ts), for a page of results with much text. */
export function searchSnippets(input: { texts: string[]; query: SearchQuery }): string[] {
  return input.texts.map((text) => snippetOf(text, input.query));
}

/** The vocabulary of searched rows, for Ask's typo tolerance and term weights (ask/analysis.ts). */
export function askVocabulary(input: { texts: string[] }): PackedAskVocabulary {
  return packAskVocabulary(buildVocabulary(input.texts));
}

/** Ask's scores and passages of candidate sections (ask/analysis.ts), for candidates with much text. */
export function askScore(input: { terms: AskTerm[]; candidates: AskCandidate[] }): ScoredCandidate[] {
  return scoreCandidates(input.terms, input.candidates);
}

/** SUMMARY.md read into its tree of entries (one of 80 KB held the request thread ~250 ms). */
export function parseSummary(input: { text: string; path: string; maxDepth?: number }): ReturnType<typeof parseSummaryNow> {
  return parseSummaryNow(input.text, input.path, input.maxDepth);
}

/** The repository paths each page refers to (readRepository decides which exist and are imported). */
export function pageReferences(input: { sources: string[] }): string[][] {
  return input.sources.map((source) => extractReferences(source));
}

/**
 * A PDF of a space or change request (the task's `host` port must be in the run's transfer list).
 * The file's bytes are moved back to the calling thread rather than copied.
 */
export async function renderPdf(input: PdfRenderTask, signal?: AbortSignal): Promise<Uint8Array> {
  // Loaded on first use: pdfkit and fontkit weigh ~50 MB that a thread which never prints does not need.
  const { renderPdfTask } = await import("./pdf/render-task.js");
  const { ownArrayBuffer } = await import("./pdf/render-port.js");
  const bytes = await renderPdfTask(input, signal);
  return isWorkerThread ? (move(new Uint8Array(ownArrayBuffer(bytes))) as Uint8Array) : bytes;
}

/**
 * A document rendered to HTML for the web app (html/off-thread.ts); the files and reusable contents
 * it uses are asked for over the task's `host` port, which must be in the run's transfer list.
 */
export async function renderHtml(input: HtmlRender & { host: MessagePort }): Promise<RenderedHtml> {
  // Loaded on first use, like the PDF renderer: a thread that never renders HTML does not need it.
  const { htmlHostOver, renderHtmlNow } = await import("./html/off-thread.js");
  const host = htmlHostOver(input.host);
  try {
    return await renderHtmlNow(input, host);
  } finally {
    host.close();
  }
}

/**
 * A stored document written as Markdown (markdown/write-off-thread.ts); a site's page links are
 * asked for over the task's `host` port, which must then be in the run's transfer list.
 */
export async function writeMarkdown(input: MarkdownWrite & { host?: MessagePort }): Promise<string> {
  const { markdownHostOver, writeMarkdownNow } = await import("./markdown/write-off-thread.js");
  const host = input.host ? markdownHostOver(input.host) : undefined;
  try {
    return await writeMarkdownNow(input, host);
  } finally {
    host?.close();
  }
}

// The editor's model (ProseMirror, Yjs) is loaded by the first task that needs it, not by every
// thread: a thread's heap (QUIRE_WORKER_HEAP_MB) is mostly its loaded modules until then.
const editorOffThread = () => import("./editor/off-thread.js");

/** A page's document as the Yjs state the collaboration server starts from (editor/off-thread.ts). */
export async function editorDocumentToYState(input: { documentJson: string }): Promise<Uint8Array> {
  return (await editorOffThread()).documentJsonToYStateNow(input);
}

/** The document a collaborative Yjs state holds, checked (editor/off-thread.ts). */
export async function editorYStateToDocument(input: { state: Uint8Array }): Promise<ReadYState> {
  return (await editorOffThread()).yStateToDocumentJsonNow(input);
}

/** Collaborative Yjs states merged into one (editor/off-thread.ts). */
export async function editorMergeYStates(input: { states: Uint8Array[] }): Promise<Uint8Array> {
  return (await editorOffThread()).mergeYStatesNow(input);
}

const TASKS = {
  editorDocumentToYState,
  editorMergeYStates,
  editorYStateToDocument,
  parsePages,
  parseSummary,
  convertMarkdown,
  prepareDocument,
  searchTexts,
  searchSnippets,
  searchVocabulary,
  askVocabulary,
  askScore,
  pageReferences,
  renderPdf,
  renderHtml,
  writeMarkdown,
};
export type Tasks = typeof TASKS;
export type TaskName = keyof Tasks;

/**
 * The entry piscina calls in each thread: one of the tasks above by name. `signal` is only given
 * when a task runs inline; in a thread, piscina stops the thread itself on abort.
 */
export default function runTask<K extends TaskName>(
  task: { name: K; input: Parameters<Tasks[K]>[0] },
  signal?: AbortSignal,
): ReturnType<Tasks[K]> {
  const fn = TASKS[task.name] as (input: Parameters<Tasks[K]>[0], signal?: AbortSignal) => ReturnType<Tasks[K]>;
  return fn(task.input, signal);
}
