/**
 * A site's insights with the caller's access: the site (404 for another organization's, or one
 * hidden from the caller), refused (403) to members who may only see it, and the titles of the
 * pages counted, from the spaces the caller may read (an editor of a site may not read every space
 * it shows: those pages are named as such, never by their title).
 */

import { indexPages, type PageLocation } from "../../content/revision/model.js";
import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import { loadContent } from "../../content/revision/storage.js";
import type { Executor } from "../../db/database.js";
import type { SiteQuestionsTable } from "../../db/schema.js";
import { DomainError } from "../../lib/errors.js";
import type { Actor } from "../../permissions/actor.js";
import { atLeast } from "../../permissions/roles.js";
import { feedbackCounts, type PageFeedbackCount } from "../sites/feedback.queries.js";
import { type LoadedSite, loadSpacesForSite, requireSite } from "../sites/sites.loader.js";
import { allow } from "../sites/sites.policy.js";
import type { SiteModel } from "../sites/structure.model.js";
import { loadSiteModel } from "../sites/structure.queries.js";
import { aggregateEvents } from "./events.queries.js";
import type { AggregateBodyValue } from "./events.schemas.js";
import { dayOf, type EventInsights, type EventList } from "./insights.model.js";
import { INSIGHTS_MESSAGE, mayReadInsights } from "./insights.policy.js";
import {
  type AnswerFacts,
  type DayCounts,
  listAnswerFacts,
  type PageCount,
  questionsAnswered,
  type SearchCount,
  type SourceCount,
  searchTotals,
  topPages,
  topSearches,
  viewsByDay,
  viewsBySource,
  visitorsByDay,
} from "./insights.queries.js";

export async function requireSiteInsights(db: Executor, actor: Actor, orgId: string, siteId: string): Promise<LoadedSite> {
  const loaded = await requireSite(db, actor, orgId, siteId);
  allow(mayReadInsights(loaded.permissions), INSIGHTS_MESSAGE);
  return loaded;
}

export const UNREADABLE_PAGE = "(a page of a space you cannot read)";
export const GONE_PAGE = "(a page no longer in the site)";

/** What names a page counted: its title, or why it is not shown; and the revision it is read at. */
export interface PageNames {
  title(spaceId: string, pageId: string): string;
  revision(spaceId: string): string;
  /** Whether the caller may read this space of the site (false for a space no longer in it). */
  readable(spaceId: string): boolean;
  model: SiteModel;
}

/**
 * The site's spaces the caller may read. A site's editor need not read every space it shows, and
 * events of the others (their pages, addresses, readers' comments) stay out of what they are shown.
 */
export async function readableSiteSpaces(db: Executor, loaded: LoadedSite): Promise<string[]> {
  const model = await loadSiteModel(db, loaded.site);
  const ids = [...new Set(model.siteSpaces.map((s) => s.spaceId))];
  const spaces = await loadSpacesForSite(db, loaded.access, ids);
  return ids.filter((id) => atLeast(spaces.get(id)?.level ?? null, "read"));
}

/** The titles of pages of the site's spaces, as the caller may see them. */
export async function loadPageNames(db: Executor, loaded: LoadedSite, spaceIds: Iterable<string>): Promise<PageNames> {
  const model = await loadSiteModel(db, loaded.site);
  const inSite = new Map(model.siteSpaces.map((s) => [s.spaceId, s.space]));
  const wanted = [...new Set(spaceIds)].filter((id) => inSite.has(id));
  const spaces = await loadSpacesForSite(db, loaded.access, wanted);
  const canRead = (spaceId: string) => atLeast(spaces.get(spaceId)?.level ?? null, "read");
  const pages = new Map<string, Map<string, PageLocation>>();
  for (const spaceId of wanted.filter(canRead)) {
    const space = inSite.get(spaceId);
    const revision = space && (await getSpaceRevision(db, space.id, space.revisionId));
    pages.set(spaceId, indexPages((await loadContent(db, revision?.treeHash ?? null)).pages));
  }
  return {
    model,
    title: (spaceId, pageId) => {
      if (!inSite.has(spaceId)) return GONE_PAGE;
      if (!canRead(spaceId)) return UNREADABLE_PAGE;
      return pages.get(spaceId)?.get(pageId)?.page.title ?? GONE_PAGE;
    },
    revision: (spaceId) => inSite.get(spaceId)?.revisionId ?? "",
    readable: (spaceId) => inSite.has(spaceId) && canRead(spaceId),
  };
}

