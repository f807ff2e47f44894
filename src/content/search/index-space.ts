/**
 * (Re)builds a space's search index from its primary revision: one row per section of each
 * document page, split at headings. Runs as a job after every change of primary content.
 */
import type { DialectName, Executor } from "../../db/database.js";
import { nowIso } from "../../lib/time.js";
import { runInWorker } from "../../workers/pool.js";
import type { PlainTextSection } from "../document/plain-text.js";
import { indexPages } from "../revision/model.js";
import { loadContent } from "../revision/storage.js";
import { getObjectsJson } from "../store/objects.queries.js";
import { fullTextIndex } from "./engine.js";
import type { SearchSectionInput } from "./fulltext.js";

/** Anchor of a heading as GitBook renders it: lower-case words joined by "-". */
export function headingAnchor(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .trim()
    .replace(/\s+/g, "-");
}

/**
 * Documents per batch, and their JSON in characters at most (a larger document goes alone). A
 * batch is loaded, its text extracted in a worker thread and its sections written before the next
 * one is loaded: indexing holds one batch at a time, not the text of the whole space (an 800-page
 * space was +90 MB of resident memory when every section was built first).
 */
const TEXT_BATCH_DOCUMENTS = 25;
const TEXT_BATCH_CHARS = 2 * 1024 * 1024;

type PageLocation = ReturnType<typeof indexPages> extends Map<string, infer L> ? L : never;

/** The sections of one page, given the text sections of its document. */
function pageSections(location: PageLocation, parts: readonly PlainTextSection[]): SearchSectionInput[] {
  const { page } = location;
  const base = {
    pageId: page.id,
    path: location.path,
    ancestors: location.ancestors.map((a) => ({ title: a.title })),
    pageTitle: page.title,
  };
  if (parts.length === 0) return [{ ...base, sectionKey: "", position: 0, anchor: "", sectionTitle: "", body: page.description ?? "" }];
  return parts.map((part, position) => ({
    ...base,
    sectionKey: part.heading?.key ?? "",
    position,
    anchor: part.heading ? headingAnchor(part.heading.text) : "",
    sectionTitle: part.heading?.text ?? "",
    body: position === 0 && page.description ? `${page.description}\n${part.text}` : part.text,
  }));
}

/** The sections of the indexed pages of a revision, a batch of pages at a time, in page order. */
async function* searchSectionBatches(db: Executor, treeHash: string | null): AsyncGenerator<SearchSectionInput[]> {
  const content = await loadContent(db, treeHash);
  const locations = [...indexPages(content.pages).values()].filter((l) => l.page.kind === "document" && !l.page.noIndex);
  for (let start = 0; start < locations.length; start += TEXT_BATCH_DOCUMENTS) {
    const batch = locations.slice(start, start + TEXT_BATCH_DOCUMENTS);
    const json = await getObjectsJson(
      db,
      batch.flatMap((l) => (l.page.documentHash ? [l.page.documentHash] : [])),
    );
    const texts = new Map<string, PlainTextSection[]>();
    // Within the batch, the worker is given at most TEXT_BATCH_CHARS of JSON per task.
    let pending: [string, string][] = [];
    let chars = 0;
    const flush = async () => {
      if (pending.length === 0) return;
      const results = await runInWorker("plainTexts", { documents: pending.map(([, text]) => text) });
      pending.forEach(([hash], i) => {
        texts.set(hash, results[i] ?? []);
      });
      pending = [];
      chars = 0;
    };
    for (const entry of json) {
      if (chars + entry[1].length > TEXT_BATCH_CHARS) await flush();
      pending.push(entry);
      chars += entry[1].length;
    }
    await flush();
    json.clear();
    yield batch.flatMap((location) => pageSections(location, (location.page.documentHash && texts.get(location.page.documentHash)) || []));
  }
}

/** Replaces the space's index with its current primary revision, unless it is already indexed. */
export async function indexSpace(db: Executor, dialect: DialectName, spaceId: string): Promise<"indexed" | "current" | "gone"> {
  const space = await db.selectFrom("spaces").select(["revisionId", "deletedAt"]).where("id", "=", spaceId).executeTakeFirst();
  const index = fullTextIndex(dialect);
  if (!space || space.deletedAt) {
    await index.removeSpace(db, spaceId);
    await db.deleteFrom("searchIndexState").where("spaceId", "=", spaceId).execute();
    return "gone";
  }
  const state = await db.selectFrom("searchIndexState").select("revisionId").where("spaceId", "=", spaceId).executeTakeFirst();
  if (state?.revisionId === space.revisionId) return "current";
  const revision = await db.selectFrom("revisions").select("treeHash").where("id", "=", space.revisionId).executeTakeFirstOrThrow();
  await index.removeSpace(db, spaceId);
  for await (const sections of searchSectionBatches(db, revision.treeHash)) await index.addSections(db, spaceId, sections);
  await db
    .insertInto("searchIndexState")
    .values({ spaceId, revisionId: space.revisionId, indexedAt: nowIso() })
    .onConflict((oc) => oc.column("spaceId").doUpdateSet({ revisionId: space.revisionId, indexedAt: nowIso() }))
    .execute();
  return "indexed";
}
