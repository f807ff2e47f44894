/**
 * PDF export of a revision (a space's primary content or a change request's, or one page of a
 * published site as a reader sees it): which pages, how images and references resolve, and a
 * cache of rendered files (a revision never changes, so neither does its PDF), with one render per
 * file at a time.
 */

import { createHash } from "node:crypto";
import { MessageChannel } from "node:worker_threads";
import type { JSONDocument } from "../../content/document/types.js";
import { type RenderHost, serveRenderHost } from "../../content/pdf/render-port.js";
import type { PdfRenderTask } from "../../content/pdf/render-task.js";
import { indexPages, type PageNode, type RevisionContent } from "../../content/revision/model.js";
import { loadContent } from "../../content/revision/storage.js";
import { runInWorker } from "../../content/run-in-worker.js";
import { getBlob, putBlob } from "../../content/store/blobs.queries.js";
import { getObjectsJson } from "../../content/store/objects.queries.js";
import type { Db } from "../../db/database.js";
import type { Urls } from "../../http/urls.js";
import { busy, missing } from "../../lib/errors.js";
import { downloadUrl } from "../files/files-urls.model.js";
import { getPdfExportBlob, putPdfExport } from "./pdf.queries.js";

/** Bump when the renderer's output changes, so cached PDFs are rendered again. */
const RENDER_VERSION = 1;

export interface PdfRequest {
  spaceId: string;
  revisionId: string;
  treeHash: string | null;
  title: string;
  subtitle?: string;
  /** A page to export (with its subpages unless `only`). */
  pageId?: string;
  only?: boolean;
  /**
   * What one reader of a published site may see: the export then prints each document as they
   * see it and names only the pages they may read (a reference to another page prints its title).
   */
  reader?: PdfReaderFilter;
}

export interface PdfReaderFilter {
  /** The document as this reader sees it (conditional blocks resolved, expressions evaluated). */
  document(document: JSONDocument): JSONDocument;
  /** Whether this reader may read the page (its title may be printed). */
  pageReadable(pageId: string): boolean;
}

