/** A change request's side panel: merge, reviews, status, and the pages to edit; each button only where the policy allows it. */
import { html, raw, type SafeHtml } from "../../../../content/html/safe-html.js";
import { csrfField, day, nameOf, statusBadge } from "./changes.views.js";
import type { DetailView } from "./detail.model.js";

export function sidebar(view: DetailView, base: string): SafeHtml {
  const cr = view.changeRequest;
  const reviews = view.reviews.map((r) => html`<li>${nameOf(view.users, r.reviewerId)} ${statusBadge(r.status)}</li>`);
  // The reviews policy's rule: the creator and reviewer-level members withdraw, the reviewer declines.
  const withdraw = (userId: string) =>
    view.writable && view.withdrawable.has(userId)
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
