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

/** A matching section, as ranked: enough to group and page results (details come later). */
export interface SearchHit {
  /** Row of the section in the index. */
  rowId: number;
  spaceId: string;
  pageId: string;
  /** Higher is better. */
  score: number;
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
}

export interface FullTextIndex {
  /** Adds sections to a space's index (call inside a transaction, after removeSpace to replace them). */
  addSections(db: Executor, spaceId: string, sections: readonly SearchSectionInput[]): Promise<void>;
  removeSpace(db: Executor, spaceId: string): Promise<void>;
  /** Best-first matching sections in the given spaces, at most `limit` (ids only: see below). */
  search(db: Executor, spaceIds: string[], terms: string[], limit: number): Promise<SearchHit[]>;
  /**
   * Plain-text excerpts around the matches, by row. Computing one is costly, so they are asked for
   * only for the sections of the results actually returned.
   */
  snippets(db: Executor, rowIds: number[], terms: string[]): Promise<Map<number, string>>;
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

/**
 * Words of a user's query, lower-cased. Query syntax characters are dropped, so nothing a user
 * types can be interpreted as FTS5 or tsquery operators.
 */
export function searchTerms(query: string): string[] {
  const words =
    query
      .toLowerCase()
      .normalize("NFKC")
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.slice(0, 16);
}

/** The details of sections by row (the same table on both engines). */
export async function sectionDetails(db: Executor, rowIds: number[]): Promise<Map<number, SectionDetails>> {
  if (rowIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("searchSections")
    .select(["id", "sectionKey", "position", "path", "anchor", "ancestors", "pageTitle", "sectionTitle"])
    .where("id", "in", rowIds)
    .execute();
  return new Map(rows.map(({ id, ancestors, ...row }) => [Number(id), { ...row, ancestors: JSON.parse(ancestors) }]));
}
