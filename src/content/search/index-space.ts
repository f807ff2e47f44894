/**
 * (Re)builds a space's search index from its primary revision: rows per section of each document
 * page, split at headings (and long sections in pieces), with who may find each (SearchAudience:
 * the text of conditional blocks is found only by members, and by the readers of a published site
 * whose claims show it). Runs as a job after every change of primary content.
 */
import type { DialectName, Executor } from "../../db/database.js";
import { nowIso } from "../../lib/time.js";
import { AnchorAllocator } from "../document/anchor.js";
import type { SearchTextSection } from "../document/plain-text.js";
import { indexPages, type PageNode } from "../revision/model.js";
import { loadContent } from "../revision/storage.js";
import { runInWorker } from "../run-in-worker.js";
import { getObjectsJson } from "../store/objects.queries.js";
import { fullTextIndex } from "./engine.js";
import type { SearchAudience, SearchSectionInput } from "./fulltext.js";
import { countWords, replaceVocabulary } from "./typos.js";

/**
 * Documents per batch, and their JSON in characters at most (a larger document goes alone). A
 * batch is loaded, its text extracted in a worker thread and its sections written before the next
 * one is loaded: indexing holds one batch at a time, not the text of the whole space (an 800-page
 * space was +90 MB of resident memory when every section was built first).
 */
const TEXT_BATCH_DOCUMENTS = 25;
const TEXT_BATCH_CHARS = 2 * 1024 * 1024;

/**
 * Bounds on what one page puts in the index. Ranking, matching and snippets cost more as a row's
 * text grows (a 1.6 MB section held SQLite's thread for minutes per search), so a long section is
 * indexed as rows of at most `rowBodyChars`, each repeating the last `rowOverlapChars` of the one
 * before so that words next to each other are found together at a cut. Past `pageChars` a page's
 * text is not indexed (its title and headings still are).
 */
export const SEARCH_ROW_LIMITS = {
  rowBodyChars: 16 * 1024,
  rowOverlapChars: 512,
  pageChars: 4 * 1024 * 1024,
};

type PageLocation = ReturnType<typeof indexPages> extends Map<string, infer L> ? L : never;

/**
 * A text cut into pieces of at most `max` characters, at a line break or a space when there is one
 * in the second half of the piece; each piece after the first starts `overlap` characters before
 * the end of the one before (at a space).
 */
export function cutText(text: string, max: number, overlap: number): string[] {
  if (text.length <= max) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + max, text.length);
    if (end < text.length) {
      // Looked for in the second half only: a search back from `end` through a text without a
      // line break would read all of it again for every piece.
      const half = start + Math.floor(max / 2);
      const window = text.slice(half, end);
      const line = window.lastIndexOf("\n");
      const space = window.lastIndexOf(" ");
      const cut = line > 0 ? line : space > 0 ? space : -1;
      if (cut > 0) end = half + cut;
    }
    pieces.push(text.slice(start, end).trim());
    if (end >= text.length) break;
    const next = Math.max(end - overlap, start + 1);
    const space = text.slice(next, end).indexOf(" ");
    start = space === -1 ? next : next + space + 1;
  }
  return pieces.filter((p) => p !== "");
}

/** The index rows of one page, given the text sections of its document (see SearchAudience). */
export function pageRows(location: PageLocation, parts: readonly SearchTextSection[]): SearchSectionInput[] {
  const { page } = location;
  const base = {
    pageId: page.id,
    path: location.path,
    ancestors: location.ancestors.map((a) => ({ title: a.title })),
    pageTitle: page.title,
  };
  const { rowBodyChars, rowOverlapChars, pageChars } = SEARCH_ROW_LIMITS;
  const description = page.description ?? "";
  if (parts.length === 0) {
    return [
      {
        ...base,
        sectionKey: "",
        position: 0,
        anchor: "",
        sectionTitle: "",
        body: description.slice(0, rowBodyChars),
        audience: "everyone",
      },
    ];
  }
  const rows: SearchSectionInput[] = [];
  let budget = pageChars;
  const anchors = new AnchorAllocator();
  for (const [index, part] of parts.entries()) {
    const section = {
      ...base,
      sectionKey: part.heading?.key ?? "",
      anchor: part.heading ? anchors.next(part.heading.id, part.heading.text) : "",
      sectionTitle: part.heading?.text ?? "",
    };
    // The description shows above the first section, to whoever sees the page.
    const body = (text: string) => (index === 0 && description ? `${description}\n${text}` : text);
    const add = (text: string, audience: SearchAudience, conditions?: string[]) => {
      const kept = text.slice(0, Math.max(0, budget));
      budget -= kept.length;
      const pieces = kept === "" ? [""] : cutText(kept, rowBodyChars, rowOverlapChars);
      for (const piece of pieces) {
        rows.push({ ...section, position: rows.length, body: piece, audience, ...(conditions ? { conditions } : {}) });
      }
    };
    if (!part.readers) {
      add(body(part.text), "everyone");
      continue;
    }
    add(body(part.text), "members");
    const [first] = part.readers;
    // Readers who see none of the section's conditional blocks still find its heading.
    if (!first || first.conditions.length > 0) add(body(""), "readers", []);
    for (const reader of part.readers) add(body(reader.text), "readers", reader.conditions);
  }
  return rows;
}

