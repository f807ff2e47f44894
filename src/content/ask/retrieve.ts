/**
 * Ask's retrieval: the sections of the searched spaces that answer a question best, as the caller
 * may see them. Hybrid: each content word of the question (and, for a word the index does not
 * hold, its closest vocabulary words: typo tolerance) is looked up in the full-text index
 * (search/fulltext.ts), the rows found by the most words are read, and those are scored here by
 * the weighted share of the question they hold (analysis.ts), the same on both databases.
 *
 * Visibility is the caller's: `accept` is the filter of the caller's search (a published site's
 * reader: search's own rule, apps/site/site-pages.ts), applied to every row before it is read, so
 * no text the caller may not see is scored, quoted or cited.
 */
import { createHash } from "node:crypto";
import type { Executor } from "../../db/database.js";
import { ResultCache } from "../../lib/result-cache.js";
import { runInWorker } from "../run-in-worker.js";
import { audiencesOf, type FullTextIndex, type SearchFor, type SearchHit } from "../search/fulltext.js";
import { indexedRevisions } from "../search/search.service.js";
import {
  ASK_LIMITS,
  type AskCandidate,
  type AskTerm,
  askTerms,
  buildVocabulary,
  questionWords,
  type ScoredCandidate,
  scoreCandidates,
  unpackAskVocabulary,
  type Vocabulary,
  vocabularyOf,
} from "./analysis.js";

/** A section retrieved for a question: where it is, and the passage of it that answers. */
export interface AskSource {
  spaceId: string;
  pageId: string;
  /** Key of the section's heading block ("" for the page's text before its first heading). */
  sectionKey: string;
  /** The heading's anchor in the page ("" for the page top). */
  anchor: string;
  pageTitle: string;
  sectionTitle: string;
  passage: string;
  /** The section's text (its first SOURCE_TEXT_CHARS), what a language model is grounded with. */
  text: string;
  /** Weighted share of the question the section holds (0 to 1). */
  coverage: number;
  score: number;
}

export interface Retrieval {
  /** The question's content words as looked up, with the corrections of misspelt ones. */
  terms: { word: string; corrections: string[] }[];
  /** Sections that answer, best first (empty: the docs do not answer). */
  sources: AskSource[];
}

/**
 * Below this coverage a section does not answer the question. Chosen with the question set of
 * bench/ask (docs/ask.md): at 0.6, 31 of 38 answerable questions found their page; at 0.5, 37 of
 * 38, and the 6 unanswerable ones still found no citation.
 */
export const ANSWER_THRESHOLD = 0.5;
/** Sections cited in an answer at most, and per page. */
const MAX_SOURCES = 4;
const MAX_SOURCES_PER_PAGE = 2;
/** Characters of a section given to a language model. */
const SOURCE_TEXT_CHARS = 4000;
/** Rows the index returns per looked-up word, and rows read and scored per question. */
const ROWS_PER_TERM = 200;
const ROWS_SCORED = 40;
/** Below this many characters of candidate text, scoring runs inline (~1 ms per 60 KB). */
const INLINE_SCORE_CHARS = 64 * 1024;
/** Below this many characters of index text, a vocabulary is built inline. */
const INLINE_VOCABULARY_CHARS = 256 * 1024;
const VOCABULARY_ROWS_PER_READ = 500;

const vocabularies = new ResultCache<Vocabulary>(64 * 1024 * 1024, (v) => 64 + (v.words.words.length + v.stems.words.length) * 80);

