/**
 * PDF export of a revision (a space's primary content or a change request's): which pages, how
 * images and references resolve, and a cache of rendered files (a revision never changes, so
 * neither does its PDF).
 */
import { createHash } from "node:crypto";
import { MessageChannel } from "node:worker_threads";
import { type RenderHost, serveRenderHost } from "../../content/pdf/render-port.js";
import type { PdfRenderTask } from "../../content/pdf/render-task.js";
import { indexPages, type PageNode } from "../../content/revision/model.js";
import { loadContent } from "../../content/revision/storage.js";
import { getBlob, putBlob } from "../../content/store/blobs.queries.js";
import { getObjectsJson } from "../../content/store/objects.queries.js";
import type { Db } from "../../db/database.js";
import type { Urls } from "../../http/urls.js";
import { missing } from "../../lib/errors.js";
import { nowIso } from "../../lib/time.js";
import { runInWorker } from "../../workers/pool.js";
import { downloadUrl } from "../files/files.urls.js";

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
}

export function pdfCacheKey(request: Omit<PdfRequest, "title" | "subtitle" | "treeHash">): string {
  const parts = [RENDER_VERSION, request.spaceId, request.revisionId, request.pageId ?? "", request.only ? "only" : "tree"];
  return createHash("sha256").update(parts.join("\n")).digest("hex");
}

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
  const key = pdfCacheKey(request);
  const cached = await db.selectFrom("pdfExports").select("blobHash").where("key", "=", key).executeTakeFirst();
  if (cached) {
    const bytes = await getBlob(db, cached.blobHash);
    if (bytes) return bytes;
  }
  const content = await loadContent(db, request.treeHash);
  const selected = selectPages(content.pages, request.pageId, request.only);
  const documents = await getObjectsJson(db, [
    ...selected.flatMap(({ node }) => (node.documentHash ? [node.documentHash] : [])),
    ...content.reusableContents.flatMap((r) => (r.documentHash ? [r.documentHash] : [])),
  ]);
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
        document: node.kind === "document" && node.documentHash && documents.has(node.documentHash) ? node.documentHash : null,
      })),
      documents,
      reusableContents: new Map(content.reusableContents.flatMap((r) => (r.documentHash ? [[r.id, r.documentHash] as const] : []))),
      pageTitles: new Map([...indexPages(content.pages).values()].map((l) => [l.page.id, l.page.title])),
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
    await trx
      .insertInto("pdfExports")
      .values({ key, spaceId: request.spaceId, blobHash: hash, createdAt: nowIso() })
      .onConflict((oc) => oc.column("key").doUpdateSet({ blobHash: hash, createdAt: nowIso() }))
      .execute();
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
