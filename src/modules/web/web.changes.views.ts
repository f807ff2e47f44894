/**
 * The change-request pages of the web app as HTML, from what web.changes.routes.ts loaded: pure
 * functions, every value escaped by `html`. Forms post to the routes of that file with the
 * session's CSRF token; a button is only shown when the same policy the API applies would allow
 * the action (the routes check again on post).
 */
import type { DocumentBlock, JSONDocument } from "../../content/document/types.js";
import { indexPages, type PageNode } from "../../content/revision/model.js";
import type { ChangeRequestReviewRow, ChangeRequestRow, RequestedReviewerRow, UserRow } from "../../db/schema.js";
import { emojiText } from "./web.browse.views.js";
import { type BlockChange, blockDiff, movedAndChanged, textDiff } from "./web.changes.diff.js";
import { type ContentView, contentStyle } from "./web.changes.render.js";
import { html, raw, type SafeHtml } from "./web.html.js";

export const QUICK_REACTIONS = ["👍", "🎉", "❤️", "👀"] as const;

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
  .tree-row:hover { background: rgba(84, 174, 255, .08); } .tree-actions { display: flex; flex-wrap: wrap; gap: .3rem; align-items: center; } .tree-actions select { width: 11rem; font-size: .8rem; padding: .1rem .3rem; }
