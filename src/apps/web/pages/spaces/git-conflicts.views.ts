/**
 * A space's Git sync conflicts, page by page: what Git and Quire each changed since the last sync
 * (block by block, as a change request's diff), the blocks both changed side by side, and the
 * choices: keep Git's version, keep Quire's, or merge the two (choosing a side for each block both
 * changed).
 */
import type { DocumentBlock } from "../../../../content/document/types.js";
import type { ConflictVersions } from "../../../../content/git-sync/conflicts.js";
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import type { JSONDocument, MergeConflict } from "../../../../content/merge/types.js";
import { CHANGES_STYLE, type ContentView, contentStyle, csrfField } from "../changes/changes.views.js";
import { type BlockChange, blockDiff, textDiff } from "../changes/diff.model.js";

export interface ConflictPageView {
  versions: ConflictVersions;
  /** The blocks both sides changed (undefined: the blocks cannot be aligned, only keeping one side is offered). */
  blockConflicts: MergeConflict[] | undefined;
}

function changeHtml(content: ContentView, change: BlockChange): SafeHtml {
  const block = (change.after ?? change.before) as DocumentBlock;
  const detail =
    change.kind === "changed"
      ? html`<div class="textdiff">${textDiff(change.before, change.after).map((part) =>
          part.added ? html`<ins>${part.text}</ins>` : part.removed ? html`<del>${part.text}</del>` : part.text,
        )}</div>`
      : "";
  return html`<div class="block ${change.kind}" data-key="${change.key}" data-kind="${change.kind}"><span class="kind">${change.kind}</span><div class="content">${content.block(block, change.key)}</div>${detail}</div>`;
}

/** What one side changed since the base: only the blocks that changed. */
function sideDiff(
  content: ContentView,
  label: string,
  side: string,
  base: JSONDocument | undefined,
  after: JSONDocument | undefined,
): SafeHtml {
  const changes = blockDiff(base as never, after as never).filter((c) => c.kind !== "unchanged");
  return html`<div class="side-diff" data-side="${side}"><h4>${label}</h4>${changes.length === 0 ? html`<p class="muted">Nothing.</p>` : changes.map((c) => changeHtml(content, c))}</div>`;
}

function blockSide(content: ContentView, value: unknown): SafeHtml {
  if (value === undefined) return html`<p class="muted">(deleted)</p>`;
  const record = value as { object?: string };
  if (record && record.object === "block") return content.block(value as DocumentBlock, "conflict");
  return html`<pre>${JSON.stringify(value, null, 2)}</pre>`;
}

/** The merge engine's conflict kinds, said from the two sides of a sync (its messages speak of change requests). */
function blockConflictText(conflict: MergeConflict): string {
  if (conflict.kind === "delete-edit") {
    return conflict.ours === undefined ? "Quire deleted this block and Git changed it." : "Git deleted this block and Quire changed it.";
  }
  if (conflict.kind === "move") return "This block was moved to different places on each side.";
  return "This block was changed differently on each side.";
}

