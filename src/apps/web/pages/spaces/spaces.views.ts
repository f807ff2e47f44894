/**
 * A space's pages as HTML: its page tree, what revisions changed, a page's history. Pure functions
 * of what the handlers loaded; everything from the database or from content goes through `html`
 * (escaped).
 */
import { html, raw, type SafeHtml } from "../../../../content/html/safe-html.js";
import type { PageLocation, PageNode } from "../../../../content/revision/model.js";
import { badge, emojiText, emptyNote, when } from "../../common.views.js";
import { appPath } from "../../web.paths.js";
import type { PageChange, PageChangeKind, PageHistoryEntry } from "./history.model.js";

/** The page tree as a sidebar: document pages link to their app page, groups are labels, link pages go out. */
export function pageTree(org: string, space: string, pages: readonly PageNode[], currentId: string | undefined): SafeHtml {
  const item = (node: PageNode): SafeHtml => {
    const label = html`${emojiText(node.emoji)}${node.label ?? node.title}${node.hidden ? html` <span class="badge">hidden</span>` : ""}`;
    let entry: SafeHtml;
    if (node.kind === "group") entry = html`<span class="group">${label}</span>`;
    else if (node.kind === "link") {
      const external = node.href && /^https?:\/\//i.test(node.href) ? node.href : undefined;
      const target = node.target?.kind === "page" ? appPath.page(org, space, node.target.page) : external;
      entry = target ? html`<a href="${target}">${label} ↗</a>` : html`<span>${label}</span>`;
    } else {
      const current = node.id === currentId ? raw(' aria-current="page"') : "";
      entry = html`<a href="${appPath.page(org, space, node.id)}"${current}>${label}</a>`;
    }
    return html`<li>${entry}${node.children.length > 0 ? html`<ul>${node.children.map(item)}</ul>` : ""}</li>`;
  };
  if (pages.length === 0) return emptyNote("No pages yet.");
  return html`<ul class="tree">${pages.map(item)}</ul>`;
}

const KIND_LABELS: Record<PageChangeKind, string> = {
  added: "added",
  removed: "removed",
  edited: "content edited",
  renamed: "renamed",
  moved: "moved",
  details: "details changed",
};

export function changeKinds(kinds: readonly PageChangeKind[]): SafeHtml {
  return html`${kinds.map((k) => badge(KIND_LABELS[k], k === "removed" ? "bad" : k === "added" ? "ok" : ""))}`;
}

export interface RevisionLinks {
  org: string;
  space: string;
  /** Names of the people who made revisions, by user id. */
  people: ReadonlyMap<string, string>;
  /** Change request numbers by id, for merge revisions. */
  changeRequests: ReadonlyMap<string, number>;
}

function revisionOrigin(revision: { type: string; createdBy: string | null; mergedFrom: string | null }, links: RevisionLinks): SafeHtml {
  const who = revision.createdBy ? (links.people.get(revision.createdBy) ?? "a former member") : "Quire";
  const number = revision.mergedFrom ? links.changeRequests.get(revision.mergedFrom) : undefined;
  const merged =
    number !== undefined
      ? html` · merged <a href="${appPath.changeRequest(links.org, links.space, number)}">change request #${number}</a>`
      : "";
  return html`${revision.type} by ${who}${merged}`;
}

export function historyList(entries: readonly PageHistoryEntry[], more: boolean, links: RevisionLinks): SafeHtml {
  if (entries.length === 0) return emptyNote("No revision of the recent history changed this page.");
  return html`<ol class="plain history">${entries.map(
    (e) => html`<li><a href="${appPath.revision(links.org, links.space, e.revision.id)}">${when(e.revision.createdAt)}</a>
      ${changeKinds(e.kinds)} <span class="muted small">${revisionOrigin(e.revision, links)}</span></li>`,
  )}</ol>${more ? html`<p class="muted small">Older revisions are not shown.</p>` : ""}`;
}

export function revisionSummary(
  revision: { type: string; createdBy: string | null; mergedFrom: string | null; createdAt: string },
  links: RevisionLinks,
) {
  return html`<p class="muted">${when(revision.createdAt)} · ${revisionOrigin(revision, links)}</p>`;
}

/** What a revision changed, page by page; pages that exist in the primary content link to their page. */
export function pageChanges(
  changes: readonly PageChange[],
  org: string,
  space: string,
  livePages: ReadonlyMap<string, PageLocation>,
): SafeHtml {
  if (changes.length === 0) return emptyNote("No page changed in this revision (files, variables or reusable content may have).");
  return html`<ul class="plain changes">${changes.map((c) => {
    const title = livePages.has(c.pageId)
      ? html`<a href="${appPath.page(org, space, c.pageId)}">${c.title}</a>`
      : html`<strong>${c.title}</strong>`;
    return html`<li>${title} <span class="muted small">/${c.path}</span> ${changeKinds(c.kinds)}</li>`;
  })}</ul>`;
}

/** The pages of a tree as an indented list of titles (a revision's page list). */
export function pageOutline(pages: readonly PageNode[]): SafeHtml {
  const item = (node: PageNode): SafeHtml =>
    html`<li>${node.title}${node.kind === "group" ? html` <span class="badge">group</span>` : ""}${node.children.length > 0 ? html`<ul>${node.children.map(item)}</ul>` : ""}</li>`;
  return pages.length > 0 ? html`<ul class="tree outline">${pages.map(item)}</ul>` : emptyNote("No pages.");
}

