/**
 * Reading the audit log (GitBook's audit-event operations, @gitbook/api 0.202) and exporting it as
 * JSON lines. Admins of the organization only: other members get 403, outsiders 404. There is no
 * route that edits or deletes an event: the retention job (audit.jobs.ts) is the only deletion.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Executor } from "../../db/database.js";
import type { Deps } from "../../deps.js";
import { auditActionCatalogue } from "../../http/audit.js";
import { actorOf } from "../../http/authenticate.js";
import { notFound } from "../../http/errors.js";
import { errorResponses, ListOf } from "../../http/schemas.js";
import { toList } from "../../lib/pagination.js";
import type { Actor } from "../../permissions/actor.js";
import { authorize } from "../../permissions/authorize.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { presentAuditEvent, presentAuditEventDetails } from "./audit.presenter.js";
import { getAuditEvent, listAuditEvents } from "./audit.queries.js";
import {
  AuditEventActionSchema,
  AuditEventDetailsSchema,
  AuditEventParams,
  AuditEventSchema,
  AuditFilters,
  ListAuditEventsQuery,
} from "./audit.schemas.js";
import { auditEventLines, JSON_LINES } from "./audit-export.service.js";

const tags = ["organizations"];
const FORBIDDEN = "Only organization admins can read the audit log.";

/** The organization, when the caller is one of its admins (404 for outsiders, 403 for other members). */
export async function requireAuditReader(db: Executor, actor: Actor, orgId: string) {
  const { org, permissions } = await requireOrganization(db, actor, orgId);
  authorize(permissions, "admin", { notFound: `No organization with id "${orgId}" that you are a member of.`, forbidden: FORBIDDEN });
  return org;
}

export const auditRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  app.get(
    "/v1/orgs/:organizationId/audit-events",
    {
      schema: {
        tags,
        operationId: "listOrganizationAuditEvents",
        params: OrganizationParams,
        querystring: ListAuditEventsQuery,
        response: { 200: ListOf(AuditEventSchema), ...errorResponses },
      },
    },
    async (request) => {
      const org = await requireAuditReader(db, actorOf(request), request.params.organizationId);
      const { page, limit = 20, ...filters } = request.query;
      return toList(await listAuditEvents(db, org.id, filters, { page, limit }), (row) => presentAuditEvent(row, urls));
    },
  );

  app.get(
    "/v1/orgs/:organizationId/audit-events/:auditEventId",
    {
      schema: {
        tags,
        operationId: "getOrganizationAuditEvent",
        params: AuditEventParams,
        response: { 200: AuditEventDetailsSchema, ...errorResponses },
      },
    },
    async (request) => {
      const org = await requireAuditReader(db, actorOf(request), request.params.organizationId);
      const row = await getAuditEvent(db, org.id, request.params.auditEventId);
      if (!row) throw notFound(`No audit event with id "${request.params.auditEventId}" in this organization.`);
      return presentAuditEventDetails(row, urls);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/audit-event-actions",
    {
      schema: {
        tags,
        operationId: "listOrganizationAuditEventActions",
        params: OrganizationParams,
        response: { 200: ListOf(AuditEventActionSchema), ...errorResponses },
      },
    },
    async (request) => {
      await requireAuditReader(db, actorOf(request), request.params.organizationId);
      const items = [...auditActionCatalogue()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([id, label]) => ({ object: "audit-event-action" as const, id, label }));
      return { items, count: items.length };
    },
  );

  app.get(
    "/v1/orgs/:organizationId/audit-events.jsonl",
    {
      schema: {
        tags,
        operationId: "exportOrganizationAuditEvents",
        description: "Every matching audit event with its details, one JSON object per line, oldest first (Quire's own).",
        params: OrganizationParams,
        querystring: AuditFilters,
        response: errorResponses,
      },
    },
    async (request, reply) => {
      const org = await requireAuditReader(db, actorOf(request), request.params.organizationId);
      reply.header("content-type", JSON_LINES);
      reply.header("content-disposition", `attachment; filename="audit-events-${org.id}.jsonl"`);
      // A stream has no response schema (the 200 is not JSON): sent as is.
      return reply.send(auditEventLines(db, urls, org.id, request.query) as never);
    },
  );
};
