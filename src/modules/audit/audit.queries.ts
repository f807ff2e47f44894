/** The audit log's rows: read one organization's, and the retention job's deletion (the only one). */
import type { Executor } from "../../db/database.js";
import { type Page, paginate } from "../../lib/pagination.js";
import type { AuditFiltersValue } from "./audit.schemas.js";

function filtered(db: Executor, orgId: string, filters: AuditFiltersValue) {
  let query = db.selectFrom("auditEvents").selectAll().where("orgId", "=", orgId);
  // Timestamps are stored as ISO strings in UTC; filters are compared in the same form.
  if (filters.from) query = query.where("occurredAt", ">=", new Date(filters.from).toISOString());
  if (filters.to) query = query.where("occurredAt", "<=", new Date(filters.to).toISOString());
  if (filters.action) query = query.where("action", "=", filters.action);
  if (filters.actor) query = query.where("actorId", "=", filters.actor);
  if (filters.target) query = query.where("targetId", "=", filters.target);
  return query;
}

export type AuditEventRow = Awaited<ReturnType<ReturnType<typeof filtered>["executeTakeFirstOrThrow"]>>;

/** One page of an organization's events, newest first. */
export function listAuditEvents(
  db: Executor,
  orgId: string,
  filters: AuditFiltersValue,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<AuditEventRow>> {
  return paginate(
    filtered(db, orgId, filters),
    [
      { column: "occurredAt", direction: "desc", value: (row) => row.occurredAt },
      { column: "id", direction: "desc", value: (row) => row.id },
    ],
    options,
  );
}

export function getAuditEvent(db: Executor, orgId: string, id: string): Promise<AuditEventRow | undefined> {
  return db.selectFrom("auditEvents").selectAll().where("orgId", "=", orgId).where("id", "=", id).executeTakeFirst();
}

const EXPORT_BATCH = 500;

/** Every matching event, oldest first, read in batches (the export streams them without holding the log in memory). */
export async function* allAuditEvents(db: Executor, orgId: string, filters: AuditFiltersValue): AsyncGenerator<AuditEventRow> {
  let after: { occurredAt: string; id: string } | undefined;
  for (;;) {
    let query = filtered(db, orgId, filters);
    if (after) {
      const { occurredAt, id } = after;
      query = query.where((eb) =>
        eb.or([eb("occurredAt", ">", occurredAt), eb.and([eb("occurredAt", "=", occurredAt), eb("id", ">", id)])]),
      );
    }
    const rows = await query.orderBy("occurredAt", "asc").orderBy("id", "asc").limit(EXPORT_BATCH).execute();
    yield* rows;
    const last = rows[rows.length - 1];
    if (!last || rows.length < EXPORT_BATCH) return;
    after = { occurredAt: last.occurredAt, id: last.id };
  }
}

/** Deletes events older than `before` (ISO); the number deleted. */
export async function deleteAuditEventsBefore(db: Executor, before: string): Promise<number> {
  const result = await db.deleteFrom("auditEvents").where("occurredAt", "<", before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
