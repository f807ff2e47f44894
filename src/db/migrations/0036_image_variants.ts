/**
 * Images as published sites show them: each stored image (a content blob) at a few widths, in WebP,
 * made by the `image-variants` job (modules/files/image-variants.jobs.ts) off the request path and
 * served by the same signed file address as the image itself (`&w=<width>`).
 *
 * A row per source and width; `data` is null when the WebP would not have been smaller than the
 * source (the source is served for that width). The row of width 0 marks the source as done: with
 * `error` set, it could not be derived (unreadable, too many pixels, too slow) and is served as is.
 */
import type { Kysely } from "kysely";
import { dialectOf } from "../database.js";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("image_variants")
    .addColumn("source_hash", "text", (c) => c.notNull())
    .addColumn("width", "integer", (c) => c.notNull())
    .addColumn("height", "integer", (c) => c.notNull())
    .addColumn("content_type", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("data", dialectOf(db) === "postgres" ? "bytea" : "blob")
    .addColumn("error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("image_variants_pk", ["source_hash", "width"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("image_variants").ifExists().execute();
}