</style>`);

export interface Named {
  id: string;
  title: string;
}

export const nameOf = (users: ReadonlyMap<string, UserRow>, id: string | null | undefined) =>
  (id && users.get(id)?.displayName) ?? "a former member";

const day = (iso: string) => iso.slice(0, 16).replace("T", " ");

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

// ---- list ------------------------------------------------------------------------------------------

export interface ListView {
  org: Named;
  space: Named;
  status: string;
  creator?: string | undefined;
  mine: { id: string };
  rows: { row: ChangeRequestRow; author: string; comments: number }[];
  next?: string | undefined;
  query: Record<string, string | undefined>;
  mayCreate: boolean;
  csrf: string;
}

export function listPage(view: ListView): SafeHtml {
  const base = `/app/o/${view.org.id}/s/${view.space.id}/~/changes`;
  const link = (changes: Record<string, string | undefined>) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...view.query, page: undefined, ...changes })) if (v) params.set(k, v);
    const text = params.toString();
    return text ? `${base}?${text}` : base;
  };
  const statuses = ["open", "draft", "merged", "archived"].map(
    (s) =>
      html`<a class="${view.status === s ? "current" : ""}" href="${link({ status: s })}">${s === "open" ? "In review" : s[0]!.toUpperCase() + s.slice(1)}</a>`,
  );
  const who = [
    html`<a class="${!view.query.creator && !view.query.requestedReviewer && !view.query.contributor ? "current" : ""}" href="${link({ creator: undefined, requestedReviewer: undefined, contributor: undefined })}">Everyone's</a>`,
    html`<a class="${view.query.creator === view.mine.id ? "current" : ""}" href="${link({ creator: view.mine.id, requestedReviewer: undefined, contributor: undefined })}">Created by me</a>`,
    html`<a class="${view.query.requestedReviewer === view.mine.id ? "current" : ""}" href="${link({ requestedReviewer: view.mine.id, creator: undefined, contributor: undefined })}">Waiting for my review</a>`,
    html`<a class="${view.query.contributor === view.mine.id ? "current" : ""}" href="${link({ contributor: view.mine.id, creator: undefined, requestedReviewer: undefined })}">I contributed to</a>`,
  ];
  const rows = view.rows.map(
    ({ row, author, comments }) => html`<tr data-number="${row.number}">
      <td>#${row.number}</td>
      <td><a href="${base}/${row.number}">${row.subject || "Untitled change request"}</a></td>
      <td>${statusBadge(row.status)}</td><td>${author}</td><td>${comments > 0 ? `${comments} open comment${comments === 1 ? "" : "s"}` : ""}</td><td class="muted">${day(row.updatedAt)}</td></tr>`,
  );
  const create = view.mayCreate
    ? html`<form method="post" action="${base}" class="card">${csrfField(view.csrf)}
        <label>New change request <input name="subject" maxlength="100" placeholder="What does it change?" size="40"></label>
        <button type="submit" class="primary">Create</button></form>`
    : "";
  return html`${CHANGES_STYLE}<div class="cr-wide">
    <h1>Change requests</h1>
    ${create}
    <p class="filters">Status: ${statuses}</p>
    <p class="filters">Show: ${who}</p>
    ${
      rows.length > 0
        ? html`<table><thead><tr><th>#</th><th>Subject</th><th>Status</th><th>Author</th><th>Comments</th><th>Updated (UTC)</th></tr></thead><tbody>${rows}</tbody></table>`
        : html`<p class="muted">No change requests here.</p>`
    }
    ${view.next ? html`<p><a href="${`${link({})}${link({}).includes("?") ? "&" : "?"}page=${encodeURIComponent(view.next)}`}">Older change requests →</a></p>` : ""}</div>`;
}

// ---- detail ----------------------------------------------------------------------------------------

export interface CommentView {
  id: string;
  pageId: string | null;
  nodeKey: string | null;
  reviewId: string | null;
  postedBy: string;
  postedAt: string;
  status: string;
  resolvedBy: string | null;
  body: JSONDocument;
  reactions: { emoji: string; userIds: string[] }[];
  replies: { id: string; postedBy: string; postedAt: string; body: JSONDocument; reactions: { emoji: string; userIds: string[] }[] }[];
  mayReply: boolean;
}

export interface PageChangeView {
  pageId: string;
  title: string;
  path: string;
  kinds: ("added" | "removed" | "moved" | "renamed" | "edited")[];
  /** Field changes other than the document (title before/after, slug ...). */
  fields: { name: string; before?: unknown; after?: unknown }[];
  before?: JSONDocument | undefined;
  after?: JSONDocument | undefined;
  /** The page exists in the change request (comments and edits can target it). */
  inHead: boolean;
  isDocument: boolean;
}

export interface ConflictView {
  message: string;
  kind: string;
  pageTitle?: string | undefined;
  field?: string | undefined;
  base?: unknown;
  primary?: unknown;
  changeRequest?: unknown;
}

export interface DetailView {
  org: Named;
  space: Named;
  changeRequest: ChangeRequestRow;
  description: JSONDocument | undefined;
  /** The description as Markdown, for its edit form. */
  descriptionMarkdown: string;
  users: ReadonlyMap<string, UserRow>;
  actorId: string;
  outdated: boolean;
  writable: boolean;
  /** The space's editMode is "locked": no content writes or merges. */
  locked: boolean;
  may: { editContent: boolean; update: boolean; merge: boolean; review: boolean; comment: boolean };
  requested: RequestedReviewerRow[];
  reviews: ChangeRequestReviewRow[];
  candidates: UserRow[];
  /** Why merging is refused now (merge rules, locked space ...); undefined when it is allowed. */
  mergeBlocked?: string | undefined;
  conflicts: ConflictView[];
  pages: PageChangeView[];
  otherChanges: string[];
  comments: CommentView[];
  headPages: { id: string; title: string; path: string }[];
  notice?: string | undefined;
  /** Renders documents of this change request. */
  content: ContentView;
  csrf: string;
}

function reactionBar(view: DetailView, base: string, comment: CommentView, reply?: CommentView["replies"][number]): SafeHtml {
  const reactions = (reply ?? comment).reactions;
  const target = reply ? `${base}/comments/${comment.id}/replies/${reply.id}/react` : `${base}/comments/${comment.id}/react`;
  const shown = new Set(reactions.map((r) => r.emoji));
  const button = (emoji: string, count: number, mine: boolean) =>
    comment.mayReply
      ? html`<form class="inline" method="post" action="${target}">${csrfField(view.csrf)}<input type="hidden" name="emoji" value="${emoji}"><input type="hidden" name="action" value="${mine ? "remove" : "add"}"><button type="submit" class="${mine ? "mine" : ""}" title="${mine ? "Remove your reaction" : "React"}">${emoji}${count > 0 ? ` ${count}` : ""}</button></form>`
      : html`<span class="badge">${emoji} ${count}</span>`;
  const existing = reactions.map((r) => button(r.emoji, r.userIds.length, r.userIds.includes(view.actorId)));
  const more = comment.mayReply ? QUICK_REACTIONS.filter((e) => !shown.has(e)).map((e) => button(e, 0, false)) : [];
  if (existing.length === 0 && more.length === 0) return html``;
  return html`<div class="reactions">${existing}${more}</div>`;
}

function commentHtml(view: DetailView, base: string, comment: CommentView): SafeHtml {
  const review = comment.reviewId ? view.reviews.find((r) => r.id === comment.reviewId) : undefined;
  const replies = comment.replies.map(
    (
      reply,
    ) => html`<div class="reply" id="reply-${reply.id}"><p class="meta"><strong>${nameOf(view.users, reply.postedBy)}</strong> · ${day(reply.postedAt)}</p>
      ${view.content.body(reply.body)}${reactionBar(view, base, comment, reply)}</div>`,
  );
  const resolveForm = comment.mayReply
    ? html`<form class="inline" method="post" action="${base}/comments/${comment.id}/resolve">${csrfField(view.csrf)}<input type="hidden" name="resolved" value="${comment.status === "resolved" ? "false" : "true"}"><button type="submit">${comment.status === "resolved" ? "Reopen" : "Resolve"}</button></form>`
    : "";
  const replyForm = comment.mayReply
    ? html`<details><summary class="muted">Reply</summary><form method="post" action="${base}/comments/${comment.id}/replies">${csrfField(view.csrf)}
        <textarea name="body" rows="3" required maxlength="20000" aria-label="Reply"></textarea><button type="submit">Reply</button></form></details>`
    : "";
  return html`<div class="comment ${comment.status}" id="comment-${comment.id}" data-comment="${comment.id}">
    <div class="meta"><span><strong>${nameOf(view.users, comment.postedBy)}</strong> · ${day(comment.postedAt)}${
      review ? html` · ${statusBadge(review.status)}` : ""
    }${comment.status === "resolved" ? html` · resolved by ${nameOf(view.users, comment.resolvedBy)}` : ""}</span> ${resolveForm}</div>
    ${view.content.body(comment.body)}${reactionBar(view, base, comment)}${replies}${replyForm}</div>`;
}

function commentForm(view: DetailView, base: string, target: { page?: string; node?: string }, label: string): SafeHtml {
  if (!view.may.comment) return html``;
  return html`<details class="comment-here"><summary>${label}</summary><form method="post" action="${base}/comments">${csrfField(view.csrf)}
    ${target.page ? html`<input type="hidden" name="page" value="${target.page}">` : ""}${target.node ? html`<input type="hidden" name="node" value="${target.node}">` : ""}
    <textarea name="body" rows="3" required maxlength="20000" aria-label="${label}"></textarea><button type="submit">Comment</button></form></details>`;
}

function blockHtml(view: DetailView, base: string, page: PageChangeView, change: BlockChange, comments: CommentView[]): SafeHtml {
  const block = (change.after ?? change.before) as DocumentBlock;
  const kind = change.kind === "moved" && movedAndChanged(change) ? "moved and changed" : change.kind;
  const detail =
    change.kind === "changed" || (change.kind === "moved" && movedAndChanged(change))
      ? html`<div class="textdiff" aria-label="What changed in the text">${textDiff(change.before, change.after).map((part) =>
          part.added ? html`<ins>${part.text}</ins>` : part.removed ? html`<del>${part.text}</del>` : part.text,
        )}</div>`
      : "";
  const here = comments.filter((c) => c.nodeKey === change.key);
  const mayTarget = change.kind !== "removed" && page.inHead;
  return html`<div class="block ${change.kind}" data-key="${change.key}" data-kind="${change.kind}">
    ${change.kind === "unchanged" ? "" : html`<span class="kind">${kind}</span>`}
    <div class="content">${view.content.block(block, change.key)}</div>${detail}
    ${here.map((c) => commentHtml(view, base, c))}
    ${mayTarget ? commentForm(view, base, { page: page.pageId, node: change.key }, "Comment on this block") : ""}</div>`;
}

function pageDiffHtml(view: DetailView, base: string, page: PageChangeView): SafeHtml {
  const comments = view.comments.filter((c) => c.pageId === page.pageId);
  const diff = page.isDocument ? blockDiff(page.before, page.after) : [];
  const parts: SafeHtml[] = [];
  let run: BlockChange[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const blocks = run.map((c) => blockHtml(view, base, page, c, comments));
    parts.push(
      run.length <= 2
        ? html`${blocks}`
        : html`<details class="unchanged-run"><summary>${run.length} unchanged blocks</summary>${blocks}</details>`,
    );
    run = [];
  };
  for (const change of diff) {
    const commented = comments.some((c) => c.nodeKey === change.key);
    if (change.kind === "unchanged" && !commented) run.push(change);
    else {
      flush();
      parts.push(blockHtml(view, base, page, change, comments));
    }
  }
  flush();
  const keys = new Set(diff.map((c) => c.key));
  const pageComments = comments.filter((c) => !c.nodeKey || !keys.has(c.nodeKey));
  const fields = page.fields.map(
    (f) =>
      html`<li>${f.name}: ${f.before !== undefined ? html`<del>${show(f.before)}</del>` : ""} ${f.after !== undefined ? html`<ins>${show(f.after)}</ins>` : ""}</li>`,
  );
  const edit =
    view.may.editContent && view.writable && page.inHead && page.isDocument
      ? html`<a class="button" href="${base}/p/${page.pageId}/edit">Edit</a>`
      : "";
  return html`<section class="card" id="page-${page.pageId}" data-page="${page.pageId}">
    <h3>${page.title || "Untitled page"} ${page.kinds.map((k) => html`<span class="badge ${k === "edited" ? "changed" : k}">${k}</span> `)} ${edit}</h3>
    <p class="muted">${page.path}</p>
    ${fields.length > 0 ? html`<ul>${fields}</ul>` : ""}
    ${page.isDocument ? (diff.some((c) => c.kind !== "unchanged") ? parts : html`<p class="muted">The text of this page did not change.</p>${parts}`) : html`<p class="muted">Not a document page.</p>`}
    ${pageComments.map((c) => commentHtml(view, base, c))}
    ${page.inHead ? commentForm(view, base, { page: page.pageId }, "Comment on this page") : ""}
  </section>`;
}

function show(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

function conflictSide(content: ContentView, value: unknown): SafeHtml {
  if (value === undefined) return html`<p class="muted">(absent)</p>`;
  if (typeof value === "object" && value !== null) {
    const record = value as { object?: string; nodes?: unknown[] };
    if (record.object === "document") return content.body(value as JSONDocument);
    if (record.object === "block") return content.block(value as DocumentBlock, "conflict");
    return html`<pre>${JSON.stringify(value, null, 2)}</pre>`;
  }
  return html`<p>${String(value)}</p>`;
}

function conflictsHtml(view: DetailView): SafeHtml {
  if (view.conflicts.length === 0) return html``;
  return html`<section id="conflicts"><h2>Conflicts with the primary content (${view.conflicts.length})</h2>
    <p class="muted">The primary content changed the same things since this change request started. Edit the pages below in this change request (keep the version you want), then merge again.</p>
    ${view.conflicts.map(
      (c) => html`<div class="card conflict-item"><p><strong>${c.pageTitle ?? c.kind}</strong>: ${c.message}</p>
        <div class="conflict"><div><h4>Before both (base)</h4>${conflictSide(view.content, c.base)}</div><div><h4>Primary content now</h4>${conflictSide(view.content, c.primary)}</div><div><h4>This change request</h4>${conflictSide(view.content, c.changeRequest)}</div></div></div>`,
    )}</section>`;
}

function sidebar(view: DetailView, base: string): SafeHtml {
  const cr = view.changeRequest;
  const reviews = view.reviews.map((r) => html`<li>${nameOf(view.users, r.reviewerId)} ${statusBadge(r.status)}</li>`);
  // The same rule as the service: the creator and reviewer-level members withdraw, the reviewer declines.
  const withdraw = (userId: string) =>
    view.writable && (view.may.update || userId === view.actorId)
      ? html` <form class="inline" method="post" action="${base}/reviewers/${userId}/withdraw">${csrfField(view.csrf)}<button type="submit" class="small" title="${userId === view.actorId ? "Decline this review request" : `Withdraw the review request to ${nameOf(view.users, userId)}`}">${userId === view.actorId ? "Decline" : "Remove"}</button></form>`
      : "";
  const requested = view.requested.map(
    (r) =>
      html`<li data-requested="${r.userId}">${nameOf(view.users, r.userId)} <span class="muted">(waiting)</span>${withdraw(r.userId)}</li>`,
  );
  const requestForm =
    view.may.update && view.writable && view.candidates.length > 0
      ? html`<details><summary>Request reviewers</summary><form method="post" action="${base}/reviewers">${csrfField(view.csrf)}
          ${view.candidates.map((u) => html`<label style="display:block"><input type="checkbox" name="users" value="${u.id}"> ${u.displayName}</label>`)}
          <button type="submit">Request review</button></form></details>`
      : "";
  const reviewForm =
    view.may.review && view.writable
      ? html`<form method="post" action="${base}/reviews" id="review-form">${csrfField(view.csrf)}
          <textarea name="comment" rows="3" maxlength="20000" placeholder="Leave a comment (optional)" aria-label="Review comment"></textarea>
          <button type="submit" name="status" value="approved" class="primary">Approve</button>
          <button type="submit" name="status" value="changes-requested">Request changes</button></form>`
      : "";
  const merge =
    cr.status === "merged"
      ? html`<p>Merged ${cr.mergedAt ? day(cr.mergedAt) : ""}.</p>`
      : !view.writable
        ? html`<p class="muted">Archived: reopen it to merge.</p>`
        : !view.may.merge
          ? html`<p class="muted">${view.locked ? "The space is locked: nothing is merged until an admin unlocks it." : "Merging needs the review level on this space."}</p>`
          : html`${view.mergeBlocked ? html`<p class="error" id="merge-blocked">${view.mergeBlocked}</p>` : ""}
            ${view.conflicts.length > 0 ? html`<p class="error">${view.conflicts.length} conflict${view.conflicts.length === 1 ? "" : "s"} with the primary content: <a href="#conflicts">see them</a>.</p>` : ""}
            ${!view.mergeBlocked && view.conflicts.length === 0 ? html`<p>Ready to merge.</p>` : ""}
            <form method="post" action="${base}/merge">${csrfField(view.csrf)}<button type="submit" class="primary" ${view.mergeBlocked || view.conflicts.length > 0 ? raw("disabled") : ""}>Merge</button></form>`;
  const update =
    view.outdated && view.writable && view.may.editContent
      ? html`<form method="post" action="${base}/update">${csrfField(view.csrf)}<button type="submit">Update from primary</button></form>`
      : "";
  const statusForms: SafeHtml[] = [];
  if (view.may.update && cr.status !== "merged") {
    const to = (status: string, label: string, cls = "") =>
      html`<form class="inline" method="post" action="${base}/status">${csrfField(view.csrf)}<input type="hidden" name="status" value="${status}"><button type="submit" class="${cls}">${label}</button></form> `;
    if (cr.status === "draft") statusForms.push(to("open", "Ready for review"));
    if (cr.status === "open") statusForms.push(to("draft", "Back to draft"));
    if (cr.status !== "archived") statusForms.push(to("archived", "Archive", "danger"));
    else statusForms.push(to("open", "Reopen"));
  }
  return html`<aside class="side">
    <div class="card" id="merge-box"><h3>Merge</h3>${merge}</div>
    ${view.outdated && view.writable ? html`<div class="card warn"><p>The primary content changed since this change request started.</p>${update}</div>` : ""}
    <div class="card" id="reviews"><h3>Reviews</h3>
      ${reviews.length + requested.length > 0 ? html`<ul>${reviews}${requested}</ul>` : html`<p class="muted">No reviews yet.</p>`}
      ${requestForm}${reviewForm}</div>
    ${statusForms.length > 0 ? html`<div class="card"><h3>Status</h3>${statusForms}</div>` : ""}
    ${
      view.may.editContent && view.writable && view.headPages.length > 0
        ? html`<div class="card"><h3>Edit a page</h3><ul>${view.headPages.map((p) => html`<li><a href="${base}/p/${p.id}/edit">${p.title || "Untitled page"}</a></li>`)}</ul><p><a href="${base}/pages" id="pages-link">Add, rename, move or delete pages</a></p></div>`
        : view.may.editContent && view.writable
          ? html`<div class="card"><h3>Pages</h3><p><a href="${base}/pages" id="pages-link">Add, rename, move or delete pages</a></p></div>`
          : ""
    }
  </aside>`;
}

export function detailPage(view: DetailView): SafeHtml {
  const cr = view.changeRequest;
  const base = `/app/o/${view.org.id}/s/${view.space.id}/~/changes/${cr.number}`;
  const general = view.comments.filter((c) => c.pageId === null);
  const shownPages = new Set(view.pages.map((p) => p.pageId));
  const elsewhere = view.comments.filter((c) => c.pageId !== null && !shownPages.has(c.pageId));
  const titles = new Map(view.headPages.map((p) => [p.id, p.title]));
  return html`${CHANGES_STYLE}${contentStyle()}<div class="cr-wide">
    <h1>${cr.subject || "Untitled change request"} <span class="muted">#${cr.number}</span> ${statusBadge(cr.status)}</h1>
    <p class="muted">Opened by ${nameOf(view.users, cr.createdBy)} on ${day(cr.createdAt)} (UTC) · updated ${day(cr.updatedAt)}</p>
    ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ""}
    <div class="cr-grid"><div>
      ${view.description && view.description.nodes.length > 0 ? html`<div class="card" id="description">${view.content.body(view.description)}</div>` : ""}
      ${
        view.may.update && cr.status !== "merged"
          ? html`<details id="edit-details"><summary class="muted">Edit subject and description</summary>
            <form method="post" action="${base}/details" class="card">${csrfField(view.csrf)}
              <label>Subject <input name="subject" value="${cr.subject}" maxlength="100" size="50"></label>
              <textarea name="description" rows="5" maxlength="20000" aria-label="Description" placeholder="What and why, in Markdown">${view.descriptionMarkdown}</textarea>
              <button type="submit">Save</button></form></details>`
          : ""
      }
      ${conflictsHtml(view)}
      <h2>Changes</h2>
      ${view.pages.length > 0 ? view.pages.map((p) => pageDiffHtml(view, base, p)) : html`<p class="muted">No page changes yet.</p>`}
      ${view.otherChanges.length > 0 ? html`<div class="card"><h3>Other changes</h3><ul>${view.otherChanges.map((c) => html`<li>${c}</li>`)}</ul></div>` : ""}
      ${
        elsewhere.length > 0
          ? html`<h2>Comments on unchanged pages</h2>${elsewhere.map((c) => html`<p class="muted">${titles.get(c.pageId ?? "") ?? "A page"}</p>${commentHtml(view, base, c)}`)}`
          : ""
      }
      <h2>Conversation</h2>
      ${general.length > 0 ? general.map((c) => commentHtml(view, base, c)) : html`<p class="muted">No comments yet.</p>`}
      ${
        view.may.comment
          ? html`<form method="post" action="${base}/comments" id="comment-form">${csrfField(view.csrf)}
            <textarea name="body" rows="4" required maxlength="20000" placeholder="Comment in Markdown" aria-label="Comment"></textarea>
            <button type="submit">Comment</button></form>`
          : ""
      }
    </div>${sidebar(view, base)}</div></div>`;
}

// ---- edit --------------------------------------------------------------------------------------------

export interface EditView {
  org: Named;
  space: Named;
  changeRequest: ChangeRequestRow;
  page: { id: string; title: string; path: string };
  markdown: string;
  /** The Markdown read and rendered: its title, its document's HTML, notes from reading it. */
  preview: { title?: string | undefined; body: SafeHtml; warnings: string[] };
  csrf: string;
}

export function previewHtml(preview: EditView["preview"]): SafeHtml {
  return html`${preview.title ? html`<h1>${preview.title}</h1>` : ""}${preview.body}${
    preview.warnings.length > 0
      ? html`<div class="warn"><p>Notes from reading the Markdown:</p><ul>${preview.warnings.map((w) => html`<li>${w}</li>`)}</ul></div>`
      : ""
  }`;
}

export function editPage(view: EditView): SafeHtml {
  const base = `/app/o/${view.org.id}/s/${view.space.id}/~/changes/${view.changeRequest.number}`;
  return html`${CHANGES_STYLE}${contentStyle()}<div class="cr-wide">
    <h1>Edit “${view.page.title || "Untitled page"}”</h1>
    <p class="muted">In change request #${view.changeRequest.number} “${view.changeRequest.subject}”. ${view.page.path}. The first <code># heading</code> is the page title.</p>
    <form method="post" action="${base}/p/${view.page.id}/edit" id="edit-form" data-preview="${base}/p/${view.page.id}/preview">${csrfField(view.csrf)}
      <div class="editor">
        <div><textarea name="markdown" id="markdown" aria-label="Markdown" maxlength="2000000">${view.markdown}</textarea></div>
        <div class="preview" id="preview" aria-live="polite">${previewHtml(view.preview)}</div>
      </div>
      <p><button type="submit" name="action" value="save" class="primary">Save to the change request</button>
        <button type="submit" name="action" value="preview" id="preview-button">Preview</button>
        <a href="${base}#page-${view.page.id}">Cancel</a> · <a href="${base}/p/${view.page.id}/settings">Title, slug and other settings</a></p>
    </form></div>
    <script src="${EDIT_SCRIPT_PATH}" defer></script>`;
}

// ---- pages (add, move, delete) -----------------------------------------------------------------------

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

function addressHtml(address: PageAddress, when: string): SafeHtml {
  return html`<code class="new-path">${address.path}</code>${
    address.published.length > 0
      ? html`; ${when} ${address.published.map(
          (p, i) =>
            html`${i > 0 ? ", " : ""}<a class="new-url" href="${p.url}" data-base="${p.base}">${p.url}</a> <span class="muted">(${p.site})</span>`,
        )}`
      : ""
  }`;
}

/** Every page with its depth, in tree order (for the parent choices). */
function flatten(pages: PageNode[], depth = 0): { page: PageNode; depth: number }[] {
  return pages.flatMap((page) => [{ page, depth }, ...flatten(page.children, depth + 1)]);
}

const subtreeIds = (page: PageNode): string[] => [page.id, ...page.children.flatMap(subtreeIds)];

/** A choice of parent, indented by depth; pages that cannot take children (links, `excluded`) are left out. */
function parentOptions(all: { page: PageNode; depth: number }[], excluded: ReadonlySet<string>, selected: string | null): SafeHtml {
  const top = html`<option value="" ${selected === null ? raw("selected") : ""}>At the top level</option>`;
  const options = all
    .filter(({ page }) => page.kind !== "link" && !excluded.has(page.id))
    .map(
      ({ page, depth }) =>
        html`<option value="${page.id}" ${selected === page.id ? raw("selected") : ""}>${"\u00a0\u00a0".repeat(depth)}${page.title || "Untitled page"}</option>`,
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
    return html`<li id="tree-${page.id}" data-page="${page.id}"><div class="tree-row">
      <span class="tree-label">${page.emoji ? html`<span class="tree-emoji">${emojiText(page.emoji)}</span>` : ""}<span class="tree-title">${title}</span>${page.kind === "document" ? "" : html` <span class="badge">${page.kind}</span>`}${page.hidden ? html` <span class="badge" title="Not listed in the published site's navigation">hidden</span>` : ""}
        <span class="tree-path muted">/${paths.get(page.id) ?? page.slug}</span></span>
      <span class="tree-actions">
        ${page.kind === "document" ? html`<a class="button small" href="${base}/p/${page.id}/edit">Edit</a>` : ""}
        <a class="button small" href="${base}/p/${page.id}/settings" aria-label="Settings of “${title}”">Settings</a>
        ${form("move", html`<input type="hidden" name="to" value="up">`, "↑", index === 0 ? "Already the first at its level" : `Move “${title}” up`, { disabled: index === 0 })}
        ${form("move", html`<input type="hidden" name="to" value="down">`, "↓", index === siblings.length - 1 ? "Already the last at its level" : `Move “${title}” down`, { disabled: index === siblings.length - 1 })}
        ${moveTo}
        ${form("delete", "", below > 0 ? `Delete with ${below} subpage${below === 1 ? "" : "s"}` : "Delete", `Delete “${title}” in this change request`, { cls: "danger" })}
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
      <label>Place <select name="parent">${parentOptions(all, new Set(), null)}</select></label>
      <button type="submit" class="primary">Add page</button></form>
    ${view.pages.length > 0 ? html`<ul class="page-tree">${view.pages.map((page, i) => row(page, i, view.pages, null))}</ul>` : html`<p class="muted">This change request has no pages.</p>`}
  </div>`;
}

// ---- a page's settings, and its place among other pages ------------------------------------------------

/** The settings form's values (as typed when a save is refused). */
export interface PageSettingsForm {
  title: string;
  slug: string;
  emoji: string;
  description: string;
  hidden: boolean;
  noIndex: boolean;
  noRobotsIndex: boolean;
}

export interface SettingsView {
  org: Named;
  space: Named;
  changeRequest: ChangeRequestRow;
  page: { id: string; title: string; kind: string };
  form: PageSettingsForm;
  /** The parent's path in the space ("" at the top level). */
  parentPath: string;
  /** Where the page is with the slug in the form. */
  address: PageAddress;
  problem?: { field?: string; message: string };
  csrf: string;
}

export function settingsPage(view: SettingsView): SafeHtml {
  const base = `/app/o/${view.org.id}/s/${view.space.id}/~/changes/${view.changeRequest.number}`;
  const { form, problem } = view;
  const invalid = (field: string) => (problem?.field === field ? raw('aria-invalid="true" aria-describedby="settings-problem"') : "");
  const fieldProblem = (field: string) =>
    problem?.field === field ? html`<span class="field-error" id="settings-problem" role="alert">${problem.message}</span>` : "";
  return html`${CHANGES_STYLE}<div class="cr-wide">
    <h1>Settings of “${view.page.title || "Untitled page"}”</h1>
    <p class="muted">In change request #${view.changeRequest.number} “${view.changeRequest.subject}”: saved to the change request, published when it is merged. <a href="${base}/pages">Back to the pages</a></p>
    ${problem && !problem.field ? html`<p class="error" id="settings-problem" role="alert">${problem.message}</p>` : ""}
    <form method="post" action="${base}/p/${view.page.id}/settings" class="card settings" id="settings-form" data-parent-path="${view.parentPath}">${csrfField(view.csrf)}
      <label>Title <input name="title" id="title" value="${form.title}" required maxlength="256" ${invalid("title")}></label>${fieldProblem("title")}
      <label>Slug <input name="slug" id="slug" value="${form.slug}" maxlength="100" ${invalid("slug")}></label>${fieldProblem("slug")}
      <p class="hint">Its address: <span id="address">${addressHtml(view.address, "on the published site:")}</span>. Leave the slug empty to make it from the title.</p>
      <label>Emoji <input name="emoji" id="emoji" value="${form.emoji}" maxlength="50" size="6" placeholder="📘" ${invalid("emoji")}></label>${fieldProblem("emoji")}
      <p class="hint">Shown before the title in the site's navigation. One emoji, or empty for none.</p>
      <label>Description <textarea name="description" id="description" rows="3" maxlength="1000" ${invalid("description")}>${form.description}</textarea></label>${fieldProblem("description")}
      <p class="hint">Shown under the title on the published page and in llms.txt.</p>
      <label class="check"><input type="checkbox" name="hidden" value="true" ${form.hidden ? raw("checked") : ""}> Hidden: left out of the site's navigation, search and sitemap, still open to its address</label>
      <label class="check"><input type="checkbox" name="noIndex" value="true" ${form.noIndex ? raw("checked") : ""}> Not indexed: left out of search and the sitemap, and search engines are asked not to index it</label>
      <label class="check"><input type="checkbox" name="noRobotsIndex" value="true" ${form.noRobotsIndex ? raw("checked") : ""}> Not for search engines: they are asked not to index it and it leaves the sitemap; the site's search still finds it</label>
      <p><button type="submit" class="primary">Save to the change request</button> <a href="${base}/pages">Cancel</a></p>
    </form></div>
    <script src="${SETTINGS_SCRIPT_PATH}" defer></script>`;
}

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

export const SETTINGS_SCRIPT_PATH = "/app/scripts/changes-settings.js";

/**
 * The settings form's address follows the slug (or the title, when the slug is empty) as one
 * types, with the server's slug rule; the place page shows the places under a parent once chosen.
 */
export const SETTINGS_SCRIPT = `(() => {
  const slugify = (text) => text.normalize("NFKC").toLowerCase().replace(/[^\\p{L}\\p{N}]+/gu, "-").replace(/^-+|-+$/g, "") || "page";
  const encode = (path) => path.split("/").map(encodeURIComponent).join("/");
  const form = document.getElementById("settings-form");
  if (form) {
    const title = document.getElementById("title");
    const slug = document.getElementById("slug");
    const update = () => {
      const own = slug.value.trim() || slugify(title.value);
      const path = form.dataset.parentPath ? form.dataset.parentPath + "/" + own : own;
      for (const code of form.querySelectorAll(".new-path")) code.textContent = "/" + path;
      for (const link of form.querySelectorAll(".new-url")) {
        link.href = link.dataset.base + "/" + encode(path);
        link.textContent = link.href;
      }
    };
    title.addEventListener("input", update);
    slug.addEventListener("input", update);
    // A refused field's message goes once the field is edited; the server checks it again on save.
    for (const field of form.querySelectorAll("[aria-invalid]")) {
      field.addEventListener("input", () => {
        field.removeAttribute("aria-invalid");
        field.removeAttribute("aria-describedby");
        document.getElementById("settings-problem")?.remove();
      }, { once: true });
    }
  }
  const choose = document.getElementById("place-parent");
  if (choose) {
    const button = document.getElementById("show-places");
    if (button) button.style.display = "none";
    choose.elements.parent.addEventListener("change", () => choose.submit());
  }
})();
`;

export const EDIT_SCRIPT_PATH = "/app/scripts/changes-edit.js";

/** The edit page's live preview: posts the Markdown (debounced) and shows the server's rendering. */
export const EDIT_SCRIPT = `(() => {
  const form = document.getElementById("edit-form");
  const area = document.getElementById("markdown");
  const pane = document.getElementById("preview");
  const button = document.getElementById("preview-button");
  if (!form || !area || !pane) return;
  if (button) button.style.display = "none";
  let timer = 0;
  let latest = 0;
  const refresh = async () => {
    const ticket = ++latest;
    const body = new URLSearchParams({ _csrf: form.elements._csrf.value, markdown: area.value });
    try {
      const res = await fetch(form.dataset.preview, { method: "POST", body, credentials: "same-origin" });
      if (ticket !== latest) return;
      if (res.ok) pane.innerHTML = await res.text();
    } catch {}
  };
  area.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 250);
  });
})();
`;
