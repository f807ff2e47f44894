/**
 * Search results as the API returns them: matching sections grouped by page, pages ranked by
 * their best section. Ranked results change as content changes, so paging uses an offset cursor
 * (unlike the keyset cursors of lists, which are stable under inserts).
 *
 * A search is bounded: the query's shape (fulltext.ts, QUERY_LIMITS), the rows ranked
 * (MAX_SECTION_HITS), the text of each row (index-space.ts, SEARCH_ROW_LIMITS) and the snippets,
 * computed only for the results returned (snippets.ts). Results are kept per indexed revision of
 * the spaces searched, query and page (searchCaches).
 */
import { createHash } from "node:crypto";
import type { Executor } from "../../db/database.js";
import { invalid } from "../../lib/errors.js";
import { type CursorValue, decodeCursor, encodeCursor } from "../../lib/pagination.js";
import { ResultCache } from "../../lib/result-cache.js";
import {
  type FullTextIndex,
  parseSearchQuery,
  queryKey,
  type SearchFor,
  type SearchHit,
  type SearchQuery,
  sectionDetails,
} from "./fulltext.js";
import { snippetsOf } from "./snippets.js";

/** How many best rows are grouped into page results (deeper pages of results are not served). */
export const MAX_SECTION_HITS = 1000;
const MAX_SECTIONS_PER_PAGE = 5;
/** Results per page when the request gives no `limit`. */
const DEFAULT_SEARCH_LIMIT = 20;

