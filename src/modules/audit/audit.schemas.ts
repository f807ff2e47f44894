/** The audit log's API shapes, from GitBook's @gitbook/api 0.202 (AuditEvent, AuditEventDetails, AuditEventAction). */
import Type, { type Static } from "typebox";
import { ListQuery } from "../../http/schemas.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";

const Actor = Type.Object({
  type: Type.Enum(["user", "integration", "installation", "system", "support"]),
  id: Type.String(),
  label: Type.Optional(Type.String()),
});

const Target = Type.Object({ type: Type.String(), id: Type.String(), label: Type.Optional(Type.String()) });

const eventProperties = {
  object: Type.Literal("audit-event"),
  id: Type.String({ format: "uuid" }),
  occurredAt: Type.String({ format: "date-time" }),
  action: Type.String(),
  actor: Actor,
  source: Type.Enum(["ui", "api", "integration", "webhook", "workflow", "script", "support"]),
  target: Target,
  urls: Type.Object({ location: Type.String() }),
};

export const AuditEventSchema = Type.Object(eventProperties);
export type AuditEventValue = Static<typeof AuditEventSchema>;

export const AuditEventDetailsSchema = Type.Object({
  ...eventProperties,
  executionId: Type.Optional(Type.String()),
  correlationId: Type.Optional(Type.String()),
  schemaVersion: Type.Integer({ minimum: 1 }),
  payload: Type.Record(Type.String(), Type.Unknown()),
});
export type AuditEventDetailsValue = Static<typeof AuditEventDetailsSchema>;

export const AuditEventActionSchema = Type.Object({ object: Type.Literal("audit-event-action"), id: Type.String(), label: Type.String() });

const Filter = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }));

/** The filters of the list and of the export. */
export const AuditFilters = Type.Object({
  from: Type.Optional(Type.String({ format: "date-time", description: "Include events occurring at or after this time." })),
  to: Type.Optional(Type.String({ format: "date-time", description: "Include events occurring at or before this time." })),
  action: Filter("Filter by an exact audit action name."),
  actor: Filter("Filter by an exact stable actor identifier (a user id, a SCIM token id, `cli`)."),
  target: Filter("Filter by an exact stable target identifier."),
});
export type AuditFiltersValue = Static<typeof AuditFilters>;

export const ListAuditEventsQuery = Type.Object({
  page: ListQuery.properties.page,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: "Number of events to return, up to 100." })),
  ...AuditFilters.properties,
});

export const AuditEventParams = Type.Object({
  ...OrganizationParams.properties,
  auditEventId: Type.String({ minLength: 1, maxLength: 100, description: "Unique identifier of the audit event." }),
});
