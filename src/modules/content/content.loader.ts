import { anchoredDocumentJson, keptAnchoredDocumentJson } from "../../content/document/api-json.js";
import type { PageLocation, RevisionContent } from "../../content/revision/model.js";
import { getSpaceRevision, spaceRevisionRowsNow } from "../../content/revision/revisions.queries.js";
import { indexOfContent, keptContent, loadContent, loadDocument, loadDocumentJson } from "../../content/revision/storage.js";
import type { Executor } from "../../db/database.js";
import type { RevisionRow, SpaceRow } from "../../db/schema.js";
import { missing } from "../../lib/errors.js";

/** A revision of a space with its content tree loaded (page bodies are loaded on demand). */
export interface RevisionView {
  space: SpaceRow;
  revision: RevisionRow;
  content: RevisionContent;
  /** Pages by id with their paths, built on first use. */
  locations(): Map<string, PageLocation>;
}

export async function loadRevisionView(db: Executor, space: SpaceRow, revisionId: string): Promise<RevisionView> {
  // Every content read comes here: the kept revision row and tree answer without a promise where they can.
  const [revision] = spaceRevisionRowsNow(db, space.id, revisionId) ?? [await getSpaceRevision(db, space.id, revisionId)];
  if (!revision) throw missing(`No revision with id "${revisionId}" in this space.`);
  const content = keptContent(revision.treeHash) ?? (await loadContent(db, revision.treeHash));
  let index: Map<string, PageLocation> | undefined;
  return {
    space,
    revision,
    content,
    locations: () => {
      index ??= indexOfContent(revision.treeHash, content);
      return index;
    },
  };
}

export function requirePage(view: RevisionView, pageId: string): PageLocation {
  const location = view.locations().get(pageId);
  if (!location) throw missing(`No page with id "${pageId}" in this revision.`);
  return location;
}

export function findPageByPath(view: RevisionView, path: string): PageLocation | undefined {
  const wanted = path.replace(/^\/+|\/+$/g, "");
  for (const location of view.locations().values()) {
    if (location.path === wanted) return location;
  }
  return undefined;
}

export const EMPTY_DOCUMENT = Object.freeze({ object: "document" as const, data: {}, nodes: [] });

/** A page's JSON document; an empty page (no body yet) reads as an empty document. */
export async function pageDocument(db: Executor, location: PageLocation): Promise<unknown> {
  const hash = location.page.documentHash;
  if (!hash) return EMPTY_DOCUMENT;
  const document = await loadDocument(db, hash);
  if (!document) throw new Error(`Document ${hash} of page ${location.page.id} is missing`);
  return document;
}

/**
 * A page's stored document as JSON text, unparsed: a large one is handed to a worker thread as it
 * is (rendering it for the web app), never parsed on the request thread.
 */
export async function pageDocumentJson(db: Executor, location: PageLocation): Promise<string> {
  const hash = location.page.documentHash;
  if (!hash) return JSON.stringify(EMPTY_DOCUMENT);
  const json = await loadDocumentJson(db, hash);
  if (json === undefined) throw new Error(`Document ${hash} of page ${location.page.id} is missing`);
  return json;
}

/**
 * A page's document as the API's document reads send it (headings anchored), as JSON text ready to
 * send without parsing it; `undefined` when it must go through the response serializer
 * (content/document/api-json.ts).
 */
export async function pageDocumentApiJson(db: Executor, location: PageLocation): Promise<string | undefined> {
  const hash = location.page.documentHash;
  if (!hash) return JSON.stringify(EMPTY_DOCUMENT);
  return keptAnchoredDocumentJson(hash) ?? anchoredDocumentJson(hash, await pageDocumentJson(db, location));
}

/** pageDocumentApiJson's text when it is kept in memory (no promise); undefined when it must be loaded. */
export function keptPageDocumentApiJson(location: PageLocation): string | undefined {
  const hash = location.page.documentHash;
  return hash ? keptAnchoredDocumentJson(hash) : undefined;
}

/** True when the document is the body of a page or reusable content of this revision. */
export function revisionReferencesDocument(content: RevisionContent, hash: string): boolean {
  if (content.reusableContents.some((r) => r.documentHash === hash)) return true;
  const stack = [...content.pages];
  while (stack.length) {
    const page = stack.pop()!;
    if (page.documentHash === hash) return true;
    stack.push(...page.children);
  }
  return false;
}
