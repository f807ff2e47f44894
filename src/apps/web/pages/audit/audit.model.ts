/** The audit page's filters: its form's dates (whole UTC days) to the API's filters, and back to addresses. */
import type { AuditFiltersValue } from "../../../../modules/audit/audit.schemas.js";
import type { AuditFiltersView } from "./audit.views.js";

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface AuditQuery {
  action?: string | undefined;
  actor?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** What the form asked for, cleaned: an empty field filters nothing; a date that is not one is refused. */
export function auditFiltersOf(query: AuditQuery): { view: AuditFiltersView; filters: AuditFiltersValue; problem?: string } {
  const view: AuditFiltersView = {
    action: query.action?.trim() ?? "",
    actor: query.actor?.trim() ?? "",
    from: query.from?.trim() ?? "",
    to: query.to?.trim() ?? "",
  };
  const filters: AuditFiltersValue = {};
  if (view.action) filters.action = view.action;
  if (view.actor) filters.actor = view.actor;
  for (const [field, suffix] of [
    ["from", "T00:00:00.000Z"],
    ["to", "T23:59:59.999Z"],
  ] as const) {
    const value = view[field];
    if (!value) continue;
    if (!DATE.test(value) || Number.isNaN(Date.parse(`${value}${suffix}`))) {
      return { view, filters, problem: `"${field}" must be a date such as 2026-01-31.` };
    }
    filters[field] = `${value}${suffix}`;
  }
  return { view, filters };
}

/** The query string of the filters (and a page cursor), without the empty ones. */
export function auditQueryString(view: AuditFiltersView, page?: string): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(view)) if (value) params.set(key, value);
  if (page) params.set("page", page);
  const text = params.toString();
  return text ? `?${text}` : "";
}
