/**
 * What every change-request page shares: its stylesheet, breadcrumbs, the CSRF field of its forms,
 * status badges, people's names, and the notices shown after an action.
 */

import type { DocumentBlock, JSONDocument } from "../../../../content/document/types.js";
import { html, raw, type SafeHtml } from "../../../../content/html/safe-html.js";
import type { ChangeRequestRow, UserRow } from "../../../../db/schema.js";
import { appAssets } from "../../web.assets.js";

// Colours come from the layout's variables when it has them; additions, removals and edits are
// translucent tints, so they read on light and dark backgrounds alike.
export const CHANGES_STYLE = raw(`<style>
  .badge { display: inline-block; padding: 0 .5rem; border-radius: 1rem; font-size: .8rem; border: 1px solid var(--line, #d0d7de); vertical-align: middle; }
  .badge.open, .badge.approved, .badge.added { background: rgba(46, 160, 67, .15); border-color: #2da44e; }
  .badge.merged { background: rgba(130, 80, 223, .15); border-color: #8250df; }
  .badge.archived { background: rgba(251, 143, 68, .15); border-color: #fb8f44; }
  .badge.changes-requested, .badge.removed { background: rgba(248, 81, 73, .15); border-color: #f85149; }
  .badge.changed, .badge.moved, .badge.renamed { background: rgba(212, 167, 44, .18); border-color: #d4a72c; }
  .cr-grid { display: grid; grid-template-columns: minmax(0, 1fr) 18rem; gap: 1.5rem; align-items: start; }
  @media (max-width: 800px) { .cr-grid { grid-template-columns: minmax(0, 1fr); } }
  .side .card h3 { margin: 0 0 .4rem; font-size: 1rem; }
  .block { border-left: 4px solid transparent; padding: .1rem .75rem; margin: .3rem 0; display: flow-root; }
  .block.added { border-color: #2da44e; background: rgba(46, 160, 67, .08); } .block.removed { border-color: #f85149; background: rgba(248, 81, 73, .08); }
  .block.changed, .block.moved { border-color: #d4a72c; background: rgba(212, 167, 44, .08); }
  .block.removed > .content { text-decoration: line-through; text-decoration-color: rgba(207, 34, 46, .5); opacity: .8; }
  .block .kind { float: right; margin: .2rem 0 0 .5rem; font-size: .75rem; color: var(--muted, #59636e); }
  .block .q-content { padding: 0; }
  ins { background: rgba(46, 160, 67, .3); text-decoration: none; } del { background: rgba(248, 81, 73, .3); }
  .textdiff { white-space: pre-wrap; font-size: .9rem; border-top: 1px dashed var(--line, #d0d7de); margin-top: .3rem; padding-top: .3rem; }
  .textdiff ins, .textdiff del { padding: 0 1px; margin: 0 1px; border-radius: 2px; }
  .unchanged-run summary { color: var(--muted, #59636e); cursor: pointer; font-size: .9rem; }
  .comment { border: 1px solid var(--line, #d0d7de); border-radius: 6px; padding: .4rem .75rem; margin: .4rem 0; }
  .comment.resolved { opacity: .7; } .comment .meta { font-size: .85rem; color: var(--muted, #59636e); margin: .3rem 0; }
  div.meta { display: flex; justify-content: space-between; align-items: center; gap: .5rem; } div.meta button { font-size: .8rem; padding: .1rem .5rem; }
  h3 a.button { font-size: .8rem; font-weight: normal; padding: .1rem .6rem; margin-left: .3rem; }
  .reply { margin-left: 1.25rem; border-left: 2px solid var(--line, #d0d7de); padding-left: .6rem; margin-top: .4rem; }
  .reactions { display: flex; gap: .3rem; flex-wrap: wrap; align-items: center; margin: .3rem 0; }
  .reactions button { padding: 0 .4rem; font-size: .85rem; } .reactions button.mine { background: rgba(84, 174, 255, .2); border-color: #54aeff; }
  details.comment-here > summary { font-size: .8rem; color: var(--accent, #0969da); cursor: pointer; list-style: none; }
  textarea { width: 100%; box-sizing: border-box; font: inherit; }
  .conflict { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: .5rem; }
  @media (max-width: 800px) { .conflict { grid-template-columns: minmax(0, 1fr); } }
  .conflict > div { border: 1px solid var(--line, #d0d7de); border-radius: 6px; padding: .4rem .6rem; overflow-x: auto; }
  .conflict h4 { margin: 0 0 .3rem; font-size: .85rem; color: var(--muted, #59636e); }
  .conflict pre { overflow-x: auto; padding: .5rem; border-radius: 6px; border: 1px solid var(--line, #d0d7de); }
  .notice { background: rgba(84, 174, 255, .15); border: 1px solid #54aeff; border-radius: 6px; padding: .5rem .75rem; }
  .warn { background: rgba(212, 167, 44, .15); border: 1px solid #d4a72c; border-radius: 6px; padding: .5rem .75rem; }
  .filters a { margin-right: .6rem; } .filters a.current { font-weight: 600; text-decoration: none; color: inherit; }
  .editor { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1rem; }
  @media (max-width: 800px) { .editor { grid-template-columns: minmax(0, 1fr); } }
  .editor textarea { min-height: 28rem; font-family: ui-monospace, monospace; font-size: .9rem; }
  .preview { border: 1px solid var(--line, #d0d7de); border-radius: 6px; padding: .5rem 1rem; min-height: 28rem; overflow-x: auto; }
  button.primary { background: #1f883d; color: #fff; border-color: #1f883d; } button.danger { color: #cf222e; }
  button[disabled] { opacity: .5; cursor: not-allowed; } button.small, a.button.small { font-size: .8rem; padding: .05rem .5rem; }
  .page-tree, .page-tree ul { list-style: none; padding-left: 0; } .page-tree ul { margin-left: 1.5rem; border-left: 2px solid var(--line, #d0d7de); padding-left: .5rem; }
  .tree-row { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; gap: .4rem; padding: .3rem .5rem; border-bottom: 1px solid var(--line, #d0d7de); }
  .tree-path { font-size: .8rem; margin-left: .4rem; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
  form.settings label { display: block; margin-top: .6rem; } form.settings input:not([type]), form.settings textarea { display: block; width: 100%; max-width: 36rem; box-sizing: border-box; }
  form.settings label.check { display: flex; gap: .4rem; align-items: baseline; } .hint { font-size: .85rem; color: var(--muted, #59636e); margin: .2rem 0 .4rem; overflow-wrap: anywhere; }
  .field-error { display: block; color: #cf222e; font-size: .9rem; margin-top: .2rem; } [aria-invalid="true"] { border-color: #cf222e; outline: 1px solid #cf222e; }
  .place-list { list-style: none; padding-left: 0; } .place-list .sibling { padding: .35rem .6rem; border: 1px solid var(--line, #d0d7de); border-radius: 6px; }
  .place-list .slot { padding: .15rem 0 .15rem 1rem; } .place-list .slot.here { font-size: .85rem; }
  .drag-handle { display: none; cursor: grab; color: var(--muted, #59636e); margin-right: .35rem; user-select: none; }
  .page-tree.dnd .drag-handle { display: inline; } .page-tree li.dragging > .tree-row { opacity: .45; }
  .tree-row.drop-before { box-shadow: inset 0 3px 0 var(--accent, #0969da); } .tree-row.drop-after { box-shadow: inset 0 -3px 0 var(--accent, #0969da); }
  .tree-row.drop-inside { outline: 2px dashed var(--accent, #0969da); outline-offset: -2px; }
  details.rename { display: inline-block; } details.rename > summary { list-style: none; font-size: .8rem; padding: .05rem .5rem; } details.rename > summary::-webkit-details-marker { display: none; }
  details.rename[open] { display: flex; gap: .3rem; align-items: center; } .tree-actions input[name="title"] { font-size: .85rem; padding: .1rem .3rem; }
  .tree-row:hover { background: rgba(84, 174, 255, .08); } .tree-actions { display: flex; flex-wrap: wrap; gap: .3rem; align-items: center; } .tree-actions select { width: 11rem; font-size: .8rem; padding: .1rem .3rem; }
</style>`);

