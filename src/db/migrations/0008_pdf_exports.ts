/** Rendered PDF exports, cached by what they render (a revision is immutable, so is its PDF). */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("pdf_exports")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("space_id", "text", (c) => c.notNull())
    .addColumn("blob_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("pdf_exports_space").on("pdf_exports").column("space_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("pdf_exports").ifExists().execute();
}
