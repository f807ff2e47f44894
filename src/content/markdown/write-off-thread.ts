/**
 * A stored document written as Markdown (a site's `<page>.md`, llms-full.txt and MCP read_page,
 * the API's `format=markdown`) off the thread that answers requests: writing costs ~0.5 ms per KB
 * of the document's JSON and more past a few MB (a paragraph of 100,000 marked pieces, 8.7 MB of
 * JSON, held the request thread 4-8 s). Small documents are written inline.
 *
 * The document travels as its stored JSON and is parsed only by the thread that writes it. A
 * site's links point at its own URLs, which only the request thread knows (the reader's pages):
 * the writer asks for the pages the document links to over a MessagePort (`host`), once, before
 * writing. A render in a worker thread is stopped after MARKDOWN_WRITE_TIMEOUT_MS.
 */
import type { MessagePort } from "node:worker_threads";
import { tooLarge } from "../../lib/errors.js";
import { answerOn, askOver } from "../../lib/port-questions.js";
import { ResultCache } from "../../lib/result-cache.js";
import { type EvaluationContext, type EvaluationMode, evaluateDocument } from "../document/evaluate.js";
import { documentInContext } from "../document/for-reader.js";
import { documentToPlainText } from "../document/plain-text.js";
import type { ContentRef, ContentRefPage, JSONDocument } from "../document/types.js";
import { runInWorker } from "../run-in-worker.js";
import { editablePathFor } from "./api-paths.js";
import { markdownFromDocument } from "./serialize.js";

/**
 * Below this many characters of document JSON the document is written inline. Measured (2 shared
 * cores): an ordinary page of 8 KB of JSON is written in ~3 ms, 1 MB in ~1 s (remark-stringify's
 * phrasing, then its garbage); a warm worker thread adds ~1-5 ms of round trip. Under 8 KB the
 * request thread is held a few ms at most.
 */
export const INLINE_MARKDOWN_WRITE_JSON_CHARS = 8 * 1024;

/** A render in a worker thread stopped past this (the thread is replaced; the caller gets a 413). */
export const MARKDOWN_WRITE_TIMEOUT_MS = 30_000;

export interface MarkdownWrite {
  /** The document's stored JSON. */
  documentJson: string;
  /**
   * For a published site's reader: what their conditions and expressions see (readerContext);
   * conditional blocks that do not hold are left out and expressions written as their value.
   */
  reader?: Record<string, unknown> | undefined;
  /** For the API's `evaluated`: expressions and conditions evaluated with the space's and page's variables. */
  evaluate?: { context: EvaluationContext; mode: EvaluationMode } | undefined;
  /**
   * How links to pages are written: "editable" (`/pages/<id>`, the API's form) or "host" (the
   * site's URLs, asked of the host; none: the converter's own fallback).
   */
  links: "editable" | "host";
  /**
   * What to write for each file the document uses, by file id: an address that ends with the
   * file's name, as GitBook's Markdown does (`/files/<id>/<name>`, a site's download URL).
   */
  files?: Record<string, string> | undefined;
  /** Pipe tables not padded to column width (serialize.ts `compactTables`): a site's Markdown for readers and machines. */
  compactTables?: boolean | undefined;
  /** A document the converter cannot write (malformed stored content) is written as its text rather than failing. */
  textOnFailure?: boolean | undefined;
}

/**
 * Documents written as Markdown, kept by a key the caller makes of everything the text depends on
 * (the document's hash names its content): a large page asked for again is not written again, and
 * asked for by many at once, written once.
 */
export const keptMarkdown = new ResultCache<string>(16 * 1024 * 1024, (text) => text.length * 2);

/** The request thread's side of a site's write: the URL of each page a document links to. */
export interface MarkdownWriteHost {
  /** Paths of pages (undefined for a page the reader may not open), in the order asked. */
  pagePaths(pages: readonly ContentRefPage[]): Promise<(string | undefined)[]>;
}

const pageKey = (ref: { page: string; space?: string | undefined }) => `${ref.space ?? ""}/${ref.page}`;

