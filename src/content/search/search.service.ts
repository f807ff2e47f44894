/**
 * Search results as the API returns them: matching sections grouped by page, pages ranked by
 * their best section. Ranked results change as content changes, so paging uses an offset cursor
 * (unlike the keyset cursors of lists, which are stable under inserts).
 */
import type { Executor } from "../../db/database.js";
import { badRequest } from "../../http/errors.js";
import { type FullTextIndex, type SearchHit, searchTerms } from "./fulltext.js";

/** How many best sections are grouped into page results (deeper pages of results are not served). */
export const MAX_SECTION_HITS = 1000;
const MAX_SECTIONS_PER_PAGE = 5;

export interface PageResult {
  spaceId: string;
  pageId: string;
  title: string;
  path: string;
  ancestors: { title: string }[];
  sections: { id: string; title: string; path: string; body: string }[];
  score: number;
}

export function groupByPage(hits: SearchHit[]): PageResult[] {
  const pages = new Map<string, PageResult>();
  for (const hit of hits) {
    const key = `${hit.spaceId}/${hit.pageId}`;
    let page = pages.get(key);
    if (!page) {
      page = { spaceId: hit.spaceId, pageId: hit.pageId, title: hit.pageTitle, path: hit.path, ancestors: hit.ancestors, sections: [], score: hit.score };
      pages.set(key, page);
    }
    if (page.sections.length < MAX_SECTIONS_PER_PAGE) {
      page.sections.push({
        id: hit.sectionKey || hit.pageId,
        title: hit.sectionTitle || hit.pageTitle,
        path: hit.anchor ? `${hit.path}#${hit.anchor}` : hit.path,
        body: hit.snippet,
      });
    }
  }
  // Hits arrive best first, so map insertion order is already the page ranking.
  return [...pages.values()];
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
  const hits = await index.search(db, spaceIds, searchTerms(query), MAX_SECTION_HITS);
  const pages = groupByPage(hits);
  const results = pages.slice(offset, offset + limit);
  const hasMore = offset + limit < pages.length;
  return { results, count: pages.length, ...(hasMore ? { next: { page: encodeOffset(offset + limit) } } : {}) };
}