export interface Named {
  id: string;
  title: string;
}

export const nameOf = (users: ReadonlyMap<string, UserRow>, id: string | null | undefined) =>
  (id && users.get(id)?.displayName) ?? "a former member";

/** A time as `2026-11-25 15:45` (UTC). */
export const day = (iso: string) => iso.slice(0, 16).replace("T", " ");

/** The layout's breadcrumbs: organization, space, its change requests, and the change request. */
export function crumbTrail(org: Named, space: Named, changeRequest?: Pick<ChangeRequestRow, "number">, last?: string) {
  const base = `/app/o/${org.id}/s/${space.id}`;
  return [
    { label: org.title, href: `/app/o/${org.id}` },
    { label: space.title || "Untitled space", href: base },
    { label: "Change requests", href: `${base}/~/changes` },
    ...(changeRequest ? [{ label: `#${changeRequest.number}`, href: `${base}/~/changes/${changeRequest.number}` }] : []),
    ...(last ? [{ label: last }] : []),
  ];
}

export const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`;

export function statusBadge(status: string): SafeHtml {
  const label = status === "open" ? "in review" : status;
  return html`<span class="badge ${status}">${label}</span>`;
}

/** Notices after an action on a change request, by the `done` query value the redirect carries (never text from the URL). */
export const NOTICES: Record<string, string> = {
  created: "Change request created. Edit pages from the panel on the right.",
  commented: "Comment posted.",
  replied: "Reply posted.",
  resolved: "Comment resolved.",
  reopened: "Comment reopened.",
  reacted: "Reaction saved.",
  reviewers: "Review requested.",
  withdrawn: "Review request withdrawn.",
  declined: "You declined the review request.",
  reviewed: "Review submitted.",
  merged: "Merged into the primary content.",
  conflicts: "It was not merged: the primary content has conflicting changes (listed below).",
  updated: "Updated from the primary content.",
  "update-conflicts": "It was not updated: the primary content has conflicting changes (listed below).",
  saved: "Page saved in the change request.",
  status: "Status changed.",
  details: "Subject and description saved.",
};

/** Notices of the pages editor, by the `done` query value. */
export const STRUCTURE_NOTICES: Record<string, string> = {
  "page-added": "Page added to the change request.",
  "group-added": "Group added to the change request.",
  "page-renamed": "Page renamed in the change request.",
  "page-duplicated": "Page duplicated in the change request.",
  "page-moved": "Page moved in the change request.",
  "page-deleted": "Page deleted from the change request.",
  "page-saved": "Page settings saved in the change request.",
  "page-unchanged": "Nothing to save: the settings were already so.",
};

export interface ContentView {
  /** One block, as it renders inside its page. */
  block(block: DocumentBlock, key: string): SafeHtml;
  /** A whole document (a conflict's version, a comment, the preview). */
  body(document: JSONDocument | undefined, idPrefix?: string): SafeHtml;
}

/** The renderer's stylesheets and script, as the app serves them (web.assets.ts, fingerprinted). */
export function contentStyle(): SafeHtml {
  const { prefix } = appAssets();
  return html`<link rel="stylesheet" href="${prefix}/content.css"><link rel="stylesheet" href="${prefix}/katex/katex.min.css"><script defer src="${prefix}/content.js"></script>`;
}