/** Every page the document links to (links, mentions, cards, anchors into other pages). */
function linkedPages(document: unknown): ContentRefPage[] {
  const found = new Map<string, ContentRefPage>();
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    const record = value as Record<string, unknown>;
    if ((record.kind === "page" || record.kind === "anchor") && typeof record.page === "string") {
      const ref: ContentRefPage = { kind: "page", page: record.page, ...(typeof record.space === "string" ? { space: record.space } : {}) };
      found.set(pageKey(ref), ref);
    }
    for (const child of Object.values(record)) if (typeof child === "object" && child !== null) stack.push(child);
  }
  return [...found.values()];
}

/** The write itself, the same on either thread. */
export async function writeMarkdownNow(task: MarkdownWrite, host?: MarkdownWriteHost): Promise<string> {
  let document = JSON.parse(task.documentJson) as JSONDocument;
  if (task.evaluate) document = evaluateDocument(document, task.evaluate.context, task.evaluate.mode);
  if (task.reader) document = documentInContext(document, task.reader);
  let pathFor: ((ref: ContentRef) => string | undefined) | undefined;
  if (task.links === "editable") pathFor = editablePathFor;
  else if (host) {
    const pages = linkedPages(document);
    const paths = pages.length > 0 ? await host.pagePaths(pages) : [];
    const table = new Map(pages.map((ref, i) => [pageKey(ref), paths[i]]));
    pathFor = (ref) => (ref.kind === "page" ? table.get(pageKey(ref)) : undefined);
  }
  const files = task.files;
  if (files) {
    const inner = pathFor;
    pathFor = (ref) => (ref.kind === "file" && files[ref.file] !== undefined ? files[ref.file] : inner?.(ref));
  }
  try {
    return markdownFromDocument(document, { ...(pathFor ? { pathFor } : {}), ...(task.compactTables ? { compactTables: true } : {}) });
  } catch (error) {
    if (!task.textOnFailure) throw error;
    return documentToPlainText(document)
      .map((section) =>
        [section.heading ? `${"#".repeat(section.heading.level + 1)} ${section.heading.text}` : "", section.text]
          .filter(Boolean)
          .join("\n\n"),
      )
      .join("\n\n");
  }
}

/**
 * Writes the document as Markdown, in a worker thread when its JSON is large enough to be worth
 * it. Throws `too-large` (413) when the worker's write runs past MARKDOWN_WRITE_TIMEOUT_MS.
 */
export async function writeMarkdown(task: MarkdownWrite, host?: MarkdownWriteHost): Promise<string> {
  if (task.documentJson.length < INLINE_MARKDOWN_WRITE_JSON_CHARS) return writeMarkdownNow(task, host);
  const { MessageChannel } = await import("node:worker_threads");
  const channel = host ? new MessageChannel() : undefined;
  if (channel && host) serveMarkdownHost(channel.port1, host);
  const signal = AbortSignal.timeout(MARKDOWN_WRITE_TIMEOUT_MS);
  try {
    return await runInWorker(
      "writeMarkdown",
      { ...task, ...(channel ? { host: channel.port2 } : {}) },
      { ...(channel ? { transferList: [channel.port2] } : {}), signal },
    );
  } catch (error) {
    if (signal.aborted) {
      throw tooLarge(
        `Writing this page as Markdown took longer than ${MARKDOWN_WRITE_TIMEOUT_MS / 1000} s and was stopped: split the page, or read it as HTML.`,
      );
    }
    throw error;
  } finally {
    channel?.port1.close();
  }
}

// ---- the port between the writer and the request thread ------------------------------------------

type HostQuestion = { pages: ContentRefPage[] };
type HostAnswer = { paths: (string | null)[] };

function serveMarkdownHost(port: MessagePort, host: MarkdownWriteHost): void {
  answerOn<HostQuestion, HostAnswer>(port, async (question) => ({
    answer: { paths: (await host.pagePaths(question.pages)).map((p) => p ?? null) },
  }));
}

/** The writer's side (in the worker thread): asks over `port`. `close()` once the write is over. */
export function markdownHostOver(port: MessagePort): MarkdownWriteHost & { close(): void } {
  const { ask, close } = askOver<HostQuestion, HostAnswer>(port);
  return {
    pagePaths: async (pages) => (await ask({ pages: [...pages] })).paths.map((p) => p ?? undefined),
    close,
  };
}