/** Pages every reader of a published site sees: neither they nor an ancestor has a condition or is hidden. */
function pagesForEveryone(pages: readonly PageNode[], into = new Set<string>()): Set<string> {
  for (const page of pages) {
    if (page.condition || page.hidden) continue;
    into.add(page.id);
    pagesForEveryone(page.children, into);
  }
  return into;
}

/**
 * Counts the words of the rows every reader sees into `counts` (the vocabulary typos are corrected
 * from, typos.ts): rows for everyone, and readers' rows under no condition, of pages for everyone.
 */
export function countReadersWords(rows: readonly SearchSectionInput[], forEveryone: ReadonlySet<string>, counts: Map<string, number>) {
  const titled = new Set<string>();
  for (const row of rows) {
    if (!forEveryone.has(row.pageId)) continue;
    if (row.audience === "members" || (row.audience === "readers" && (row.conditions?.length ?? 0) > 0)) continue;
    // A page's title repeats on each of its rows: counted once.
    if (!titled.has(row.pageId)) countWords(row.pageTitle, counts);
    titled.add(row.pageId);
    countWords(row.sectionTitle, counts);
    countWords(row.body, counts);
  }
}

/** The rows of the indexed pages of a revision, a batch of pages at a time, in page order. */
async function* searchSectionBatches(
  db: Executor,
  treeHash: string | null,
  words: Map<string, number>,
): AsyncGenerator<SearchSectionInput[]> {
  const content = await loadContent(db, treeHash);
  const forEveryone = pagesForEveryone(content.pages);
  const locations = [...indexPages(content.pages).values()].filter((l) => l.page.kind === "document" && !l.page.noIndex);
  for (let start = 0; start < locations.length; start += TEXT_BATCH_DOCUMENTS) {
    const batch = locations.slice(start, start + TEXT_BATCH_DOCUMENTS);
    const json = await getObjectsJson(
      db,
      batch.flatMap((l) => (l.page.documentHash ? [l.page.documentHash] : [])),
    );
    const texts = new Map<PageLocation, SearchTextSection[]>();
    // Within the batch, the worker is given at most TEXT_BATCH_CHARS of JSON per task.
    let pending: [PageLocation, string][] = [];
    let chars = 0;
    const flush = async () => {
      if (pending.length === 0) return;
      const results = await runInWorker("searchTexts", {
        documents: pending.map(([location, text]) => ({
          json: text,
          context: { space: { vars: content.variables }, page: { vars: location.page.variables ?? {} } },
        })),
      });
      pending.forEach(([location], i) => {
        texts.set(location, results[i] ?? []);
      });
      pending = [];
      chars = 0;
    };
    for (const location of batch) {
      const text = location.page.documentHash ? json.get(location.page.documentHash) : undefined;
      if (text === undefined) continue;
      if (chars + text.length > TEXT_BATCH_CHARS) await flush();
      pending.push([location, text]);
      chars += text.length;
    }
    await flush();
    json.clear();
    const rows = batch.flatMap((location) => pageRows(location, texts.get(location) ?? []));
    countReadersWords(rows, forEveryone, words);
    yield rows;
  }
}

/** Replaces the space's index with its current primary revision, unless it is already indexed. */
export async function indexSpace(db: Executor, dialect: DialectName, spaceId: string): Promise<"indexed" | "current" | "gone"> {
  const space = await db.selectFrom("spaces").select(["revisionId", "deletedAt"]).where("id", "=", spaceId).executeTakeFirst();
  const index = fullTextIndex(dialect);
  if (!space || space.deletedAt) {
    await index.removeSpace(db, spaceId);
    await db.deleteFrom("searchWords").where("spaceId", "=", spaceId).execute();
    await db.deleteFrom("searchIndexState").where("spaceId", "=", spaceId).execute();
    return "gone";
  }
  const state = await db.selectFrom("searchIndexState").select("revisionId").where("spaceId", "=", spaceId).executeTakeFirst();
  if (state?.revisionId === space.revisionId) return "current";
  const revision = await db.selectFrom("revisions").select("treeHash").where("id", "=", space.revisionId).executeTakeFirstOrThrow();
  await index.removeSpace(db, spaceId);
  const words = new Map<string, number>();
  for await (const sections of searchSectionBatches(db, revision.treeHash, words)) await index.addSections(db, spaceId, sections);
  await replaceVocabulary(db, spaceId, words);
  await db
    .insertInto("searchIndexState")
    .values({ spaceId, revisionId: space.revisionId, indexedAt: nowIso() })
    .onConflict((oc) => oc.column("spaceId").doUpdateSet({ revisionId: space.revisionId, indexedAt: nowIso() }))
    .execute();
  return "indexed";
}
