/**
 * Full-text search over the primary revision of each space, one row per page section (sections
 * split at headings). SQLite: an FTS5 index over an external-content table, so that a space's rows
 * can be removed by an indexed delete. PostgreSQL: a weighted tsvector column with a GIN index.
 */
import { type Kysely, sql } from "kysely";
import { dialectOf } from "../database.js";

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = dialectOf(db) === "postgres";
  await db.schema
    .createTable("search_sections")
    .addColumn("id", postgres ? "bigserial" : "integer", (c) => c.primaryKey())
    .addColumn("space_id", "text", (c) => c.notNull())
    .addColumn("page_id", "text", (c) => c.notNull())
    .addColumn("section_key", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("path", "text", (c) => c.notNull())
    .addColumn("anchor", "text", (c) => c.notNull())
    .addColumn("ancestors", "text", (c) => c.notNull())
    .addColumn("page_title", "text", (c) => c.notNull())
    .addColumn("section_title", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("search_sections_space").on("search_sections").columns(["space_id", "page_id"]).execute();
  if (postgres) {
    await sql`alter table search_sections add column tsv tsvector generated always as (
        setweight(to_tsvector('english', page_title), 'A') ||
        setweight(to_tsvector('english', section_title), 'B') ||
        setweight(to_tsvector('english', body), 'C')) stored`.execute(db);
    await sql`create index search_sections_tsv on search_sections using gin (tsv)`.execute(db);
  } else {
    await sql`create virtual table search_fts using fts5(
        page_title, section_title, body,
        content='search_sections', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2')`.execute(db);
  }
  await db.schema
    .createTable("search_index_state")
    .addColumn("space_id", "text", (c) => c.primaryKey())
    .addColumn("revision_id", "text", (c) => c.notNull())
    .addColumn("indexed_at", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === "sqlite") await sql`drop table if exists search_fts`.execute(db);
  await db.schema.dropTable("search_index_state").ifExists().execute();
  await db.schema.dropTable("search_sections").ifExists().execute();
}