/** A page among the results, ranked by its best section (details not loaded yet). */
export interface RankedPage {
  spaceId: string;
  pageId: string;
  /** The best row of each of its matching sections, best first (at most five sections). */
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

/**
 * Hits grouped by page, pages in the order of their best hit. A section is indexed as several rows
 * (pieces of a long section; members' and readers' rows of a conditional one): each section counts
 * once, by its best row.
 */
export function rankPages(hits: readonly SearchHit[]): RankedPage[] {
  const pages = new Map<string, RankedPage & { sections: Set<string> }>();
  for (const hit of hits) {
    const key = `${hit.spaceId}/${hit.pageId}`;
    let page = pages.get(key);
    if (!page) {
      page = { spaceId: hit.spaceId, pageId: hit.pageId, rowIds: [], score: hit.score, sections: new Set() };
      pages.set(key, page);
    }
    if (page.sections.has(hit.sectionKey) || page.rowIds.length >= MAX_SECTIONS_PER_PAGE) continue;
    page.sections.add(hit.sectionKey);
    page.rowIds.push(hit.rowId);
  }
  // Hits arrive best first, so map insertion order is already the page ranking.
  return [...pages.values()].map(({ sections: _sections, ...page }) => page);
}

/**
 * The results about to be returned, with their sections' titles, paths and snippets: the rows of
 * this page of results only.
 */
export async function describePages(db: Executor, query: SearchQuery, ranked: readonly RankedPage[]): Promise<PageResult[]> {
  const rowIds = ranked.flatMap((r) => r.rowIds);
  const details = await sectionDetails(db, rowIds);
  const found = rowIds.filter((id) => details.has(id));
  const snippets = new Map(
    (
      await snippetsOf(
        found.map((id) => details.get(id)?.body ?? ""),
        query,
      )
    ).map((snippet, i) => [found[i] as number, snippet]),
  );
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

/** One page of `count` ranked items, from `offset`, with the cursor of the next page when there is one. */
function pageAt<T>(items: readonly T[], offset: number, limit: number): { slice: T[]; count: number; next?: { page: string } } {
  const end = offset + limit;
  return { slice: items.slice(offset, end), count: items.length, ...(end < items.length ? { next: { page: encodeCursor([end]) } } : {}) };
}

/** Ranked pages of `query` in the spaces, for members or readers; `accept` drops hits (a reader's hidden pages and blocks). */
export async function rankedPages(
  index: FullTextIndex,
  db: Executor,
  spaceIds: string[],
  query: SearchQuery,
  who: SearchFor,
  accept?: (hit: SearchHit) => boolean,
): Promise<RankedPage[]> {
  const hits = await index.search(db, spaceIds, query, MAX_SECTION_HITS, who);
  return rankPages(accept ? hits.filter(accept) : hits);
}

/**
 * The indexed revision of each space, as one key; undefined when a space has no index yet (its
 * results are then not kept). A reindex changes the key, so kept results never outlive it.
 */
export async function indexedRevisions(db: Executor, spaceIds: readonly string[]): Promise<string | undefined> {
  if (spaceIds.length === 0) return "";
  const rows = await db.selectFrom("searchIndexState").select(["spaceId", "revisionId"]).where("spaceId", "in", spaceIds).execute();
  if (rows.length < new Set(spaceIds).size) return undefined;
  return rows
    .map((r) => `${r.spaceId}:${r.revisionId}`)
    .sort()
    .join(",");
}

const keptAnswers = () => new ResultCache<object>(16 * 1024 * 1024, (value) => JSON.stringify(value).length * 2);

/**
 * Search answers kept, 16 MB at most for each of: members' searches (API, MCP of the API, the web
 * app) and published sites' searches and Ask retrievals. Apart, so that the queries of a public
 * site's readers, however many, never push members' answers out, nor the reverse: sharing one
 * budget, a site's new queries emptied it of the API's answers (a repeated API search cost a whole
 * search again, three times the CPU of a kept answer on average in `npm run bench`).
 */
export const searchCaches = { members: keptAnswers(), sites: keptAnswers() };

/** Whose searches an answer is kept with (searchCaches). */
export type KeptFor = keyof typeof searchCaches;

/** The answer of `compute`, kept under `key` with `keptFor`'s answers when the spaces' index is known (see indexedRevisions). */
export async function keptSearch<T extends object>(
  db: Executor,
  spaceIds: readonly string[],
  key: string,
  keptFor: KeptFor,
  compute: () => Promise<T>,
): Promise<T> {
  const revisions = await indexedRevisions(db, spaceIds);
  if (revisions === undefined) return compute();
  // Keys name every space searched (an organization's hundreds): kept as a digest.
  const digest = createHash("sha256").update(`${key}|${revisions}`).digest("base64url");
  return (await searchCaches[keptFor].get(digest, compute)) as T;
}

type Paged<T> = { results: T[]; count: number; next?: { page: string } };

/**
 * Pages matching `query` in the given spaces, as members see them (every block), best first, one
 * page of results from the offset cursor `page`. 400 for a cursor this search did not return, or
 * a query refused by parseSearchQuery.
 */
export async function searchPages(
  index: FullTextIndex,
  db: Executor,
  spaceIds: string[],
  query: string,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Paged<PageResult>> {
  const offset = decodeOffset(options.page);
  const parsed = parseSearchQuery(query);
  const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
  const key = `pages|${[...spaceIds].sort().join(",")}|${queryKey(parsed)}|${offset}|${limit}`;
  return keptSearch(db, spaceIds, key, "members", async () => {
    const pages = await rankedPages(index, db, spaceIds, parsed, "members");
    const { slice, ...rest } = pageAt(pages, offset, limit);
    return { results: await describePages(db, parsed, slice), ...rest };
  });
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
): Promise<Paged<SpaceResult>> {
  const offset = decodeOffset(options.page);
  const parsed = parseSearchQuery(query);
  const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
  const key = `org|${[...spaceIds].sort().join(",")}|${queryKey(parsed)}|${offset}|${limit}`;
  return keptSearch(db, spaceIds, key, "members", async () => {
    const bySpace = new Map<string, RankedPage[]>();
    for (const ranked of await rankedPages(index, db, spaceIds, parsed, "members")) {
      const list = bySpace.get(ranked.spaceId) ?? [];
      list.push(ranked);
      bySpace.set(ranked.spaceId, list);
    }
    const { slice, ...rest } = pageAt([...bySpace.entries()], offset, limit);
    const described = await describePages(
      db,
      parsed,
      slice.flatMap(([, pages]) => pages.slice(0, MAX_PAGES_PER_SPACE)),
    );
    const pagesOf = new Map<string, PageResult[]>();
    for (const result of described) pagesOf.set(result.spaceId, [...(pagesOf.get(result.spaceId) ?? []), result]);
    return { results: slice.map(([spaceId]) => ({ spaceId, pages: pagesOf.get(spaceId) ?? [] })), ...rest };
  });
}
