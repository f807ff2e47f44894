/** The organization's audit log page: filters, the events newest first, the next page and the export link. */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import { emptyNote, when } from "../../common.views.js";

export interface AuditFiltersView {
  action: string;
  actor: string;
  /** Dates (YYYY-MM-DD), the whole day included, in UTC. */
  from: string;
  to: string;
}

export interface AuditEventView {
  id: string;
  occurredAt: string;
  action: string;
  actionLabel: string;
  actor: { type: string; id: string; label: string | null };
  target: { type: string; id: string; label: string | null };
  source: string;
  address: string | null;
  details: string;
}

export interface AuditPageView {
  base: string;
  filters: AuditFiltersView;
  actions: { id: string; label: string }[];
  events: AuditEventView[];
  count: number;
  /** The address of the next (older) page, when there is one. */
  next?: string | undefined;
  exportHref: string;
  retentionDays: number;
}

export function auditBody(view: AuditPageView): SafeHtml {
  const { filters } = view;
  const options = view.actions.map(
    // The id alone: labels of the web app's forms are their paths, too wide for a phone's select.
    (a) => html`<option value="${a.id}" title="${a.label}" ${a.id === filters.action ? html`selected` : ""}>${a.id}</option>`,
  );
  const rows = view.events.map(
    (e) => html`<tr data-event="${e.id}">
      <td class="small">${when(e.occurredAt)}</td>
      <td>${e.actor.label ?? e.actor.id}<div class="muted small">${e.actor.type} ${e.actor.id}</div></td>
      <td><code>${e.action}</code><div class="muted small">${e.actionLabel}</div></td>
      <td>${e.target.label ?? e.target.id}<div class="muted small">${e.target.type}${e.target.label ? html` ${e.target.id}` : ""}</div></td>
      <td class="small">${e.source}${e.address ? html`<div class="muted">${e.address}</div>` : ""}</td>
      <td><details><summary class="small">Details</summary><pre class="small">${e.details}</pre></details></td></tr>`,
  );
  return html`<div class="page-head"><h1>Audit log</h1><div class="actions"><a class="button" href="${view.exportHref}" download>Export as JSON lines</a></div></div>
    <p class="muted small">Every change made through the API, this app, SCIM, single sign-on and the command line, with sign-ins and failed sign-ins. Events are kept ${view.retentionDays} days; nobody can edit or delete one.</p>
    <form method="get" action="${view.base}" class="actions" role="search" aria-label="Filter the audit log">
      <label>Action <select name="action"><option value="">Any action</option>${options}</select></label>
      <label>Actor <input type="text" name="actor" value="${filters.actor}" maxlength="200" placeholder="user id, SCIM token id, cli"></label>
      <label>From <input type="date" name="from" value="${filters.from}"></label>
      <label>To <input type="date" name="to" value="${filters.to}"></label>
      <button type="submit">Filter</button> <a href="${view.base}">Clear</a>
    </form>
    <p class="muted small" role="status">${view.count} event${view.count === 1 ? "" : "s"}</p>
    ${
      rows.length > 0
        ? html`<div class="table-wrap"><table><thead><tr><th>When</th><th>Who</th><th>Action</th><th>Target</th><th>From</th><th><span class="muted">Details</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
        : emptyNote("No event matches.")
    }
    ${view.next ? html`<p><a href="${view.next}">Older events</a></p>` : ""}`;
}
