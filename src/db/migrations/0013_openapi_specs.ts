/**
 * OpenAPI specs of an organization and their processed versions.
 *
 * A spec names its source (`source_url`, or `source_text` for an uploaded document) and carries the
 * state of its processing. `source_generation` counts the changes of the source: a processing job
 * records its result only when the generation it processed is still the spec's, so a PUT that
 * arrives while a job runs is never overwritten by the older result. A version is the processed
 * (bundled) document, recorded only when it differs from the previous version (`content_hash`).
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("openapi_specs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("slug", "text", (c) => c.notNull())
    .addColumn("source_url", "text")
    .addColumn("source_text", "text")
    .addColumn("source_generation", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("visibility", "text", (c) => c.notNull())
    .addColumn("processing_state", "text", (c) => c.notNull())
    .addColumn("last_version_id", "text")
    .addColumn("last_processed_at", "text")
    .addColumn("last_fetched_at", "text")
    .addColumn("last_process_error_code", "text")
    .addColumn("last_processed_errors", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("openapi_specs_slug").on("openapi_specs").columns(["org_id", "slug"]).unique().execute();
  await db.schema.createIndex("openapi_specs_list").on("openapi_specs").columns(["org_id", "created_at", "id"]).execute();
  await db.schema.createIndex("openapi_specs_refresh").on("openapi_specs").columns(["source_url", "last_fetched_at"]).execute();

  await db.schema
    .createTable("openapi_spec_versions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("spec_id", "text", (c) => c.notNull().references("openapi_specs.id").onDelete("cascade"))
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("document", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("openapi_spec_versions_list").on("openapi_spec_versions").columns(["spec_id", "created_at", "id"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("openapi_spec_versions").ifExists().execute();
  await db.schema.dropTable("openapi_specs").ifExists().execute();
}
