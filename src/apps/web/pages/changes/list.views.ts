/** The change requests of a space, with the API's filters, and the form that creates one. */

import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import type { ChangeRequestRow } from "../../../../db/schema.js";
import { CHANGES_STYLE, csrfField, day, type Named, statusBadge } from "./changes.views.js";

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
