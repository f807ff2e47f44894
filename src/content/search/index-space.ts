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

/** Documents whose text is extracted per worker task (and at most this many characters of JSON). */
const TEXT_BATCH_DOCUMENTS = 100;
const TEXT_BATCH_CHARS = 8 * 1024 * 1024;

/** The sections of text of each document, extracted in a worker thread a batch at a time. */
async function plainTextsOf(db: Executor, hashes: string[]): Promise<Map<string, PlainTextSection[]>> {
  const texts = new Map<string, PlainTextSection[]>();
  const unique = [...new Set(hashes)];
  for (let start = 0; start < unique.length; start += TEXT_BATCH_DOCUMENTS) {
    const json = await getObjectsJson(db, unique.slice(start, start + TEXT_BATCH_DOCUMENTS));
    let batch: [string, string][] = [];
    let chars = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const results = await runInWorker("plainTexts", { documents: batch.map(([, text]) => text) });
      batch.forEach(([hash], i) => {
        texts.set(hash, results[i] ?? []);
      });
      batch = [];
      chars = 0;
    };
    for (const entry of json) {
      if (chars + entry[1].length > TEXT_BATCH_CHARS) await flush();
      batch.push(entry);
      chars += entry[1].length;
    }
    await flush();
  }
  return texts;
}

export async function buildSearchSections(db: Executor, treeHash: string | null): Promise<SearchSectionInput[]> {
  const content = await loadContent(db, treeHash);
  const locations = [...indexPages(content.pages).values()].filter((l) => l.page.kind === "document" && !l.page.noIndex);
  const texts = await plainTextsOf(
    db,
    locations.flatMap((l) => (l.page.documentHash ? [l.page.documentHash] : [])),
  );
  const sections: SearchSectionInput[] = [];
  for (const location of locations) {
    const { page } = location;
    const parts = (page.documentHash ? texts.get(page.documentHash) : undefined) ?? [];
    const base = {
      pageId: page.id,
      path: location.path,
      ancestors: location.ancestors.map((a) => ({ title: a.title })),
      pageTitle: page.title,
    };
    if (parts.length === 0) {
      sections.push({ ...base, sectionKey: "", position: 0, anchor: "", sectionTitle: "", body: page.description ?? "" });
      continue;
    }
    parts.forEach((part, position) => {
      sections.push({
        ...base,
        sectionKey: part.heading?.key ?? "",
        position,
        anchor: part.heading ? headingAnchor(part.heading.text) : "",
        sectionTitle: part.heading?.text ?? "",
        body: position === 0 && page.description ? `${page.description}\n${part.text}` : part.text,
      });
    });
  }
  return sections;
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
  const sections = await buildSearchSections(db, revision.treeHash);
  await index.replaceSpace(db, spaceId, sections);
  await db
    .insertInto("searchIndexState")
    .values({ spaceId, revisionId: space.revisionId, indexedAt: nowIso() })
    .onConflict((oc) => oc.column("spaceId").doUpdateSet({ revisionId: space.revisionId, indexedAt: nowIso() }))
    .execute();
  return "indexed";
}
