/**
 * What the pages of a space share: the breadcrumbs down to it, the people and change requests its
 * revisions name, a page's history, and a page's content as the app renders it.
 */
import type { SafeHtml } from "../../../../content/html/safe-html.js";
import type { PageLocation, PageNode } from "../../../../content/revision/model.js";
import { listRecentRevisions } from "../../../../content/revision/revisions.queries.js";
import { indexOfContent, loadContent } from "../../../../content/revision/storage.js";
import type { Executor } from "../../../../db/database.js";
import type { SpaceRow } from "../../../../db/schema.js";
import type { Deps } from "../../../../deps.js";
import { getChangeRequest, listChangeRequests } from "../../../../modules/change-requests/change-requests.queries.js";
import { collectionPermissions } from "../../../../modules/collections/collections.policy.js";
import { getCollectionsByIds, listCollectionNodes } from "../../../../modules/collections/collections.queries.js";
import { pageDocumentJson, type RevisionView } from "../../../../modules/content/content.loader.js";
import { getUsersByIds } from "../../../../modules/users/users.queries.js";
import { emojiText } from "../../common.views.js";
import { appPath } from "../../web.paths.js";
import { type AppPageSource, renderAppPage } from "../../web.render.js";
import { type OrgContext, orgCrumb } from "../../web.steps.js";
import { HISTORY_DEPTH, type PageHistoryEntry, pageHistory } from "./history.model.js";
import { groupBody, linkBody, type PageEditActions, type RevisionLinks } from "./spaces.views.js";

export type Crumbs = { label: string; href?: string }[];

/** The crumbs down to a space: organization, its collections from the top (those the member may view), the space. */
export async function spaceCrumbs(ctx: OrgContext, space: SpaceRow): Promise<Crumbs> {
  const { db } = ctx.deps;
  const nodes = await listCollectionNodes(db, ctx.org.id);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const chain: string[] = [];
  for (let id = space.parentId; id && !chain.includes(id); id = byId.get(id)?.parentId ?? null) {
    const node = byId.get(id);
    if (!node || !collectionPermissions(ctx.access, node).view) break;
    chain.unshift(id);
  }
  const titles = new Map((await getCollectionsByIds(db, chain)).map((c) => [c.id, c.title]));
  return [
    orgCrumb(ctx),
    ...chain.map((id) => ({ label: titles.get(id) ?? id, href: appPath.collection(ctx.org.id, id) })),
    { label: `${emojiText(space.emoji)}${space.title}`, href: appPath.space(ctx.org.id, space.id) },
  ];
}

/** Names of people and numbers of merged change requests that revisions point at. */
export async function revisionLinks(
  db: Executor,
  space: SpaceRow,
  revisions: readonly { createdBy: string | null; mergedFrom: string | null }[],
): Promise<RevisionLinks> {
  const userIds = [...new Set(revisions.flatMap((r) => (r.createdBy ? [r.createdBy] : [])))];
  const people = new Map((userIds.length > 0 ? await getUsersByIds(db, userIds) : []).map((u) => [u.id, u.displayName]));
  const changeRequests = new Map<string, number>();
  for (const id of new Set(revisions.flatMap((r) => (r.mergedFrom ? [r.mergedFrom] : [])))) {
    const cr = await getChangeRequest(db, space.id, id);
    if (cr) changeRequests.set(id, cr.number);
  }
  return { org: space.orgId, space: space.id, people, changeRequests };
}

/** The pages of a revision's tree by id (cached per tree by the content store). */
export async function pagesOfTree(db: Executor, treeHash: string | null): Promise<ReadonlyMap<string, PageLocation>> {
  return indexOfContent(treeHash, await loadContent(db, treeHash));
}

/** The revisions of the space's primary line that changed the page (history.model.ts). */
export async function loadPageHistory(
  db: Executor,
  space: SpaceRow,
  pageId: string,
): Promise<{ entries: PageHistoryEntry[]; more: boolean }> {
  // The newest revisions hold the primary line's recent part; side revisions (change requests) are skipped by the walk.
  const recent = await listRecentRevisions(db, space.id, HISTORY_DEPTH * 3);
  return pageHistory(recent, space.revisionId, pageId, (treeHash) => pagesOfTree(db, treeHash));
}

export function sourceOf(orgId: string, view: RevisionView, page: PageNode): AppPageSource {
  return { orgId, spaceId: view.space.id, content: view.content, pageIds: new Set(view.locations().keys()), page };
}

/** A page as the app shows it: a document rendered, a group's pages listed, a link's address. */
export async function pageContent(deps: Deps, source: AppPageSource, location: PageLocation): Promise<{ body: SafeHtml; head?: SafeHtml }> {
  if (location.page.kind === "group") return { body: groupBody(location.page) };
  if (location.page.kind === "link") return { body: linkBody(location.page) };
  return renderAppPage(deps.db, deps, source, await pageDocumentJson(deps.db, location));
}

/** The Edit action of a page for a member who may edit the space: a new change request, or one of their open ones (draft or open). */
export async function pageEditActions(ctx: OrgContext, space: SpaceRow, pageId: string): Promise<PageEditActions> {
  const open: PageEditActions["open"] = [];
  for (const status of ["draft", "open"] as const) {
    const { rows } = await listChangeRequests(
      ctx.deps.db,
      { scope: "space", spaceIds: [space.id], status, creator: ctx.actor.user.id },
      { limit: 10 },
    );
    for (const cr of rows) {
      open.push({
        number: cr.number,
        subject: cr.subject,
        href: `${appPath.changeRequest(space.orgId, space.id, cr.number)}/p/${pageId}/edit`,
      });
    }
  }
  open.sort((a, b) => b.number - a.number);
  return { newEdit: `${appPath.page(space.orgId, space.id, pageId)}/edit`, csrf: ctx.csrf(), open };
}
