/** Audit rows to GitBook's AuditEvent and AuditEventDetails. */
import type { Urls } from "../../http/urls.js";
import type { AuditEventRow } from "./audit.queries.js";
import type { AuditEventDetailsValue, AuditEventValue } from "./audit.schemas.js";

export function presentAuditEvent(row: AuditEventRow, urls: Urls): AuditEventValue {
  return {
    object: "audit-event",
    id: row.id,
    occurredAt: row.occurredAt,
    action: row.action,
    actor: {
      type: row.actorType as AuditEventValue["actor"]["type"],
      id: row.actorId,
      ...(row.actorLabel ? { label: row.actorLabel } : {}),
    },
    source: row.source as AuditEventValue["source"],
    target: { type: row.targetType, id: row.targetId, ...(row.targetLabel ? { label: row.targetLabel } : {}) },
    urls: { location: urls.api(`/orgs/${encodeURIComponent(row.orgId ?? "")}/audit-events/${encodeURIComponent(row.id)}`) },
  };
}

/** With the recorded details, and where the change came from (address, user agent, API token id). */
export function presentAuditEventDetails(row: AuditEventRow, urls: Urls): AuditEventDetailsValue {
  const recorded = JSON.parse(row.payload) as Record<string, unknown>;
  return {
    ...presentAuditEvent(row, urls),
    ...(row.requestId ? { executionId: row.requestId, correlationId: row.requestId } : {}),
    schemaVersion: 1,
    payload: { ...recorded, origin: { address: row.address, userAgent: row.userAgent, tokenId: row.tokenId } },
  };
}