/** The vocabulary of the rows `who` may match in the spaces, kept per indexed revision. */
async function vocabularyFor(db: Executor, spaceIds: readonly string[], who: SearchFor): Promise<Vocabulary> {
  const revisions = await indexedRevisions(db, spaceIds);
  const build = async () => {
    const texts: string[] = [];
    let chars = 0;
    let after = 0;
    // Read in slices by id: one statement over a large organization's index would hold SQLite's thread.
    while (chars < ASK_LIMITS.vocabularyChars) {
      const rows = await db
        .selectFrom("searchSections")
        .select(["id", "pageTitle", "sectionTitle", "body"])
        .where("spaceId", "in", [...spaceIds])
        .where("audience", "in", audiencesOf(who))
        .where("id", ">", after)
        .orderBy("id")
        .limit(VOCABULARY_ROWS_PER_READ)
        .execute();
      if (rows.length === 0) break;
      for (const row of rows) {
        const text = `${row.pageTitle} ${row.sectionTitle} ${row.body}`;
        texts.push(text);
        chars += text.length;
      }
      after = Number((rows.at(-1) as { id: number }).id);
      // The event loop runs between slices: up to 32 MB are read, and other requests are waiting.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // Counting, stemming and indexing the words' letter pairs (200,000 words) is a worker's work past a size.
    if (chars < INLINE_VOCABULARY_CHARS) return vocabularyOf(buildVocabulary(texts));
    return unpackAskVocabulary(await runInWorker("askVocabulary", { texts }));
  };
  if (spaceIds.length === 0) return vocabularyOf({ rows: 0, words: [] });
  if (revisions === undefined) return build();
  const key = createHash("sha256").update(`${who}|${revisions}`).digest("base64url");
  return vocabularies.get(key, build);
}

async function score(terms: AskTerm[], candidates: AskCandidate[]): Promise<ScoredCandidate[]> {
  const chars = candidates.reduce((n, c) => n + c.body.length, 0);
  return chars < INLINE_SCORE_CHARS ? scoreCandidates(terms, candidates) : runInWorker("askScore", { terms, candidates });
}

/**
 * The sections of `spaceIds` that answer `question` for `who`, filtered by `accept`, best first;
 * none when no section holds ANSWER_THRESHOLD of the question. Deterministic for a given index.
 */
export async function retrieve(
  index: FullTextIndex,
  db: Executor,
  spaceIds: readonly string[],
  question: string,
  who: SearchFor,
  accept: (hit: SearchHit) => boolean = () => true,
): Promise<Retrieval> {
  const words = questionWords(question);
  if (words.length === 0 || spaceIds.length === 0) return { terms: words.map((word) => ({ word, corrections: [] })), sources: [] };
  const terms = askTerms(words, await vocabularyFor(db, spaceIds, who));
  const found = new Map<number, { hit: SearchHit; terms: Set<number>; rank: number }>();
  for (const [i, term] of terms.entries()) {
    for (const word of term.corrections.length > 0 ? term.corrections : [term.word]) {
      const hits = await index.search(db, [...spaceIds], { include: [{ word, prefix: false }], exclude: [] }, ROWS_PER_TERM, who);
      hits.forEach((hit, at) => {
        if (!accept(hit)) return;
        const entry = found.get(hit.rowId) ?? { hit, terms: new Set<number>(), rank: 0 };
        if (!entry.terms.has(i)) {
          entry.terms.add(i);
          entry.rank += term.weight * (1 - at / ROWS_PER_TERM);
        }
        found.set(hit.rowId, entry);
      });
    }
  }
  // The rows found by the most (and most telling) words are read and scored.
  const shortlisted = [...found.values()]
    .map((entry) => ({ ...entry, weight: [...entry.terms].reduce((sum, i) => sum + (terms[i] as AskTerm).weight, 0) }))
    .sort((a, b) => b.weight - a.weight || b.rank - a.rank || a.hit.rowId - b.hit.rowId)
    .slice(0, ROWS_SCORED);
  if (shortlisted.length === 0) return { terms: terms.map(({ word, corrections }) => ({ word, corrections })), sources: [] };
  const rows = await db
    .selectFrom("searchSections")
    .select(["id", "spaceId", "pageId", "sectionKey", "position", "anchor", "pageTitle", "sectionTitle", "body"])
    .where(
      "id",
      "in",
      shortlisted.map((s) => s.hit.rowId),
    )
    .execute();
  const byKey = new Map(rows.map((row) => [String(row.id), row]));
  const scored = await score(
    terms,
    rows.map((row) => ({ key: String(row.id), pageTitle: row.pageTitle, sectionTitle: row.sectionTitle, body: row.body })),
  );
  const ranked = scored
    .map((s) => ({ ...s, row: byKey.get(s.key) as (typeof rows)[number] }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        (a.row.spaceId < b.row.spaceId ? -1 : a.row.spaceId > b.row.spaceId ? 1 : 0) ||
        (a.row.pageId < b.row.pageId ? -1 : a.row.pageId > b.row.pageId ? 1 : 0) ||
        a.row.position - b.row.position,
    );
  const sources: AskSource[] = [];
  const sections = new Set<string>();
  const perPage = new Map<string, number>();
  for (const { row, coverage, score: value, passage } of ranked) {
    if (sources.length >= MAX_SOURCES) break;
    if (coverage < ANSWER_THRESHOLD) continue;
    const page = `${row.spaceId}/${row.pageId}`;
    const section = `${page}/${row.sectionKey}`;
    // A section indexed as several rows (pieces, members' and readers' rows) is cited once, by its best.
    if (sections.has(section) || (perPage.get(page) ?? 0) >= MAX_SOURCES_PER_PAGE) continue;
    sections.add(section);
    perPage.set(page, (perPage.get(page) ?? 0) + 1);
    sources.push({
      spaceId: row.spaceId,
      pageId: row.pageId,
      sectionKey: row.sectionKey,
      anchor: row.anchor,
      pageTitle: row.pageTitle,
      sectionTitle: row.sectionTitle,
      passage,
      text: row.body.length > SOURCE_TEXT_CHARS ? `${row.body.slice(0, SOURCE_TEXT_CHARS)}…` : row.body,
      coverage,
      score: value,
    });
  }
  return { terms: terms.map(({ word, corrections }) => ({ word, corrections })), sources };
}
