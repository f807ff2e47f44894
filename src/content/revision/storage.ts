/**
 * Reads and writes revision content as content-addressed objects, like git trees:
 *
 *   root  = { pages: <hash>, files: <hash>, reusableContents: <hash>, variables }
 *   pages = { entries: [PageMeta + { children?: <hash of the child pages object> }] }  one per sibling list
 *
 * An edit of one page writes its new document, the pages objects on the path from it to the root,
 * and a new root; every other object is shared with the previous revision by hash.
 */

import { LRUCache } from "lru-cache";
import type { Executor } from "../../db/database.js";
import { invalid } from "../../lib/errors.js";
import {
  getObject,
  getObjectJson,
  getObjects,
  getObjectsJson,
  type PreparedObject,
  prepareObject,
  putObjects,
} from "../store/objects.queries.js";
import type { FileEntry, PageLocation, PageMeta, PageNode, ReusableContentEntry, RevisionContent } from "./model.js";
import { emptyContent, flattenBelowMaxDepth, indexPages, MAX_PAGE_DEPTH, pageTreeDepth } from "./model.js";

interface StoredRoot {
  pages: string;
  files: string;
  reusableContents: string;
  variables: Record<string, string>;
}

type StoredPageEntry = PageMeta & { children?: string };

interface StoredPages {
  entries: StoredPageEntry[];
}

/**
 * Prepares (hashes) every object of a content tree; returns the root and all objects. A page tree
 * deeper than MAX_PAGE_DEPTH is refused (`invalid`), whatever made it: an import, an edit, a merge.
 */
export function prepareContent(content: RevisionContent): { root: PreparedObject; objects: PreparedObject[] } {
  const depth = pageTreeDepth(content.pages);
  if (depth > MAX_PAGE_DEPTH) {
    throw invalid(
      `The page tree would be ${depth} levels deep; pages can be nested at most ${MAX_PAGE_DEPTH} levels (a page and its subpages, their subpages...).`,
    );
  }
  const objects: PreparedObject[] = [];
  const preparePages = (nodes: PageNode[]): PreparedObject => {
    const entries: StoredPageEntry[] = nodes.map(({ children, ...meta }) => {
      const entry: StoredPageEntry = { ...meta };
      if (children.length > 0) entry.children = preparePages(children).hash;
      return entry;
    });
    const object = prepareObject("pages", { entries } satisfies StoredPages);
    objects.push(object);
    return object;
  };
  const pages = preparePages(content.pages);
  const files = prepareObject("files", { entries: content.files });
  const reusable = prepareObject("reusable-contents", { entries: content.reusableContents });
  const root = prepareObject("root", {
    pages: pages.hash,
    files: files.hash,
    reusableContents: reusable.hash,
    variables: content.variables,
  } satisfies StoredRoot);
  objects.push(files, reusable, root);
  return { root, objects };
}

/** Stores a content tree; returns the root hash to record on a revision. */
export async function saveContent(db: Executor, content: RevisionContent): Promise<string> {
  const { root, objects } = prepareContent(content);
  await putObjects(db, objects);
  return root.hash;
}

/**
 * Materialized content trees by root hash. A revision's content never changes, so every reader of
 * the same revision can share one tree; it is frozen so that no caller can change it for others.
 */
const contentCache = new LRUCache<string, { content: RevisionContent; index?: Map<string, PageLocation> }>({
  maxSize: 200_000,
  sizeCalculation: (entry) => Math.max(1, entry.content.files.length + countPages(entry.content.pages)),
});

