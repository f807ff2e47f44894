/**
 * Translations: a source space kept translated into a target space of the same organization.
 * `translation_items` remembers, per page (and reusable content) of the source, what was last
 * translated (a fingerprint of its source text) and the result, so a run translates only what
 * changed. A run writes its revision, its items and the translation's stats in one transaction;
 * `run_version` is bumped by every run so two runs of one translation cannot both commit.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("translations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("source_space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
    .addColumn("source_language", "text", (c) => c.notNull())
    .addColumn("language", "text", (c) => c.notNull())
    .addColumn("target_space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
    .addColumn("instructions", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("result_revision_id", "text", (c) => c.notNull())
    .addColumn("source_revision_id", "text")
    .addColumn("run_version", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("runs", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("total_words", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("total_pages", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("total_duration_ms", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("latest_duration_ms", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("latest_pages", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("latest_words", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("failure", "text")
    .addColumn("created_by", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("translations_list").on("translations").columns(["org_id", "created_at", "id"]).execute();
  // One translation per source space and target language.
  await db.schema
    .createIndex("translations_source_language")
    .on("translations")
    .columns(["source_space_id", "language"])
    .unique()
    .execute();
  await db.schema.createIndex("translations_target").on("translations").column("target_space_id").execute();

  await db.schema
    .createTable("translation_items")
    .addColumn("translation_id", "text", (c) => c.notNull().references("translations.id").onDelete("cascade"))
    .addColumn("item_id", "text", (c) => c.notNull())
    .addColumn("source_fingerprint", "text", (c) => c.notNull())
    .addColumn("translated", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("translation_items_pk", ["translation_id", "item_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("translation_items").ifExists().execute();
  await db.schema.dropTable("translations").ifExists().execute();
}
