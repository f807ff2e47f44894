/**
 * "Was this page helpful?" answers of published sites' readers: one row per reader, page and UTC
 * day (a second answer the same day replaces the first), with the hashed client address the
 * answers are limited by. Deleted with their site.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("page_feedback")
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    .addColumn("space_id", "text", (c) => c.notNull())
    .addColumn("page_id", "text", (c) => c.notNull())
    .addColumn("voter", "text", (c) => c.notNull())
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("rating", "text", (c) => c.notNull())
    .addColumn("address", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("page_feedback_pk", ["site_id", "page_id", "voter", "day"])
    .execute();
  await db.schema.createIndex("page_feedback_address").on("page_feedback").columns(["site_id", "address", "created_at"]).execute();
}
