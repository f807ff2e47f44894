import type { MessagePort } from "node:worker_threads";
import type { ContentRef, JSONDocument } from "./document-types.js";
import type { DescribeRef } from "./links.js";
import { renderPdf } from "./render-pdf.js";
import { type FileDescription, renderHostOver } from "./render-port.js";

/**
 * A render as plain data, so that it can run in a worker thread (src/content/tasks.ts). Documents
 * travel as their stored JSON text, once per distinct document: a string is copied between threads
 * in one piece, where a parsed document would be cloned node by node on the thread that sends it.
 * Images and file descriptions are not in it: the renderer asks for them over `host` (render-port.ts).
 */
export interface PdfRenderTask {
  title: string;
  subtitle?: string;
  generatedAt?: Date;
  pages: {
    id: string;
    title: string;
    depth: number;
    description?: string;
    /** Hash of the page's document in `documents`; null for groups. */
    document: string | null;
  }[];
  /** Document JSON by hash: the pages' and the reusable contents'. */
  documents: Map<string, string>;
  /** Reusable content id -> document hash, for the reusable-content blocks of the pages. */
  reusableContents: Map<string, string>;
  /** Title of every page of the content (references to pages outside the export print it). */
  pageTitles: Map<string, string>;
  /** Where to ask for images and files (the caller answers with serveRenderHost). */
  host: MessagePort;
}

/** Renders a task; the same whether it runs in a worker thread or inline. */
export async function renderPdfTask(task: PdfRenderTask, signal?: AbortSignal): Promise<Buffer> {
  const parsed = new Map<string, JSONDocument>();
  const documentOf = (hash: string | null | undefined): JSONDocument | undefined => {
    if (!hash) return undefined;
    let document = parsed.get(hash);
    if (!document) {
      const json = task.documents.get(hash);
      if (json === undefined) return undefined;
      document = JSON.parse(json) as JSONDocument;
      parsed.set(hash, document);
    }
    return document;
  };
  const host = renderHostOver(task.host);
  try {
    const pages = task.pages.map(({ document, ...page }) => {
      const body = documentOf(document);
      return { ...page, document: body ? inlineReusableContents(body, (id) => documentOf(task.reusableContents.get(id))) : null };
    });
    // Parsed now; the text is no longer needed.
    task.documents.clear();
    // describeRef is called synchronously in the middle of the layout, where the other thread
    // cannot be waited for: the files the pages refer to are described beforehand, in one request.
    const files = await host.describeFiles(fileIdsIn(pages.flatMap((page) => (page.document ? [page.document] : []))));
    return await renderPdf({
      title: task.title,
      ...(task.subtitle ? { subtitle: task.subtitle } : {}),
      ...(task.generatedAt ? { generatedAt: task.generatedAt } : {}),
      pages,
      loadImage: host.loadImage,
      describeRef: describeFrom(files, task.pageTitles),
      ...(signal ? { signal } : {}),
    });
  } finally {
    host.close();
  }
}

function describeFrom(files: ReadonlyMap<string, FileDescription>, pageTitles: ReadonlyMap<string, string>): DescribeRef {
  return (ref: ContentRef) => {
    if (ref.kind === "file") return typeof ref.file === "string" ? files.get(ref.file) : undefined;
    if (ref.kind === "page" && typeof ref.page === "string") {
      const title = pageTitles.get(ref.page);
      return title ? { text: title } : undefined;
    }
    return undefined;
  };
}

/** Ids of every file reference (`{kind: "file", file}`) anywhere in the documents, wherever the renderer may meet it. */
function fileIdsIn(documents: readonly JSONDocument[]): string[] {
  const ids = new Set<string>();
  // Pages share the nodes of a document they both show, or of a reusable content they include.
  const seen = new Set<object>();
  const stack: unknown[] = [...documents];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    const record = value as Record<string, unknown>;
    if (record.kind === "file" && typeof record.file === "string") ids.add(record.file);
    for (const key in record) stack.push(record[key]);
  }
  return [...ids];
}

/** Replaces each reusable-content block by the blocks of that reusable content (one level deep). */
export function inlineReusableContents(document: JSONDocument, body: (id: string) => JSONDocument | undefined): JSONDocument {
  type Block = { type?: string; data?: { ref?: { kind?: string; reusableContent?: string } } };
  const nodes = (document.nodes as unknown as Block[]).flatMap((block) => {
    const id =
      block.type === "reusable-content" && block.data?.ref?.kind === "reusable-content" ? block.data.ref.reusableContent : undefined;
    const included = id ? body(id) : undefined;
    return included ? (included.nodes as unknown as Block[]) : [block];
  });
  return { ...document, nodes: nodes as unknown as JSONDocument["nodes"] };
}