function pageCard(
  content: ContentView,
  action: string,
  csrf: string,
  revision: string,
  view: ConflictPageView,
  canResolve: boolean,
): SafeHtml {
  const { conflict, base, git, quire, page, include } = view.versions;
  const isInclude = conflict.target === "include";
  const target = `${action}/${encodeURIComponent(conflict.pageId)}`;
  const hidden = html`${csrfField(csrf)}<input type="hidden" name="revision" value="${revision}">`;
  // One side deleted the page (or Git moved its file): the choice keeps it or deletes it.
  const moved = conflict.kind === "deleted-in-git" ? conflict.movedTo : undefined;
  const gitLabel =
    conflict.kind === "deleted-in-git"
      ? moved
        ? "Keep Git's version (delete this copy)"
        : "Keep Git's version (delete the page)"
      : "Keep Git's version";
  const quireLabel =
    conflict.kind === "deleted-in-quire"
      ? "Keep Quire's version (delete the page)"
      : moved
        ? `Keep Quire's version (at ${moved.path})`
        : conflict.kind === "deleted-in-git"
          ? "Keep Quire's version (keep the page)"
          : "Keep Quire's version";
  const what = isInclude
    ? html`<p class="warn" data-kind="include">This reusable content (a file under <code>.gitbook/includes</code>, shown in every page that includes it) was edited both in Git and in Quire: Quire's version is kept in the space and Git's in the branch until you choose.</p>`
    : conflict.kind === "deleted-in-git"
      ? moved
        ? html`<p class="warn" data-kind="moved-in-git">Git moved this page's file to <code>${moved.path}</code> and Quire edited the page: Quire's version is kept here until you choose.</p>`
        : html`<p class="warn" data-kind="deleted-in-git">Git deleted this page's file and Quire edited the page: the page is kept in the space until you choose.</p>`
      : conflict.kind === "deleted-in-quire"
        ? page
          ? html`<p class="warn" data-kind="deleted-in-quire">Quire deleted this page and Git edited its file: Git's version is back in the space until you choose.</p>`
          : html`<p class="warn" data-kind="deleted-in-quire">Quire deleted this page and Git edited its file: Git's file stays in the branch until you choose. Keeping Git's version brings the page back into the space (at the top level); keeping Quire's lets the next export delete the file.</p>`
        : "";
  const keepForms = canResolve
    ? html`<div class="choices">
        <form method="post" action="${target}">${hidden}<input type="hidden" name="keep" value="git"><button type="submit">${gitLabel}</button></form>
        <form method="post" action="${target}">${hidden}<input type="hidden" name="keep" value="quire"><button type="submit">${quireLabel}</button></form></div>`
    : html`<p class="muted small">Only members who can edit this space can resolve its conflicts.</p>`;
  const blocks = view.blockConflicts;
  const mergeForm =
    conflict.kind && !moved
      ? ""
      : blocks === undefined
        ? html`<p class="muted">The two versions cannot be merged block by block: keep one of them.</p>`
        : html`<form method="post" action="${target}" class="merge-form">${hidden}<input type="hidden" name="keep" value="merge">
          <h4>Merge (${blocks.length === 0 ? "no block was changed by both sides" : `${blocks.length} block(s) changed by both sides: choose one side for each`})</h4>
          ${blocks.map(
            (c, i) => html`<div class="card conflict-item" data-block="${c.blockKey ?? ""}"><p class="small">${blockConflictText(c)}</p>
              <div class="conflict"><div><h4>Before both (last sync)</h4>${blockSide(content, c.base)}</div><div><h4>Quire</h4>${blockSide(content, c.ours)}</div><div><h4>Git</h4>${blockSide(content, c.theirs)}</div></div>
              ${c.blockKey ? html`<p><label><input type="radio" name="block.${c.blockKey}" value="quire" checked> Quire's</label> <label><input type="radio" name="block.${c.blockKey}" value="git"> Git's</label></p>` : html`<input type="hidden" name="unkeyed.${i}" value="">`}</div>`,
          )}
          ${canResolve ? html`<button class="primary" type="submit">Merge</button>` : ""}</form>`;
  return html`<section class="card git-conflict" id="conflict-${conflict.pageId}" data-page="${conflict.pageId}" data-target="${isInclude ? "include" : "page"}">
    <h3>${include?.title ?? page?.title ?? conflict.title}</h3>
    <p class="muted small"><code>${conflict.path}</code> · Git commit <code>${conflict.commit.slice(0, 12)}</code>${conflict.direction === "export" ? " · found by an export" : ""}</p>
    ${what}${
      page || include
        ? ""
        : isInclude
          ? html`<p class="warn">This reusable content was deleted in Quire since: choosing closes the conflict.</p>`
          : conflict.kind === "deleted-in-quire"
            ? ""
            : html`<p class="warn">This page was deleted in Quire since: choosing closes the conflict.</p>`
    }
    <div class="conflict two">${sideDiff(content, "What Quire changed since the last sync", "quire", base, quire)}${sideDiff(content, "What Git changed since the last sync", "git", base, git)}</div>
    ${keepForms}${mergeForm}</section>`;
}

export function gitConflictsBody(view: {
  conflicts: ConflictPageView[];
  content: ContentView;
  action: string;
  spaceHref: string;
  csrf: string;
  revision: string;
  canResolve: boolean;
  notice?: string | undefined;
}): SafeHtml {
  const intro =
    view.conflicts.length === 0
      ? html`<p>No page is in conflict: every import and export applied both sides. <a href="${view.spaceHref}#git">Back to the space</a></p>`
      : html`<p>These pages (and reusable contents) were edited both in Git and in Quire since the last sync (or edited on one side and deleted or moved on the other). Nothing of either side is lost: the space keeps Quire's version and the branch Git's until you choose. The choice becomes a revision of the space, which the next export writes to the branch.</p>`;
  return html`${CHANGES_STYLE}${contentStyle()}<style>.conflict.two { grid-template-columns: repeat(2, minmax(0, 1fr)); } .choices { display: flex; gap: .5rem; margin: .6rem 0; } .merge-form { border-top: 1px solid var(--line, #d0d7de); margin-top: .6rem; }</style>
    <h1>Git conflicts</h1>${view.notice ? html`<p class="notice">${view.notice}</p>` : ""}${intro}
    ${view.conflicts.map((c) => pageCard(view.content, view.action, view.csrf, view.revision, c, view.canResolve))}`;
}

/** Notices after a resolution (by the query's value, never text from the URL). */
export function conflictNotice(value: string | undefined): string | undefined {
  if (value === "git") return "Git's version was kept.";
  if (value === "quire") return "Quire's version was kept.";
  if (value === "merge") return "The two versions were merged.";
  return undefined;
}
