/**
 * Writing a site's redirects: destinations checked against the site's structure and the spaces'
 * current pages, and the bulk upsert of 0.202 (`bulkUpsertSiteRedirects`), each item on its own.
 * Every function runs in the caller's transaction, which holds the site's row lock (inSiteTransaction).
 */

import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import { indexOfContent, loadContent } from "../../content/revision/storage.js";
import type { Executor } from "../../db/database.js";
import type { SiteRedirectRow, SpaceRow } from "../../db/schema.js";
import { DomainError, invalid } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { nowIso } from "../../lib/time.js";
import { checkExternalUrl, MAX_SITE_REDIRECTS, type RedirectDestination } from "./redirects.model.js";
import {
  countSiteRedirects,
  deleteSiteRedirectRow,
  findSiteRedirectBySource,
  insertSiteRedirect,
  updateSiteRedirectRow,
} from "./redirects.queries.js";
import type { BulkItem, BulkResult, InputDestinationValue } from "./redirects.schemas.js";
import { defaultSectionId, type SiteModel, siteSpaceSegments } from "./structure.model.js";

/** The pages of a space's current revision: id -> path (slugs from the space's root). */
export async function pagePathsOf(db: Executor, space: SpaceRow): Promise<Map<string, string>> {
  const revision = await getSpaceRevision(db, space.id, space.revisionId);
  const content = await loadContent(db, revision?.treeHash ?? null);
  const paths = new Map<string, string>();
  for (const [id, location] of indexOfContent(revision?.treeHash ?? null, content)) {
    if (location.page.kind === "document") paths.set(id, location.path);
  }
  return paths;
}

/**
 * An input destination as stored: 400 naming `field` unless it is a section, a site space or a
 * page of this site (a space's page by `path` becomes its `site-page`), or an http(s) URL.
 */
export async function resolveDestination(
  db: Executor,
  model: SiteModel,
  input: InputDestinationValue,
  field: string,
): Promise<RedirectDestination> {
  const shown = model.siteSpaces.filter((s) => !s.hidden);
  switch (input.kind) {
    case "external":
      return { kind: "external", url: checkExternalUrl(input.url, `${field}.url`) };
    case "site-section":
      if (!model.sections.some((s) => s.id === input.siteSectionId)) {
        throw invalid(`${field}.siteSectionId "${input.siteSectionId}" is not a section of this site.`);
      }
      return { kind: "site-section", siteSectionId: input.siteSectionId };
    case "site-space":
      if (!shown.some((s) => s.id === input.siteSpaceId)) {
        throw invalid(`${field}.siteSpaceId "${input.siteSpaceId}" is not a site space of this site.`);
      }
      return { kind: "site-space", siteSpaceId: input.siteSpaceId };
    case "site-page": {
      const siteSpace = shown.find((s) => s.id === input.siteSpaceId);
      if (!siteSpace) throw invalid(`${field}.siteSpaceId "${input.siteSpaceId}" is not a site space of this site.`);
      if (!(await pagePathsOf(db, siteSpace.space)).has(input.pageId)) {
        throw invalid(`${field}.pageId "${input.pageId}" is not a page of the space site space "${siteSpace.id}" shows.`);
      }
      return { kind: "site-page", siteSpaceId: siteSpace.id, pageId: input.pageId };
    }
    case "path": {
      const siteSpace = shown.find((s) => s.spaceId === input.spaceId);
      if (!siteSpace) throw invalid(`${field}.spaceId "${input.spaceId}" is not a space this site shows.`);
      const wanted = input.path.replace(/^\/+|\/+$/g, "");
      for (const [pageId, path] of await pagePathsOf(db, siteSpace.space)) {
        if (path === wanted) return { kind: "site-page", siteSpaceId: siteSpace.id, pageId };
      }
      throw invalid(`${field}.path "${input.path.slice(0, 200)}" is not the path of a page of space "${input.spaceId}".`);
    }
  }
}

/**
 * Where a destination leads, as URL segments from the site's root (a page's path appended), or an
 * external URL; undefined when it no longer exists (a removed site space, section or page).
 */
