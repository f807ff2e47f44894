/**
 * Counts of "Was this page helpful?" answers of the last 30 days, by page, for a site's editors;
 * page titles only from the spaces they can read (an editor of the site may not read all of them).
 */
import type { PageLocation } from "../../../../content/revision/model.js";
import { indexPages } from "../../../../content/revision/model.js";
import { getSpaceRevision } from "../../../../content/revision/revisions.queries.js";
import { loadContent } from "../../../../content/revision/storage.js";
import type { Executor } from "../../../../db/database.js";
import { feedbackCounts } from "../../../../modules/sites/feedback.queries.js";
import type { ModelSiteSpace } from "../../../../modules/sites/structure.model.js";
import type { FeedbackRow } from "./feedback.views.js";

export async function loadFeedback(
  db: Executor,
  siteId: string,
  siteSpaces: readonly ModelSiteSpace[],
  canRead: (spaceId: string) => boolean,
): Promise<FeedbackRow[]> {
  const since = new Date(Date.now() - 30 * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
  const counts = await feedbackCounts(db, siteId, since);
  const titles = new Map<string, Map<string, PageLocation>>();
  for (const spaceId of new Set(counts.map((c) => c.spaceId).filter(canRead))) {
    const space = siteSpaces.find((s) => s.spaceId === spaceId)?.space;
    const revision = space && (await getSpaceRevision(db, space.id, space.revisionId));
    titles.set(spaceId, indexPages((await loadContent(db, revision?.treeHash ?? null)).pages));
  }
  return counts.map((c) => ({
    page: !canRead(c.spaceId)
      ? "(a page of a space you cannot read)"
      : (titles.get(c.spaceId)?.get(c.pageId)?.page.title ?? "(a page no longer in the space)"),
    space: siteSpaces.find((s) => s.spaceId === c.spaceId)?.space.title ?? "(a space no longer in the site)",
    good: c.good,
    ok: c.ok,
    bad: c.bad,
  }));
}
