/**
 * Search results as the API returns them: matching sections grouped by page, pages ranked by
 * their best section. Ranked results change as content changes, so paging uses an offset cursor
 * (unlike the keyset cursors of lists, which are stable under inserts).
 */
import type { Executor } from "../../db/database.js";
import { type CursorValue, decodeCursor, encodeCursor } from "../../http/pagination.js";
import { invalid } from "../../lib/errors.js";
import { type FullTextIndex, type SearchHit, searchTerms, sectionDetails } from "./fulltext.js";

/** How many best sections are grouped into page results (deeper pages of results are not served). */
export const MAX_SECTION_HITS = 1000;
const MAX_SECTIONS_PER_PAGE = 5;
/** Results per page when the request gives no `limit`. */
const DEFAULT_SEARCH_LIMIT = 20;

/** A page among the results, ranked by its best section (details not loaded yet). */
export interface RankedPage {
  spaceId: string;
  pageId: string;
  /** Its matching sections, best first (at most five). */
  rowIds: number[];
  score: number;
}

export interface PageResult {
  spaceId: string;
  pageId: string;
  title: string;
  path: string;
  ancestors: { title: string }[];
  sections: { id: string; title: string; path: string; body: string }[];
  score: number;
}

export function rankPages(hits: SearchHit[]): RankedPage[] {
  const pages = new Map<string, RankedPage>();
  for (const hit of hits) {
    const key = `${hit.spaceId}/${hit.pageId}`;
    let page = pages.get(key);
    if (!page) {
      page = { spaceId: hit.spaceId, pageId: hit.pageId, rowIds: [], score: hit.score };
      pages.set(key, page);
    }
    if (page.rowIds.length < MAX_SECTIONS_PER_PAGE) page.rowIds.push(hit.rowId);
  }
  // Hits arrive best first, so map insertion order is already the page ranking.
  return [...pages.values()];
}

/**
 * The results about to be returned, with their sections' titles, paths and snippets: two small
 * queries for the page of results, instead of details for every match.
 */
export async function describePages(index: FullTextIndex, db: Executor, terms: string[], ranked: RankedPage[]): Promise<PageResult[]> {
  const rowIds = ranked.flatMap((r) => r.rowIds);
  const [details, snippets] = await Promise.all([sectionDetails(db, rowIds), index.snippets(db, rowIds, terms)]);
  return ranked.flatMap((page) => {
    const sections = page.rowIds.flatMap((rowId) => {
      const section = details.get(rowId);
      return section ? [{ rowId, ...section }] : [];
    });
    const first = sections[0];
    // Rows replaced by a reindex between the two queries drop out of this page of results.
    if (!first) return [];
    return [
      {
        spaceId: page.spaceId,
        pageId: page.pageId,
        title: first.pageTitle,
        path: first.path,
        ancestors: first.ancestors,
        score: page.score,
        sections: sections.map((s) => ({
          id: s.sectionKey || page.pageId,
          title: s.sectionTitle || s.pageTitle,
          path: s.anchor ? `${s.path}#${s.anchor}` : s.path,
          body: snippets.get(s.rowId) ?? "",
        })),
      },
    ];
  });
}

/** Where a page of ranked results starts; a missing cursor is the first page. */
function decodeOffset(page: string | undefined): number {
  if (!page) return 0;
  let offset: CursorValue | undefined;
  try {
    [offset] = decodeCursor(page, 1);
  } catch {
    // Not even a list cursor: answered below with this search's own message.
  }
  if (typeof offset === "number" && Number.isInteger(offset) && offset >= 0) return offset;
  throw invalid("The `page` parameter is not a cursor returned by this search; pass `next.page` from a previous response.");
}

/** The words of a query; 400 when it has none (only punctuation or syntax). */
function queryTerms(query: string): string[] {
  const terms = searchTerms(query);
  if (terms.length === 0) throw invalid("The query has no words to search for (letters or digits).");
  return terms;
}

/** One page of `count` ranked items, from `offset`, with the cursor of the next page when there is one. */
function pageAt<T>(items: readonly T[], offset: number, limit: number): { slice: T[]; count: number; next?: { page: string } } {
  const end = offset + limit;
  return { slice: items.slice(offset, end), count: items.length, ...(end < items.length ? { next: { page: encodeCursor([end]) } } : {}) };
}

/**
 * Pages matching `query` in the given spaces, best first, one page of results from the offset
 * cursor `page`. 400 for a cursor this search did not return, or a query without words.
 */
export async function searchPages(
  index: FullTextIndex,
  db: Executor,
  spaceIds: string[],
  query: string,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<{ results: PageResult[]; count: number; next?: { page: string } }> {
  const offset = decodeOffset(options.page);
  const terms = queryTerms(query);
  const pages = rankPages(await index.search(db, spaceIds, terms, MAX_SECTION_HITS));
  const { slice, ...rest } = pageAt(pages, offset, options.limit ?? DEFAULT_SEARCH_LIMIT);
  return { results: await describePages(index, db, terms, slice), ...rest };
}

/** A space among organization search results, with its best pages (at most twenty). */
export interface SpaceResult {
  spaceId: string;
  pages: PageResult[];
}

const MAX_PAGES_PER_SPACE = 20;

/**
 * Matches of `query` in the given spaces grouped by space, spaces in the order of their best page;
 * one page of spaces from the offset cursor `page` (`count` counts spaces). Same 400s as
 * `searchPages`.
 */
export async function searchOrganization(
  index: FullTextIndex,
  db: Executor,
  spaceIds: string[],
  query: string,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<{ results: SpaceResult[]; count: number; next?: { page: string } }> {
  const offset = decodeOffset(options.page);
  const terms = queryTerms(query);
  const bySpace = new Map<string, RankedPage[]>();
  for (const ranked of rankPages(await index.search(db, spaceIds, terms, MAX_SECTION_HITS))) {
    const list = bySpace.get(ranked.spaceId) ?? [];
    list.push(ranked);
    bySpace.set(ranked.spaceId, list);
  }
  const { slice, ...rest } = pageAt([...bySpace.entries()], offset, options.limit ?? DEFAULT_SEARCH_LIMIT);
  const described = await describePages(
    index,
    db,
    terms,
    slice.flatMap(([, pages]) => pages.slice(0, MAX_PAGES_PER_SPACE)),
  );
  const pagesOf = new Map<string, PageResult[]>();
  for (const result of described) pagesOf.set(result.spaceId, [...(pagesOf.get(result.spaceId) ?? []), result]);
  return { results: slice.map(([spaceId]) => ({ spaceId, pages: pagesOf.get(spaceId) ?? [] })), ...rest };
}
