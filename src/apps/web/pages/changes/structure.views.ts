/** A change request's pages: add pages and groups, rename, duplicate, move (also by drag and drop), place, delete, and open a page's settings. */

import { html, raw, type SafeHtml } from "../../../../content/html/safe-html.js";
import { indexPages, type PageNode } from "../../../../content/revision/model.js";
import type { ChangeRequestRow } from "../../../../db/schema.js";
import { emojiText } from "../../common.views.js";
import { pageLabels } from "../../page-labels.model.js";
import { TREE_SCRIPT_PATH } from "./changes.client.js";
import { CHANGES_STYLE, csrfField, type Named } from "./changes.views.js";

export interface StructureView {
  org: Named;
  space: Named;
  changeRequest: ChangeRequestRow;
  pages: PageNode[];
  notice?: string | undefined;
  /** The page whose settings were just saved, with its address as it now is. */
  saved?: { title: string; address: PageAddress };
  csrf: string;
}

/** Where a page is: its path in the space and its addresses on the published sites showing the space. */
export interface PageAddress {
  path: string;
  /** `base` is the site space's address, which the page's path follows. */
  published: { site: string; base: string; url: string }[];
}

export function addressHtml(address: PageAddress, when: string): SafeHtml {
  return html`<code class="new-path">${address.path}</code>${
    address.published.length > 0
      ? html`; ${when} ${address.published.map(
          (p, i) =>
            html`${i > 0 ? ", " : ""}<a class="new-url" href="${p.url}" data-base="${p.base}">${p.url}</a> <span class="muted">(${p.site})</span>`,
        )}`
      : ""
  }`;
}

/** A page of the tree with its depth and its ancestors' titles, root first. */
export interface FlatPage {
  page: PageNode;
  depth: number;
  ancestors: { title: string }[];
}

/** Every page with its depth and ancestors, in tree order (for the parent choices). */
export function flatten(pages: PageNode[], depth = 0, ancestors: { title: string }[] = []): FlatPage[] {
  return pages.flatMap((page) => [{ page, depth, ancestors }, ...flatten(page.children, depth + 1, [...ancestors, { title: page.title }])]);
}

export const subtreeIds = (page: PageNode): string[] => [page.id, ...page.children.flatMap(subtreeIds)];

/**
 * A choice of parent, indented by depth; pages that cannot take children (links, `excluded`) are
 * left out. Pages that share a title show their trail.
 */
export function parentOptions(all: FlatPage[], excluded: ReadonlySet<string>, selected: string | null): SafeHtml {
  const top = html`<option value="" ${selected === null ? raw("selected") : ""}>At the top level</option>`;
  const choices = all.filter(({ page }) => page.kind !== "link" && !excluded.has(page.id));
  const labels = pageLabels(choices.map(({ page, ancestors }) => ({ id: page.id, title: page.title, ancestors })));
  const options = choices.map(
    ({ page, depth }) =>
      html`<option value="${page.id}" ${selected === page.id ? raw("selected") : ""}>${"\u00a0\u00a0".repeat(depth)}${labels.get(page.id)}</option>`,
  );
  return html`${top}${options}`;
}

