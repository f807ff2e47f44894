/**
 * One interface over the two full-text engines (SQLite FTS5, PostgreSQL tsvector); engine.ts picks
 * the one for the database, so the rest of the code never knows which one runs.
 */
import type { Executor } from "../../db/database.js";
import { invalid } from "../../lib/errors.js";

/**
 * Who may find a row. A section without conditional blocks is one row for everyone. A section
 * with conditional blocks is indexed twice: whole, for members (who see every block), and as rows
 * for readers of published sites, each holding only text that shows together under its
 * `conditions` (see index-space.ts).
 */
export type SearchAudience = "everyone" | "members" | "readers";

/** One indexed row of a page: the text between two headings, or a piece of it. */
export interface SearchSectionInput {
  pageId: string;
  /** Key of the heading block that starts the section; "" for text before the first heading. */
  sectionKey: string;
  position: number;
  path: string;
  /** Anchor of the heading within the page ("" for the page top). */
  anchor: string;
  ancestors: { title: string }[];
  pageTitle: string;
  sectionTitle: string;
  body: string;
  audience: SearchAudience;
  /** Readers' rows: conditions that must all hold for the reader (none: the section's unconditional text). */
  conditions?: string[] | undefined;
}

/** A matching row, as ranked: enough to group, filter and page results (details come later). */
export interface SearchHit {
  /** Row of the section in the index. */
  rowId: number;
  spaceId: string;
  pageId: string;
  sectionKey: string;
  /** Higher is better. */
  score: number;
  /** Readers' rows: JSON array of the conditions that must hold for the reader; null otherwise. */
  conditions: string | null;
}

/** What is shown of a section: loaded only for the results returned. */
export interface SectionDetails {
  sectionKey: string;
  position: number;
  path: string;
  anchor: string;
  ancestors: { title: string }[];
  pageTitle: string;
  sectionTitle: string;
  body: string;
}

/** Whose rows a search reads: members' or published sites' readers'. */
export type SearchFor = "members" | "readers";

/** The audiences of the rows a search for `who` may match. */
export function audiencesOf(who: SearchFor): SearchAudience[] {
  return who === "members" ? ["everyone", "members"] : ["everyone", "readers"];
}

export interface FullTextIndex {
  /** Adds sections to a space's index (call inside a transaction, after removeSpace to replace them). */
  addSections(db: Executor, spaceId: string, sections: readonly SearchSectionInput[]): Promise<void>;
  removeSpace(db: Executor, spaceId: string): Promise<void>;
  /** Best-first matching rows in the given spaces that `who` may match, at most `limit`. */
  search(db: Executor, spaceIds: string[], query: SearchQuery, limit: number, who: SearchFor): Promise<SearchHit[]>;
}

/** The stored row of a section (the same table on both engines). */
export function sectionRow(spaceId: string, section: SearchSectionInput) {
  const { conditions, ancestors, ...rest } = section;
  return {
    spaceId,
    ...rest,
    ancestors: JSON.stringify(ancestors),
    conditions: section.audience === "readers" ? JSON.stringify(conditions ?? []) : null,
  };
}

/** Replaces every indexed section of a space with `sections` (call inside a transaction). */
export async function replaceSpace(
  index: FullTextIndex,
  db: Executor,
  spaceId: string,
  sections: readonly SearchSectionInput[],
): Promise<void> {
  await index.removeSpace(db, spaceId);
  await index.addSections(db, spaceId, sections);
}

/** A word of a query: matched whole, or as the start of a word (`prefix`). */
export interface QueryTerm {
  word: string;
  prefix: boolean;
  /** Whole words that match in the term's place too (corrections of a misspelled word, typos.ts). */
  alternatives?: string[] | undefined;
}

/** A query as the engines run it: every `include` term must match, no `exclude` term may. */
export interface SearchQuery {
  include: QueryTerm[];
  exclude: QueryTerm[];
}

/**
 * Bounds on a query's shape. Each term is a lookup in the index and a prefix term one per indexed
 * word it starts (`b*` stood for thousands of words): a query is refused past these, with a 400
 * saying what to change, rather than left to hold the database.
 */
export const QUERY_LIMITS = {
  /**
   * Distinct words in a query, excluded ones included. Page titles of real sites run past 10 words
   * ("AWS Lambda – EFS Mount Injection via UpdateFunctionConfiguration (Data Theft)"), and a
   * reader pastes them whole; 16 lookups are still cheap, the bound is against a pasted paragraph.
   */
  terms: 16,
  /** Letters or digits a prefix (`word*`) needs; a shorter last word is matched whole. */
  prefixChars: 3,
  /** Letters or digits in one word; longer words are never in the index. */
  wordChars: 64,
};

// NFC, not NFKC: the index's tokenizers (FTS5's unicode61, PostgreSQL's parser) keep compatibility
// characters as written ("2ºftp"), so a query folded to "2oftp" would never match them.
const normalize = (text: string) => text.toLowerCase().normalize("NFC");