/** A group page's content: its pages' titles. */
export function groupBody(page: PageNode): SafeHtml {
  return html`<p class="muted">A group of pages:</p><ul>${page.children.map((c) => html`<li>${c.title}</li>`)}</ul>`;
}

/** A link page's content: its address when it is a web address. */
export function linkBody(page: PageNode): SafeHtml {
  const href = page.href && /^https?:\/\//i.test(page.href) ? page.href : undefined;
  return href ? html`<p>A link to <a href="${href}">${href}</a>.</p>` : emptyNote("A link page.");
}

/** The space's layout: its page tree as a sidebar, then the main column. */
export function spaceLayout(
  org: string,
  space: { id: string; title: string; emoji: string | null },
  pages: readonly PageNode[],
  currentPage: string | undefined,
  main: SafeHtml,
): SafeHtml {
  return html`<div class="layout"><aside><details open><summary>Pages</summary>
        <p><a href="${appPath.space(org, space.id)}"><strong>${emojiText(space.emoji)}${space.title}</strong></a></p>
        ${pageTree(org, space.id, pages, currentPage)}
        <p class="small"><a href="${appPath.changes(org, space.id)}">Change requests</a></p></details></aside>
      <article>${main}</article></div>`;
}

/** The space's own page: its first page, rendered, and the Git panel (absent for a deleted space). */
export function spaceMain(view: {
  org: string;
  space: {
    id: string;
    title: string;
    emoji: string | null;
    visibility: string;
    editMode: string;
    revisionId: string;
    deletedAt: string | null;
  };
  first?: { id: string; title: string; body: SafeHtml } | undefined;
  git: SafeHtml;
  /** The rename form, for admins of the space. */
  rename?: SafeHtml | undefined;
}): SafeHtml {
  const { org, space, first } = view;
  const firstPage = first
    ? html`<section class="first-page"><h2><a href="${appPath.page(org, space.id, first.id)}">${first.title}</a></h2>${first.body}</section>`
    : emptyNote("This space has no pages yet.");
  return html`<div class="page-head"><h1>${emojiText(space.emoji)}${space.title}</h1>
        <div class="actions">${badge(space.visibility)} ${space.editMode === "locked" ? badge("locked", "wait") : ""}
          <a class="button" href="${appPath.changes(org, space.id)}">Change requests</a>
          <a class="button" href="${appPath.revision(org, space.id, space.revisionId)}">Latest revision</a>${view.rename ?? ""}</div></div>
      ${space.deletedAt ? html`<p class="error">This space is deleted; an admin can restore it.</p>` : ""}
      ${firstPage}
      ${view.git}`;
}

/** A page of the space: its title, path, description, content and history. */
/** What a writer can do with a page of the primary content: edit it in a new change request, or in one of theirs still open. */
export interface PageEditActions {
  /** POST here to create "Edit <title>" and open the editor. */
  newEdit: string;
  csrf: string;
  /** The writer's open change requests, each with the address of this page's editor in it. */
  open: Array<{ number: number; subject: string; href: string }>;
}

export function pageEditActions(actions: PageEditActions): SafeHtml {
  const others = actions.open.length
    ? html`<details class="edit-in"><summary>Edit in one of your change requests</summary><ul>${actions.open.map(
        (cr) => html`<li><a href="${cr.href}">#${cr.number} ${cr.subject}</a></li>`,
      )}</ul></details>`
    : "";
  return html`<div class="page-actions"><form class="inline" method="post" action="${actions.newEdit}"><input type="hidden" name="_csrf" value="${actions.csrf}"><button type="submit" class="primary" id="edit-page">Edit</button></form>${others}</div>`;
}

export function pageMain(location: PageLocation, content: SafeHtml, history: SafeHtml, actions?: PageEditActions): SafeHtml {
  return html`<div class="page-head"><h1>${emojiText(location.page.emoji)}${location.page.title}</h1>
        <span class="muted small">/${location.path}</span>${actions ? pageEditActions(actions) : ""}</div>
      ${location.page.description ? html`<p class="description">${location.page.description}</p>` : ""}
      ${content}
      <section id="history"><h2>History</h2>${history}</section>`;
}

/** A revision: who made it, what it changed, the pages in it. */
export function revisionBody(view: {
  revision: { id: string; type: string; createdBy: string | null; mergedFrom: string | null; createdAt: string };
  links: RevisionLinks;
  current: boolean;
  parentId: string | undefined;
  changes: readonly PageChange[];
  livePages: ReadonlyMap<string, PageLocation>;
  pages: readonly PageNode[];
}): SafeHtml {
  const { org, space } = view.links;
  return html`<h1>Revision <code>${view.revision.id}</code></h1>
        ${revisionSummary(view.revision, view.links)}
        <p class="actions">${view.current ? badge("current primary content", "ok") : ""}
          ${view.parentId ? html`<a class="button" href="${appPath.revision(org, space, view.parentId)}">Previous revision</a>` : html`<span class="muted">The space's first revision.</span>`}</p>
        <h2>What changed</h2>${pageChanges(view.changes, org, space, view.livePages)}
        <h2>Pages in this revision</h2>${pageOutline(view.pages)}`;
}