export function structurePage(view: StructureView): SafeHtml {
  const base = `/app/o/${view.org.id}/s/${view.space.id}/~/changes/${view.changeRequest.number}`;
  const all = flatten(view.pages);
  const paths = new Map([...indexPages(view.pages)].map(([id, location]) => [id, location.path]));
  const row = (page: PageNode, index: number, siblings: PageNode[], parentId: string | null): SafeHtml => {
    const title = page.title || "Untitled page";
    const form = (
      action: string,
      fields: SafeHtml | string,
      label: string,
      hint: string,
      options: { cls?: string; disabled?: boolean } = {},
    ) =>
      html`<form class="inline" method="post" action="${base}/p/${page.id}/${action}">${csrfField(view.csrf)}${fields}<button type="submit" class="small ${options.cls ?? ""}" title="${hint}" aria-label="${hint}" ${options.disabled ? raw("disabled") : ""}>${label}</button></form>`;
    const below = subtreeIds(page).length - 1;
    const moveTo = html`<form class="inline" method="post" action="${base}/p/${page.id}/move">${csrfField(view.csrf)}<input type="hidden" name="to" value="parent"><select name="parent" aria-label="New place for “${title}”">${parentOptions(all, new Set(subtreeIds(page)), parentId)}</select> <button type="submit" class="small">Move</button> <a class="button small" href="${base}/p/${page.id}/place" aria-label="Place “${title}” before or after another page">Place…</a></form>`;
    const rename = html`<details class="rename"><summary class="button small" aria-label="Rename “${title}”">Rename</summary><form class="inline" method="post" action="${base}/p/${page.id}/rename">${csrfField(view.csrf)}<input name="title" value="${page.title}" required maxlength="256" size="24" aria-label="New title of “${title}”"> <button type="submit" class="small">Save title</button></form></details>`;
    const duplicate =
      page.kind === "link"
        ? ""
        : form(
            "duplicate",
            "",
            "Duplicate",
            below > 0 ? `Duplicate “${title}” with its ${below} subpage${below === 1 ? "" : "s"}` : `Duplicate “${title}”`,
          );
    return html`<li id="tree-${page.id}" data-page="${page.id}" data-kind="${page.kind}"><div class="tree-row">
      <span class="tree-label"><span class="drag-handle" aria-hidden="true" title="Drag to move">⠿</span>${page.emoji ? html`<span class="tree-emoji">${emojiText(page.emoji)}</span>` : ""}<span class="tree-title">${title}</span>${page.kind === "document" ? "" : html` <span class="badge">${page.kind}</span>`}${page.hidden ? html` <span class="badge" title="Not listed in the published site's navigation">hidden</span>` : ""}
        <span class="tree-path muted">/${paths.get(page.id) ?? page.slug}</span></span>
      <span class="tree-actions">
        ${page.kind === "document" ? html`<a class="button small" href="${base}/p/${page.id}/edit">Edit</a>` : ""}
        <a class="button small" href="${base}/p/${page.id}/settings" aria-label="Settings of “${title}”">Settings</a>
        ${form("move", html`<input type="hidden" name="to" value="up">`, "↑", index === 0 ? "Already the first at its level" : `Move “${title}” up`, { disabled: index === 0 })}
        ${form("move", html`<input type="hidden" name="to" value="down">`, "↓", index === siblings.length - 1 ? "Already the last at its level" : `Move “${title}” down`, { disabled: index === siblings.length - 1 })}
        ${moveTo}
        ${rename}${duplicate}
        ${form("delete", "", below > 0 ? `Delete with ${below} subpage${below === 1 ? "" : "s"}` : "Delete", below > 0 ? `Delete with ${below} subpage${below === 1 ? "" : "s"}: “${title}”, in this change request` : `Delete “${title}” in this change request`, { cls: "danger" })}
      </span></div>
      ${page.children.length > 0 ? html`<ul>${page.children.map((child, i) => row(child, i, page.children, page.id))}</ul>` : ""}</li>`;
  };
  return html`${CHANGES_STYLE}<div class="cr-wide">
    <h1>Pages of “${view.changeRequest.subject || "Untitled change request"}” <span class="muted">#${view.changeRequest.number}</span></h1>
    <p class="muted">Each change is saved to the change request at once, as a page edit is; the space's primary content changes when the change request is merged. <a href="${base}">Back to the change request</a></p>
    ${
      view.notice
        ? html`<p class="notice" role="status">${view.notice}${view.saved ? html` “${view.saved.title}” is at ${addressHtml(view.saved.address, "once merged, readers find it at")}.` : ""}</p>`
        : ""
    }
    <form method="post" action="${base}/pages" class="card" id="add-page">${csrfField(view.csrf)}
      <h3>Add a page</h3>
      <label>Title <input name="title" required maxlength="256" size="30"></label>
      <label>Kind <select name="kind"><option value="document">Page</option><option value="group">Group of pages</option></select></label>
      <label>Place <select name="parent">${parentOptions(all, new Set(), null)}</select></label>
      <button type="submit" class="primary">Add</button></form>
    ${
      view.pages.length > 0
        ? html`<p class="muted small tree-hint">Drag a page by its handle onto another: on its upper edge to go before it, its lower edge after it, its middle under it. The buttons do the same from the keyboard.</p>
          <ul class="page-tree" data-base="${base}" data-csrf="${view.csrf}">${view.pages.map((page, i) => row(page, i, view.pages, null))}</ul>`
        : html`<p class="muted">This change request has no pages.</p>`
    }
  </div>
  <script src="${TREE_SCRIPT_PATH}" defer></script>`;
}