function countPages(pages: PageNode[]): number {
  let n = 0;
  for (const page of pages) n += 1 + countPages(page.children);
  return n;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** loadContent's answer when it is kept in memory (no promise); undefined when it must be loaded. */
export function keptContent(rootHash: string | null): RevisionContent | undefined {
  return rootHash ? contentCache.get(rootHash)?.content : undefined;
}

/** Loads a revision's content tree (not page bodies); `null` is the empty revision. Read-only. */
export async function loadContent(db: Executor, rootHash: string | null): Promise<RevisionContent> {
  if (!rootHash) return emptyContent();
  const cached = contentCache.get(rootHash);
  if (cached) return cached.content;
  const content = deepFreeze(await readContent(db, rootHash));
  contentCache.set(rootHash, { content });
  return content;
}

/** The pages of a content tree by id, shared with other readers of the same revision. */
export function indexOfContent(rootHash: string | null, content: RevisionContent): Map<string, PageLocation> {
  const cached = rootHash ? contentCache.get(rootHash) : undefined;
  if (cached && cached.content === content) {
    cached.index ??= indexPages(content.pages);
    return cached.index;
  }
  return indexPages(content.pages);
}

async function readContent(db: Executor, rootHash: string): Promise<RevisionContent> {
  const root = await getObject<StoredRoot>(db, rootHash);
  if (!root) throw new Error(`Revision root object ${rootHash} is missing`);
  const parts = await getObjects<{ entries: unknown[] }>(db, [root.files, root.reusableContents]);
  const pages = await loadPages(db, root.pages);
  return {
    pages,
    files: (parts.get(root.files)?.entries ?? []) as FileEntry[],
    reusableContents: (parts.get(root.reusableContents)?.entries ?? []) as ReusableContentEntry[],
    variables: root.variables ?? {},
  };
}

/**
 * Loads the page tree breadth-first: one batched read per depth level. A tree stored deeper than
 * MAX_PAGE_DEPTH (before that bound existed) is read flattened to it, so that its space can still
 * be read, edited and re-imported.
 */
async function loadPages(db: Executor, rootPagesHash: string): Promise<PageNode[]> {
  const top: PageNode[] = [];
  let level: { hash: string; into: PageNode[] }[] = [{ hash: rootPagesHash, into: top }];
  let deeper = false;
  for (let depth = 0; level.length > 0; depth++) {
    if (depth >= MAX_PAGE_DEPTH) deeper = true;
    const objects = await getObjects<StoredPages>(
      db,
      level.map((l) => l.hash),
    );
    const next: { hash: string; into: PageNode[] }[] = [];
    for (const { hash, into } of level) {
      const stored = objects.get(hash);
      if (!stored) throw new Error(`Pages object ${hash} is missing`);
      for (const { children, ...meta } of stored.entries) {
        const node: PageNode = { ...meta, children: [] };
        into.push(node);
        if (children) next.push({ hash: children, into: node.children });
      }
    }
    level = next;
  }
  if (deeper) flattenBelowMaxDepth(top);
  return top;
}

/** Stores a JSON document (a page or reusable-content body); returns its address. */
export async function saveDocument(db: Executor, document: unknown): Promise<string> {
  const object = prepareObject("document", document);
  await putObjects(db, [object]);
  return object.hash;
}

/**
 * Stores the documents of an import (`ImportedContent.documents`: canonical JSON by object hash, as
 * the worker threads prepared them), a few megabytes per statement.
 */
export async function saveDocumentsJson(db: Executor, documents: ReadonlyMap<string, string>): Promise<void> {
  let chunk: PreparedObject[] = [];
  let bytes = 0;
  for (const [hash, json] of documents) {
    chunk.push({ hash, kind: "document", json });
    bytes += json.length;
    if (bytes >= 4 * 1024 * 1024 || chunk.length >= 200) {
      await putObjects(db, chunk);
      chunk = [];
      bytes = 0;
    }
  }
  if (chunk.length > 0) await putObjects(db, chunk);
}

/** The stored JSON of documents (unparsed), by hash; missing ones are left out. */
export function loadDocumentsJson(db: Executor, hashes: Iterable<string>): Promise<Map<string, string>> {
  return getObjectsJson(db, hashes);
}

/** The stored JSON of a document (unparsed). */
export function loadDocumentJson(db: Executor, hash: string): Promise<string | undefined> {
  return getObjectJson(db, hash);
}

export function documentHashOf(document: unknown): string {
  return prepareObject("document", document).hash;
}

export async function loadDocument<T = unknown>(db: Executor, hash: string): Promise<T | undefined> {
  return getObject<T>(db, hash);
}

export async function loadDocuments<T = unknown>(db: Executor, hashes: Iterable<string>): Promise<Map<string, T>> {
  return getObjects<T>(db, hashes);
}
