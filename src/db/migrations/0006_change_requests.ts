/**
 * Change requests: branches of a space's primary content (a head revision, the primary revision
 * they started from and the one they were last updated from), numbered per space; who contributed
 * to each; requested reviewers (filled by the reviews module; the list filter needs the table now);
 * and per-page conflict resolutions (the merge base a caller chose for a page in conflict).
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("change_requests")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
    .addColumn("number", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("description", "text")
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("revision_id", "text", (c) => c.notNull())
    .addColumn("revision_initial", "text", (c) => c.notNull())
    .addColumn("revision_merged_ancestor", "text")
    .addColumn("revision_merged", "text")
    .addColumn("conversations_issues_cluster", "text")
    .addColumn("conflicts_revision", "text")
    .addColumn("merged_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // Numbers count up per space; creations number in turn under the space's row lock, and the unique
  // index guarantees that none is ever given twice.
  await db.schema.createIndex("change_requests_number").on("change_requests").columns(["space_id", "number"]).unique().execute();
  await db.schema
    .createIndex("change_requests_space_status")
    .on("change_requests")
    .columns(["space_id", "status", "created_at", "id"])
    .execute();
  await db.schema.createIndex("change_requests_creator").on("change_requests").column("created_by").execute();

  await db.schema
    .createTable("change_request_contributors")
    .addColumn("change_request_id", "text", (c) => c.notNull().references("change_requests.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("action_type", "text", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("change_request_contributors_pk", ["change_request_id", "user_id", "action_type"])
    .execute();
  await db.schema.createIndex("change_request_contributors_user").on("change_request_contributors").column("user_id").execute();

  await db.schema
    .createTable("change_request_requested_reviewers")
    .addColumn("change_request_id", "text", (c) => c.notNull().references("change_requests.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("requested_by", "text", (c) => c.notNull())
    .addColumn("revision", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("change_request_requested_reviewers_pk", ["change_request_id", "user_id"])
    .execute();
  await db.schema
    .createIndex("change_request_requested_reviewers_user")
    .on("change_request_requested_reviewers")
    .column("user_id")
    .execute();

  await db.schema
    .createTable("change_request_resolutions")
    .addColumn("change_request_id", "text", (c) => c.notNull().references("change_requests.id").onDelete("cascade"))
    .addColumn("page_id", "text", (c) => c.notNull())
    .addColumn("primary_revision", "text", (c) => c.notNull())
    .addColumn("base", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("change_request_resolutions_pk", ["change_request_id", "page_id"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    "change_request_resolutions",
    "change_request_requested_reviewers",
    "change_request_contributors",
    "change_requests",
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
