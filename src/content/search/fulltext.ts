/**
 * One interface over the two full-text engines (SQLite FTS5, PostgreSQL tsvector); engine.ts picks
 * the one for the database, so the rest of the code never knows which one runs.
 */
import type { Executor } from "../../db/database.js";

/** One indexed section of a page: the text between two headings. */
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
}

export interface SearchHit {
  spaceId: string;
  pageId: string;
  sectionKey: string;
  position: number;
  path: string;
  anchor: string;
  ancestors: { title: string }[];
  pageTitle: string;
  sectionTitle: string;
  /** Plain-text excerpt around the match. */
  snippet: string;
  /** Higher is better. */
  score: number;
}

export interface FullTextIndex {
  /** Replaces every indexed section of a space (call inside a transaction). */
  replaceSpace(db: Executor, spaceId: string, sections: SearchSectionInput[]): Promise<void>;
  removeSpace(db: Executor, spaceId: string): Promise<void>;
  /** Best-first matching sections in the given spaces, at most `limit`. */
  search(db: Executor, spaceIds: string[], terms: string[], limit: number): Promise<SearchHit[]>;
}

/**
 * Words of a user's query, lower-cased. Query syntax characters are dropped, so nothing a user
 * types can be interpreted as FTS5 or tsquery operators.
 */
export function searchTerms(query: string): string[] {
  const words = query.toLowerCase().normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.slice(0, 16);
}

/** A result row as both engines select it (ancestors still JSON text). */
export interface SearchRow extends Omit<SearchHit, "ancestors" | "score"> {
  ancestors: string;
}

export function toSearchHit(row: SearchRow, score: number): SearchHit {
  return {
    spaceId: row.spaceId,
    pageId: row.pageId,
    sectionKey: row.sectionKey,
    position: row.position,
    path: row.path,
    anchor: row.anchor,
    ancestors: JSON.parse(row.ancestors),
    pageTitle: row.pageTitle,
    sectionTitle: row.sectionTitle,
    snippet: row.snippet,
    score,
  };
}
