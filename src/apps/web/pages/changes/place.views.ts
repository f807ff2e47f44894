/** Placing a page: the pages under a chosen parent, with a "Place here" button between each two. */

import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import type { PageNode } from "../../../../content/revision/model.js";
import type { ChangeRequestRow } from "../../../../db/schema.js";
import { emojiText } from "../../common.views.js";
import { SETTINGS_SCRIPT_PATH } from "./changes.client.js";
import { CHANGES_STYLE, csrfField, type Named } from "./changes.views.js";
import { flatten, parentOptions, subtreeIds } from "./structure.views.js";

export interface PlaceView {
  org: Named;
  space: Named;
  changeRequest: ChangeRequestRow;
  pages: PageNode[];
  page: PageNode;
  currentParentId: string | null;
  /** The parent whose pages are shown (null: the top level). */
  parentId: string | null;
  parentTitle?: string | undefined;
  siblings: PageNode[];
  csrf: string;
}

/** The pages under a chosen parent with a "Place here" button between each two. */
export function placePage(view: PlaceView): SafeHtml {
  const base = `/app/o/${view.org.id}/s/${view.space.id}/~/changes/${view.changeRequest.number}`;
  const title = view.page.title || "Untitled page";
  const others = view.siblings.filter((p) => p.id !== view.page.id);
  // Where it is now, among `others` (only under its own parent): that slot needs no button.
  const now = view.parentId === view.currentParentId ? view.siblings.findIndex((p) => p.id === view.page.id) : -1;
  const slot = (at: number) => {
    const [side, neighbour] = at < others.length ? (["before", others[at]!] as const) : (["after", others[at - 1]!] as const);
    if (at === now) return html`<li class="slot here"><span class="muted">“${title}” is here now</span></li>`;
    const label = neighbour ? `Place “${title}” ${side} “${neighbour.title || "Untitled page"}”` : `Place “${title}” here`;
    return html`<li class="slot"><form class="inline" method="post" action="${base}/p/${view.page.id}/move">${csrfField(view.csrf)}<input type="hidden" name="to" value="parent"><input type="hidden" name="parent" value="${view.parentId ?? ""}">${neighbour ? html`<input type="hidden" name="${side}" value="${neighbour.id}">` : ""}<button type="submit" class="small" aria-label="${label}">Place here</button></form></li>`;
  };
  const items: SafeHtml[] = [];
  for (let at = 0; at <= others.length; at++) {
    items.push(slot(at));
    const sibling = others[at];
    if (sibling) items.push(html`<li class="sibling">${emojiText(sibling.emoji)}${sibling.title || "Untitled page"}</li>`);
  }
  const where = view.parentId === null ? "at the top level" : `under “${view.parentTitle || "Untitled page"}”`;
  return html`${CHANGES_STYLE}<div class="cr-wide">
    <h1>Place “${title}”</h1>
    <p class="muted">Choose where it goes: under which page, then before or after which of the pages there. Its subpages move with it. <a href="${base}/pages">Back to the pages</a></p>
    <form method="get" action="${base}/p/${view.page.id}/place" class="card" id="place-parent">
      <label>Under <select name="parent" aria-label="Under which page">${parentOptions(flatten(view.pages), new Set(subtreeIds(view.page)), view.parentId)}</select></label>
      <button type="submit" id="show-places">Show the places there</button></form>
    <h2>Pages ${where}</h2>
    <ul class="place-list">${items}</ul></div>
    <script src="${SETTINGS_SCRIPT_PATH}" defer></script>`;
}