export function pdfCacheKey(request: Omit<PdfRequest, "title" | "subtitle" | "treeHash" | "reader">, variant = ""): string {
  const parts = [RENDER_VERSION, request.spaceId, request.revisionId, request.pageId ?? "", request.only ? "only" : "tree"];
  if (variant) parts.push(variant);
  return createHash("sha256").update(parts.join("\n")).digest("hex");
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * The documents and page titles as one reader sees them. Each document rewritten for the reader is
 * addressed by the hash of its new text, so the cache key (`variant`) names exactly what is
 * printed: readers who see the same thing share one file, readers who see more or less do not.
 */
function forReader(
  filter: PdfReaderFilter,
  documents: Map<string, string>,
  pageTitles: Map<string, string>,
): { documents: Map<string, string>; rename: Map<string, string>; pageTitles: Map<string, string>; variant: string } {
  const out = new Map<string, string>();
  const rename = new Map<string, string>();
  for (const [hash, json] of documents) {
    const text = JSON.stringify(filter.document(JSON.parse(json) as JSONDocument));
    const next = text === json ? hash : sha256(text);
    rename.set(hash, next);
    out.set(next, text);
  }
  const titles = new Map([...pageTitles].filter(([id]) => filter.pageReadable(id)));
  const variant = sha256(
    JSON.stringify([[...rename].sort(([a], [b]) => (a < b ? -1 : 1)), [...titles].sort(([a], [b]) => (a < b ? -1 : 1))]),
  );
  return { documents: out, rename, pageTitles: titles, variant };
}

/** Renders under way by cache key: a second request for the same file waits for the first. */
const inFlight = new Map<string, Promise<Buffer>>();

/**
 * Renders for readers of published sites (anyone may ask) running at once, at most; beyond, the
 * reader is asked to retry. A file already rendered, or being rendered, costs no render and is not
 * counted. API exports are not capped here: they need a token, which the rate limiter counts.
 */
export const MAX_READER_RENDERS = 2;

/** The reader render slots: taken for the length of one render, given back when it ends either way. */
export const readerRenderSlots = {
  taken: 0,
  tryTake(): boolean {
    if (this.taken >= MAX_READER_RENDERS) return false;
    this.taken++;
    return true;
  },
  giveBack(): void {
    this.taken = Math.max(0, this.taken - 1);
  },
};

/** The error a reader past the cap gets (429, retry in a few seconds). */
export const pdfBusy = () => busy("PDF exports are busy right now; try again in a few seconds.");

/** The pages to print, in page-tree order with their depth; 404 when the asked page is not there. */
export function selectPages(pages: PageNode[], pageId: string | undefined, only: boolean | undefined) {
  const out: { node: PageNode; depth: number }[] = [];
  const walk = (nodes: PageNode[], depth: number) => {
    for (const node of nodes) {
      if (node.kind === "link") continue;
      out.push({ node, depth });
      walk(node.children, depth + 1);
    }
  };
  if (!pageId) {
    walk(pages, 0);
    return out;
  }
  const location = indexPages(pages).get(pageId);
  if (!location) throw missing(`No page with id "${pageId}" in this content.`);
  out.push({ node: location.page, depth: 0 });
  if (!only) walk(location.page.children, 1);
  return out;
}

/** The rendered PDF's bytes, from the cache or rendered now. */
export async function pdfBytes(db: Db, urls: Urls, secret: string, request: PdfRequest, signal?: AbortSignal): Promise<Buffer> {
  if (!request.reader) {
    const key = pdfCacheKey(request);
    const cached = await cachedBytes(db, key);
    if (cached) return cached;
  }
  const content = await loadContent(db, request.treeHash);
  const selected = selectPages(content.pages, request.pageId, request.only);
  let documents = await getObjectsJson(db, [
    ...selected.flatMap(({ node }) => (node.documentHash ? [node.documentHash] : [])),
    ...content.reusableContents.flatMap((r) => (r.documentHash ? [r.documentHash] : [])),
  ]);
  let pageTitles = new Map([...indexPages(content.pages).values()].map((l) => [l.page.id, l.page.title]));
  let rename = (hash: string) => hash;
  let key = pdfCacheKey(request);
  if (request.reader) {
    const seen = forReader(request.reader, documents, pageTitles);
    documents = seen.documents;
    pageTitles = seen.pageTitles;
    rename = (hash) => seen.rename.get(hash) ?? hash;
    // The title is the site's, which can change within a revision: it is part of what is printed.
    key = pdfCacheKey(request, `${seen.variant}\n${request.title}\n${request.subtitle ?? ""}`);
    const cached = await cachedBytes(db, key);
    if (cached) return cached;
  }
  const running = inFlight.get(key);
  if (running) {
    // The render being waited for stopped because its own client went away: this one renders.
    return running.catch((error: unknown) => {
      if (error instanceof Error && error.name === "AbortError" && !signal?.aborted) return pdfBytes(db, urls, secret, request, signal);
      throw error;
    });
  }
  if (request.reader && !readerRenderSlots.tryTake()) throw pdfBusy();
  const render = renderAndStore(db, urls, secret, request, signal, {
    key,
    content,
    selected,
    documents,
    pageTitles,
    rename,
  }).finally(() => {
    inFlight.delete(key);
    if (request.reader) readerRenderSlots.giveBack();
  });
  inFlight.set(key, render);
  return render;
}

async function cachedBytes(db: Db, key: string): Promise<Buffer | undefined> {
  const blobHash = await getPdfExportBlob(db, key);
  return blobHash ? await getBlob(db, blobHash) : undefined;
}

async function renderAndStore(
  db: Db,
  urls: Urls,
  secret: string,
  request: PdfRequest,
  signal: AbortSignal | undefined,
  input: {
    key: string;
    content: RevisionContent;
    selected: ReturnType<typeof selectPages>;
    documents: Map<string, string>;
    pageTitles: Map<string, string>;
    rename: (hash: string) => string;
  },
): Promise<Buffer> {
  const { key, content, selected, documents, pageTitles, rename } = input;
  const files = new Map(content.files.map((f) => [f.id, f]));
  const bytes = await renderOffThread(
    {
      title: request.title,
      ...(request.subtitle ? { subtitle: request.subtitle } : {}),
      pages: selected.map(({ node, depth }) => ({
        id: node.id,
        title: node.title,
        depth,
        ...(node.description ? { description: node.description } : {}),
        document:
          node.kind === "document" && node.documentHash && documents.has(rename(node.documentHash)) ? rename(node.documentHash) : null,
      })),
      documents,
      reusableContents: new Map(content.reusableContents.flatMap((r) => (r.documentHash ? [[r.id, rename(r.documentHash)] as const] : []))),
      pageTitles,
    },
    {
      // Only files of this revision are embedded; the renderer never fetches URLs.
      loadImage: async (ref) => {
        if (ref.kind !== "file") return undefined;
        const file = files.get(ref.file);
        const data = file ? await getBlob(db, file.blobHash) : undefined;
        return file && data ? { bytes: data, contentType: file.contentType } : undefined;
      },
      describeFiles: async (ids) =>
        new Map(
          ids.flatMap((id) => {
            const file = files.get(id);
            if (!file) return [];
            const target = { blobHash: file.blobHash, name: file.name, contentType: file.contentType };
            return [[id, { text: file.name, url: downloadUrl(urls.base, secret, target) }] as const];
          }),
        ),
    },
    signal,
  );
  await db.transaction().execute(async (trx) => {
    const { hash } = await putBlob(trx, bytes);
    await putPdfExport(trx, { key, spaceId: request.spaceId, blobHash: hash });
  });
  return bytes;
}

/**
 * Renders in a worker thread (inline with QUIRE_WORKER_THREADS=0), answering the renderer's requests
 * for images and files here, where the database is: a large export costs the request thread only
 * those reads.
 */
async function renderOffThread(task: Omit<PdfRenderTask, "host">, host: RenderHost, signal: AbortSignal | undefined): Promise<Buffer> {
  const channel = new MessageChannel();
  serveRenderHost(channel.port1, host);
  try {
    const bytes = await runInWorker(
      "renderPdf",
      { ...task, host: channel.port2 },
      { transferList: [channel.port2], ...(signal ? { signal } : {}) },
    );
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } finally {
    channel.port1.close();
  }
}
