/**
 * Search results as the API returns them: matching sections grouped by page, pages ranked by
 * their best section. Ranked results change as content changes, so paging uses an offset cursor
 * (unlike the keyset cursors of lists, which are stable under inserts).
 */
import type { Executor } from "../../db/database.js";
import { badRequest } from "../../http/errors.js";
import { type FullTextIndex, type SearchHit, searchTerms, sectionDetails } from "./fulltext.js";

/** How many best sections are grouped into page results (deeper pages of results are not served). */
export const MAX_SECTION_HITS = 1000;
const MAX_SECTIONS_PER_PAGE = 5;

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

export function encodeOffset(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString("base64url");
}

export function decodeOffset(page: string | undefined): number {
  if (!page) return 0;
  try {
    const { o } = JSON.parse(Buffer.from(page, "base64url").toString("utf8")) as { o: unknown };
    if (typeof o === "number" && Number.isInteger(o) && o >= 0) return o;
  } catch {
    // fall through
  }
  throw badRequest("The `page` parameter is not a cursor returned by this search; pass `next.page` from a previous response.");
}

export async function searchPages(
  index: FullTextIndex,
  db: Executor,
  spaceIds: string[],
  query: string,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<{ results: PageResult[]; count: number; next?: { page: string } }> {
  const offset = decodeOffset(options.page);
  const limit = options.limit ?? 20;
  const terms = searchTerms(query);
  const pages = rankPages(await index.search(db, spaceIds, terms, MAX_SECTION_HITS));
  const results = await describePages(index, db, terms, pages.slice(offset, offset + limit));
  const hasMore = offset + limit < pages.length;
  return { results, count: pages.length, ...(hasMore ? { next: { page: encodeOffset(offset + limit) } } : {}) };
}