/**
 * Reads a user's query: words (letters and digits) that must all appear, `-word` for a word that
 * must not, `word*` for any word starting so; the last word is also matched as a prefix (search as
 * you type) when it has QUERY_LIMITS.prefixChars or more. Any other character only separates words,
 * so nothing a user types reaches FTS5 or tsquery as syntax. Throws `invalid` (400) for a query
 * without words, past QUERY_LIMITS, or only of excluded words.
 */
export function parseSearchQuery(query: string): SearchQuery {
  const include: QueryTerm[] = [];
  const exclude: QueryTerm[] = [];
  const seen = new Set<string>();
  const pattern = /(^|[^\p{L}\p{N}])(-?)([\p{L}\p{N}]+)(\*?)/gu;
  const text = normalize(query);
  let count = 0;
  let lastInclude: QueryTerm | undefined;
  let lastExcluded = false;
  for (const match of text.matchAll(pattern)) {
    const [, before, minus, word, star] = match as unknown as [string, string, string, string, string];
    if (word.length > QUERY_LIMITS.wordChars) {
      throw invalid(`"${word.slice(0, 20)}…" is longer than ${QUERY_LIMITS.wordChars} letters; no word of the index is.`);
    }
    const prefix = star === "*";
    if (prefix && word.length < QUERY_LIMITS.prefixChars) {
      throw invalid(
        `"${word}*" is too short a prefix: a word ending in * needs at least ${QUERY_LIMITS.prefixChars} letters or digits before the *.`,
      );
    }
    // A "-" that joins two words ("e-mail") is a separator, not an exclusion.
    const excluded = minus === "-" && (before === "" || /\s/u.test(before));
    const term = { word, prefix };
    const key = `${excluded ? "-" : "+"}${word}${prefix ? "*" : ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // A word repeated counts once: it is one lookup.
    count++;
    if (count > QUERY_LIMITS.terms) {
      throw invalid(`The query has more than ${QUERY_LIMITS.terms} different words; search for at most ${QUERY_LIMITS.terms}.`);
    }
    if (excluded) exclude.push(term);
    else {
      include.push(term);
      lastInclude = term;
    }
    lastExcluded = excluded;
  }
  if (count === 0) throw invalid("The query has no words to search for (letters or digits).");
  if (include.length === 0) {
    throw invalid("The query only excludes words (-word): add at least one word to search for.");
  }
  // Search as you type: the last word typed may be unfinished.
  if (lastInclude && !lastExcluded && lastInclude.word.length >= QUERY_LIMITS.prefixChars) {
    lastInclude.prefix = true;
  }
  return { include, exclude };
}

/**
 * A query of the given words, all required, the last one also as a prefix (for callers that
 * build queries from words of their own, such as the conversations' documentation finder).
 */
export function wordsQuery(words: readonly string[]): SearchQuery {
  const include = words.map((word, i) => ({
    word,
    prefix: i === words.length - 1 && word.length >= QUERY_LIMITS.prefixChars,
  }));
  return { include, exclude: [] };
}

/** The words of a text as the index's query sees them (letters and digits, lower-cased). */
export function searchWords(text: string): string[] {
  return normalize(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A stable text of a query, for cache keys: equal queries give equal keys. */
export function queryKey(query: SearchQuery): string {
  const term = (t: QueryTerm) => `${t.word}${t.prefix ? "*" : ""}${t.alternatives ? `~${t.alternatives.join("~")}` : ""}`;
  return [...query.include.map(term), ...query.exclude.map((t) => `-${term(t)}`)].join(" ");
}

/** The details of sections by row (the same table on both engines). */
export async function sectionDetails(db: Executor, rowIds: number[]): Promise<Map<number, SectionDetails>> {
  if (rowIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("searchSections")
    .select(["id", "sectionKey", "position", "path", "anchor", "ancestors", "pageTitle", "sectionTitle", "body"])
    .where("id", "in", rowIds)
    .execute();
  return new Map(rows.map(({ id, ancestors, ...row }) => [Number(id), { ...row, ancestors: JSON.parse(ancestors) }]));
}

/** A row of a page as read in order (to fill a snippet that matched no text of its own). */
export interface PageRow extends SearchHit {
  position: number;
  body: string;
}

/** The rows of the given pages that `who` may match, in page order (score 0: they are not ranked). */
export async function rowsOfPages(
  db: Executor,
  pages: ReadonlyArray<{ spaceId: string; pageId: string }>,
  who: SearchFor,
): Promise<PageRow[]> {
  if (pages.length === 0) return [];
  const rows = await db
    .selectFrom("searchSections")
    .select(["id", "spaceId", "pageId", "sectionKey", "position", "body", "conditions"])
    .where((eb) => eb.or(pages.map((page) => eb.and([eb("spaceId", "=", page.spaceId), eb("pageId", "=", page.pageId)]))))
    .where("audience", "in", audiencesOf(who))
    .orderBy("spaceId")
    .orderBy("pageId")
    .orderBy("position")
    .execute();
  return rows.map(({ id, ...row }) => ({ ...row, rowId: Number(id), score: 0 }));
}
