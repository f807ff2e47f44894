/**
 * The audit log: one row per recorded change or sign-in (src/db/audit.ts writes them, in the
 * transaction of the change where there is one). Rows are never updated; the retention job
 * (modules/audit/audit.jobs.ts) is the only thing that deletes them. `org_id` is null for an event
 * that belongs to no organization (an instance-level command, or a user who is in none).
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("audit_events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text")
    .addColumn("occurred_at", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("actor_type", "text", (c) => c.notNull())
    .addColumn("actor_id", "text", (c) => c.notNull())
    .addColumn("actor_label", "text")
    .addColumn("token_id", "text")
    .addColumn("target_type", "text", (c) => c.notNull())
    .addColumn("target_id", "text", (c) => c.notNull())
    .addColumn("target_label", "text")
    .addColumn("address", "text")
    .addColumn("user_agent", "text")
    .addColumn("request_id", "text")
    .addColumn("payload", "text", (c) => c.notNull())
    .execute();
  // Every read is one organization's events, newest first, optionally narrowed by one exact field.
  await db.schema.createIndex("audit_events_org_time").on("audit_events").columns(["org_id", "occurred_at", "id"]).execute();
  await db.schema.createIndex("audit_events_org_action").on("audit_events").columns(["org_id", "action", "occurred_at"]).execute();
  await db.schema.createIndex("audit_events_org_actor").on("audit_events").columns(["org_id", "actor_id", "occurred_at"]).execute();
  // The retention job deletes by age across organizations.
  await db.schema.createIndex("audit_events_time").on("audit_events").columns(["occurred_at"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("audit_events").ifExists().execute();
}