export async function destinationSegments(
  db: Executor,
  model: SiteModel,
  destination: RedirectDestination,
): Promise<{ segments: string[] } | { url: string } | undefined> {
  if (destination.kind === "external") return { url: destination.url };
  if (destination.kind === "site-section") {
    const section = model.sections.find((s) => s.id === destination.siteSectionId);
    if (!section) return undefined;
    return { segments: section.id === defaultSectionId(model) ? [] : [section.path] };
  }
  const siteSpace = model.siteSpaces.find((s) => s.id === destination.siteSpaceId && !s.hidden);
  if (!siteSpace) return undefined;
  const segments = siteSpaceSegments(model, siteSpace);
  if (destination.kind === "site-space") return { segments };
  const path = (await pagePathsOf(db, siteSpace.space)).get(destination.pageId);
  return path === undefined ? undefined : { segments: [...segments, ...path.split("/")] };
}

/** 400 when adding `adding` redirects would take the site past MAX_SITE_REDIRECTS. */
export async function checkRedirectRoom(trx: Executor, siteId: string, adding: number): Promise<void> {
  if (adding <= 0) return;
  const count = await countSiteRedirects(trx, siteId);
  if (count + adding > MAX_SITE_REDIRECTS) {
    throw invalid(
      `This site has ${count} redirects; at most ${MAX_SITE_REDIRECTS} are kept (live and draft). Delete some, or use wildcard sources ("/old/*").`,
    );
  }
}

export function newRedirectRow(
  siteId: string,
  input: { source: string; draft: boolean; captureWildcard: boolean; permanent: boolean; destination: RedirectDestination },
): SiteRedirectRow {
  return {
    id: newId(),
    siteId,
    source: input.source,
    draft: input.draft ? 1 : 0,
    captureWildcard: input.captureWildcard ? 1 : 0,
    permanent: input.permanent ? 1 : 0,
    destination: JSON.stringify(input.destination),
    createdAt: nowIso(),
    updatedAt: null,
  };
}

/**
 * Runs 0.202's bulk operations in order, each on its own: a refused item (a destination outside the
 * site, a publish without a draft, no room left) is reported as `error` and the others still apply.
 */
export async function bulkUpsertRedirects(trx: Executor, model: SiteModel, items: readonly BulkItem[]): Promise<BulkResult[]> {
  const siteId = model.site.id;
  const results: BulkResult[] = [];
  for (const [index, item] of items.entries()) {
    const field = `body.redirects[${index}]`;
    const draft = item.intent === "draft";
    try {
      results.push(await bulkItem(trx, model, item, field));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      results.push({ status: "error", source: item.source, draft, error: error.message });
    }
  }
  return results;

  async function bulkItem(trx: Executor, model: SiteModel, item: BulkItem, field: string): Promise<BulkResult> {
    if (item.intent === "publish") {
      const pending = await findSiteRedirectBySource(trx, siteId, item.source, true);
      if (!pending) throw invalid(`${field}: there is no draft redirect of "${item.source}" to publish.`);
      const live = await findSiteRedirectBySource(trx, siteId, item.source, false);
      const fields = { captureWildcard: pending.captureWildcard, permanent: pending.permanent, destination: pending.destination };
      await deleteSiteRedirectRow(trx, siteId, pending.id);
      if (live) {
        await updateSiteRedirectRow(trx, live.id, { ...fields, updatedAt: nowIso() });
        return { status: "published", source: item.source, draft: false, id: live.id };
      }
      // The draft becomes the live redirect: same id, no longer a draft.
      await insertSiteRedirect(trx, { ...pending, draft: 0, updatedAt: nowIso() });
      return { status: "published", source: item.source, draft: false, id: pending.id };
    }
    const draft = item.intent === "draft";
    const existing = await findSiteRedirectBySource(trx, siteId, item.source, draft);
    if (item.destination === null) {
      if (!existing) throw invalid(`${field}: there is no ${draft ? "draft" : "live"} redirect of "${item.source}" to delete.`);
      await deleteSiteRedirectRow(trx, siteId, existing.id);
      return { status: "deleted", source: item.source, draft };
    }
    const destination = await resolveDestination(trx, model, item.destination, `${field}.destination`);
    if (existing) {
      await updateSiteRedirectRow(trx, existing.id, {
        destination: JSON.stringify(destination),
        captureWildcard: item.captureWildcard ? 1 : 0,
        ...(item.permanent !== undefined ? { permanent: item.permanent ? 1 : 0 } : {}),
        updatedAt: nowIso(),
      });
      return { status: "updated", source: item.source, draft, id: existing.id };
    }
    await checkRedirectRoom(trx, siteId, 1);
    const row = newRedirectRow(siteId, {
      source: item.source,
      draft,
      captureWildcard: item.captureWildcard ?? false,
      permanent: item.permanent ?? false,
      destination,
    });
    await insertSiteRedirect(trx, row);
    return { status: "created", source: item.source, draft, id: row.id };
  }
}
