/**
 * Loads the view of a published site (its structure and each shown space's primary content),
 * rebuilt only when one of the rows it comes from changes: a merge or a Git import moves a space's
 * primary revision, which changes the key, so the next request sees it (no restart, no TTL).
 */

import type { PageLocation, RevisionContent } from "../../content/revision/model.js";
import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import { indexOfContent, loadContent } from "../../content/revision/storage.js";
import type { Executor } from "../../db/database.js";
import type { SiteRow } from "../../db/schema.js";
import { findGitRedirect } from "../../modules/git-sync/git-redirects.queries.js";
import { findSiteByBasename, listSiteRedirects, loadSiteRows, type SiteRows } from "../../modules/sites/published.queries.js";
import type { SiteModel } from "../../modules/sites/structure.model.js";
import { resolveCustomizations } from "./site-customization.views.js";
import { buildSiteView, type SiteView } from "./site-view.model.js";

export { findSiteByBasename, listSiteRedirects };

const views = new Map<string, SiteView>();
const MAX_VIEWS = 500;

/** Everything the view depends on, as one string: any change to a row changes it. */
function keyOf(site: SiteRow, rows: SiteRows): string {
  // The customizations are compared whole: an update within the same millisecond still shows.
  const parts: string[] = [
    site.id,
    site.updatedAt,
    site.defaultSiteSectionId ?? "",
    site.defaultSiteSpaceId ?? "",
    site.orgId,
    site.customization ?? "",
  ];
  for (const g of rows.groups) parts.push(`g${g.id}:${g.parentId}:${g.title}:${g.position}:${g.icon}`);
  for (const s of rows.sections) {
    parts.push(
      `s${s.id}:${s.groupId}:${s.title}:${s.path}:${s.position}:${s.condition}:${s.defaultSiteSpaceId}:${s.icon}:${s.description}`,
    );
  }
  for (const s of rows.siteSpaces)
    parts.push(`v${s.id}:${s.sectionId}:${s.spaceId}:${s.path}:${s.position}:${s.condition}:${s.updatedAt}:${s.customization ?? ""}`);
  for (const s of rows.spaces)
    parts.push(`p${s.id}:${s.revisionId}:${s.deletedAt}:${s.orgId}:${s.title}:${s.language}:${s.updatedAt}:${s.gitSync ?? ""}`);
  return parts.join("|");
}

/** The site's view as the database holds it now. */
export async function loadSiteView(db: Executor, site: SiteRow): Promise<SiteView> {
  const rows = await loadSiteRows(db, site.id);
  const key = keyOf(site, rows);
  const cached = views.get(site.id);
  if (cached && cached.key === key) return cached;

  const spaces = new Map(rows.spaces.map((s) => [s.id, s]));
  const model: SiteModel = {
    site,
    groups: [...rows.groups],
    sections: [...rows.sections],
    siteSpaces: rows.siteSpaces.flatMap((row) => {
      const space = spaces.get(row.spaceId);
      if (!space) return [];
      const { treeHash: _treeHash, ...spaceRow } = space;
      return [{ ...row, space: spaceRow, hidden: space.deletedAt !== null || space.orgId !== site.orgId }];
    }),
  };
  const contents = new Map<string, { revisionId: string; content: RevisionContent; index: Map<string, PageLocation> }>();
  await Promise.all(
    rows.spaces.map(async (space) => {
      const content = await loadContent(db, space.treeHash);
      contents.set(space.id, { revisionId: space.revisionId, content, index: indexOfContent(space.treeHash, content) });
    }),
  );
  const view = buildSiteView(site, model, contents, key, resolveCustomizations(site, model));
  if (views.size >= MAX_VIEWS && !views.has(site.id)) views.delete(views.keys().next().value as string);
  views.set(site.id, view);
  return view;
}

/** The site a request names by basename, or undefined. */
export async function siteByBasename(db: Executor, basename: string): Promise<SiteRow | undefined> {
  return findSiteByBasename(db, basename);
}

/** How many revisions back an old page path is looked for. */
const MOVED_PAGE_DEPTH = 5;

/**
 * The id of the page an old `path` leads to: by the redirects of the space's last Git import
 * (`.gitbook.yaml`), else the page that had `path` in one of the space's previous revisions (first parents, up to
 * five back from `revisionId`), or undefined: an old URL of a renamed or moved page can then be
 * sent to where that page is now.
 */
export async function findMovedPage(db: Executor, spaceId: string, revisionId: string, path: string): Promise<string | undefined> {
  // The repository's own redirects (`.gitbook.yaml`) first: its authors said where an old path goes.
  const redirected = await findGitRedirect(db, spaceId, path);
  if (redirected) return redirected;
  let current = await getSpaceRevision(db, spaceId, revisionId);
  for (let depth = 0; current && depth < MOVED_PAGE_DEPTH; depth++) {
    const parentId = (JSON.parse(current.parents) as string[])[0];
    if (!parentId) return undefined;
    const parent = await getSpaceRevision(db, spaceId, parentId);
    if (!parent) return undefined;
    const content = await loadContent(db, parent.treeHash);
    for (const [id, location] of indexOfContent(parent.treeHash, content)) {
      if (location.path === path && location.page.kind === "document") return id;
    }
    current = parent;
  }
  return undefined;
}