/** What the insights summary is made of (insights.presenter.ts `presentInsights`). */
export interface InsightsLoaded {
  from: string;
  to: string;
  views: DayCounts[];
  visitors: DayCounts[];
  sources: SourceCount[];
  pages: PageCount[];
  searches: SearchCount[];
  searchesWithoutResult: SearchCount[];
  searchTotals: { searches: number; noResult: number };
  answers: AnswerFacts[];
  questions: Map<string, SiteQuestionsTable>;
  feedback: PageFeedbackCount[];
  title(spaceId: string, pageId: string): string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Everything the insights summary shows, for the `days` up to today (UTC). */
export async function loadInsights(db: Executor, loaded: LoadedSite, days: number, now = new Date()): Promise<InsightsLoaded> {
  const siteId = loaded.site.id;
  const to = dayOf(now);
  const from = dayOf(new Date(now.getTime() - (days - 1) * DAY_MS));
  const [views, visitors, sources, pages, searches, searchesWithoutResult, totals, answers, feedback] = await Promise.all([
    viewsByDay(db, siteId, from, to),
    visitorsByDay(db, siteId, from, to),
    viewsBySource(db, siteId, from, to),
    topPages(db, siteId, from, to, 20),
    topSearches(db, siteId, from, to, 20),
    topSearches(db, siteId, from, to, 20, true),
    searchTotals(db, siteId, from, to),
    listAnswerFacts(db, siteId, { from: `${from}T00:00:00.000Z` }),
    feedbackCounts(db, siteId, from, 20),
  ]);
  const questionRows = await questionsAnswered(db, siteId, { from: `${from}T00:00:00.000Z` });
  const names = await loadPageNames(db, loaded, [...pages.map((p) => p.spaceId), ...feedback.map((f) => f.spaceId)]);
  return {
    from,
    to,
    views,
    visitors,
    sources,
    pages,
    searches,
    searchesWithoutResult,
    searchTotals: totals,
    answers,
    questions: new Map(questionRows.map((q) => [q.id, q])),
    feedback,
    title: names.title,
  };
}

/**
 * The Insights page's reads of the site's events since `from` (a day), through the same code as
 * aggregateSiteEvents. One after the other: each takes the worker thread of insights reads while
 * it runs. `ownHosts`: the site's own hosts, whose referrals are readers moving between its pages.
 * A read that cannot be made says why, and the others are still shown.
 */
export async function loadEventInsights(
  db: Executor,
  loaded: LoadedSite,
  from: string,
  ownHosts: readonly string[],
  now = new Date(),
): Promise<EventInsights> {
  const spaces = await readableSiteSpaces(db, loaded);
  const range = { from: `${from}T00:00:00.000Z`, to: now.toISOString() };
  const read = async <T>(body: Omit<AggregateBodyValue, "range">, rowOf: (values: unknown[]) => T): Promise<EventList<T>> => {
    try {
      const { columns } = await aggregateEvents(db, loaded.site.id, { ...body, range } as AggregateBodyValue, now, spaces);
      const count = columns[0]?.values.length ?? 0;
      return { rows: Array.from({ length: count }, (_, i) => rowOf(columns.map((c) => c.values[i]))) };
    } catch (error) {
      if (error instanceof DomainError && (error.kind === "too-large" || error.kind === "busy")) return { unavailable: error.message };
      throw error;
    }
  };
  const referrers = await read(
    {
      where: [{ column: "referrerDomain", operator: "notIn", values: ["", ...ownHosts] }],
      groupBy: [{ column: "referrerDomain" }],
      select: [{ column: "eventsCount" }, { column: "visitorsCount" }],
      limit: 10,
    },
    ([domain, views, visitors]) => ({ domain: String(domain), views: Number(views), visitors: Number(visitors) }),
  );
  const broken = await read(
    {
      where: [
        { column: "eventType", values: ["page_view"] },
        { column: "page", values: [null] },
      ],
      groupBy: [{ column: "urlPath" }],
      select: [{ column: "eventsCount" }],
      limit: 10,
    },
    ([path, views]) => ({ path: String(path), views: Number(views) }),
  );
  const agents = await read(
    {
      where: [{ column: "visitorBot", operator: "notIn", values: [null] }],
      groupBy: [{ column: "visitorBot" }],
      select: [{ column: "eventsCount" }],
      limit: 10,
    },
    ([bot, reads]) => ({ bot: String(bot), reads: Number(reads) }),
  );
  return { referrers, broken, agents };
}
