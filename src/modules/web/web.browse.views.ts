/**
 * Views of the browsing half of the web app: pure functions from what the routes loaded to markup.
 * Everything from the database or from content goes through `html` (escaped).
 */
import { emojiCharacter } from "../../content/document/loose.js";
import type { PageLocation, PageNode } from "../../content/revision/model.js";
import type { PageChange, PageChangeKind, PageHistoryEntry } from "./web.history.js";
import { html, raw, type SafeHtml } from "./web.html.js";

/** Addresses of the app's pages (the same paths the API's `urls.app` names). */
export const appPath = {
  org: (org: string) => `/app/o/${enc(org)}`,
  collection: (org: string, id: string) => `/app/o/${enc(org)}/c/${enc(id)}`,
  space: (org: string, space: string) => `/app/o/${enc(org)}/s/${enc(space)}`,
  page: (org: string, space: string, page: string) => `/app/o/${enc(org)}/s/${enc(space)}/p/${enc(page)}`,
  revision: (org: string, space: string, id: string) => `/app/o/${enc(org)}/s/${enc(space)}/revisions/${enc(id)}`,
  changes: (org: string, space: string) => `/app/o/${enc(org)}/s/${enc(space)}/~/changes`,
  changeRequest: (org: string, space: string, number: number) => `/app/o/${enc(org)}/s/${enc(space)}/~/changes/${number}`,
  site: (org: string, id: string) => `/app/o/${enc(org)}/sites/${enc(id)}`,
  openapi: (org: string, slug: string) => `/app/o/${enc(org)}/openapi/${enc(slug)}`,
  topic: (org: string, id: string) => `/app/o/${enc(org)}/agent/topics/${enc(id)}`,
};

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

/** `2026-11-25T15:45:58.000Z` as `2026-11-25 15:45 UTC`, in a <time> element. */
export function when(iso: string | null | undefined): SafeHtml {
  if (!iso) return html`<span class="muted">never</span>`;
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace("T", " ")} UTC</time>`;
}

/**
 * An emoji as text followed by a space, or nothing. GitBook stores emojis as code points in hex
 * ("1f4d8", "1f469-200d-1f4bb"); anything else is shown as written (escaped by the caller).
 */
export function emojiText(emoji: string | null | undefined): string {
  return emoji ? `${emojiCharacter(emoji)} ` : "";
}

export function badge(text: string, tone: "ok" | "bad" | "wait" | "" = ""): SafeHtml {
  return html`<span class="badge ${tone}">${text}</span>`;
}

export function emptyNote(text: string): SafeHtml {
  return html`<p class="muted">${text}</p>`;
}

// --- page tree and page bodies ---

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
