/** An organization's audit log (its settings, admins only, as the API): the events with filters, and the export. */
import Type from "typebox";
import { auditActionCatalogue } from "../../../../http/audit.js";
import { invalid } from "../../../../lib/errors.js";
import { listAuditEvents } from "../../../../modules/audit/audit.queries.js";
import { auditEventLines, JSON_LINES } from "../../../../modules/audit/audit-export.service.js";
import { organizationPermissions } from "../../../../modules/organizations/organizations.policy.js";
import { authorize } from "../../../../permissions/authorize.js";
import { orgHandler } from "../../web.kinds.js";
import { OrgParams } from "../../web.schemas.js";
import { orgCrumb, sendOrgPage } from "../../web.steps.js";
import { type AuditQuery, auditFiltersOf, auditQueryString } from "./audit.model.js";
import { auditBody } from "./audit.views.js";

const Field = Type.Optional(Type.String({ maxLength: 200 }));
const Filters = { action: Field, actor: Field, from: Field, to: Field };
const schema = { params: OrgParams, querystring: Type.Object({ ...Filters, page: Type.Optional(Type.String({ maxLength: 1024 })) }) };
const exportSchema = { params: OrgParams, querystring: Type.Object(Filters) };

const PAGE_SIZE = 50;
const FORBIDDEN = "Only organization admins can read the audit log.";

function requireAdmin(ctx: Parameters<Parameters<typeof orgHandler>[1]>[2]) {
  authorize(organizationPermissions(ctx.access), "admin", { notFound: `No organization with id "${ctx.org.id}".`, forbidden: FORBIDDEN });
}

function filtersOrRefuse(query: AuditQuery) {
  const parsed = auditFiltersOf(query);
  if (parsed.problem) throw invalid(parsed.problem);
  return parsed;
}

export const auditPage = orgHandler(schema, async (request, reply, ctx) => {
  requireAdmin(ctx);
  const { view, filters } = filtersOrRefuse(request.query);
  const page = await listAuditEvents(ctx.deps.db, ctx.org.id, filters, { page: request.query.page, limit: PAGE_SIZE });
  const catalogue = auditActionCatalogue();
  const base = `/app/o/${encodeURIComponent(ctx.org.id)}/settings/audit`;
  const body = auditBody({
    base,
    filters: view,
    actions: [...catalogue].sort(([a], [b]) => a.localeCompare(b)).map(([id, label]) => ({ id, label })),
    count: page.count,
    events: page.rows.map((row) => ({
      id: row.id,
      occurredAt: row.occurredAt,
      action: row.action,
      actionLabel: catalogue.get(row.action) ?? "",
      actor: { type: row.actorType, id: row.actorId, label: row.actorLabel },
      target: { type: row.targetType, id: row.targetId, label: row.targetLabel },
      source: row.source,
      address: row.address,
      details: JSON.stringify({ ...JSON.parse(row.payload), userAgent: row.userAgent, tokenId: row.tokenId }, null, 2),
    })),
    next: page.next ? `${base}${auditQueryString(view, page.next.page)}` : undefined,
    exportHref: `${base}.jsonl${auditQueryString(view)}`,
    retentionDays: ctx.deps.config.auditRetentionDays,
  });
  return sendOrgPage(reply, ctx, { title: "Audit log", body, crumbs: [orgCrumb(ctx), { label: "Audit log" }], wide: true });
});

/** The export of what the page shows (every page of it), as the API's: JSON lines, streamed. */
export const auditExport = orgHandler(exportSchema, async (request, reply, ctx) => {
  requireAdmin(ctx);
  const { filters } = filtersOrRefuse(request.query);
  reply.header("content-type", JSON_LINES);
  reply.header("content-disposition", `attachment; filename="audit-events-${ctx.org.id}.jsonl"`);
  return reply.send(auditEventLines(ctx.deps.db, ctx.deps.urls, ctx.org.id, filters));
});
