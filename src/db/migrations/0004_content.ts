/**
 * Content-addressed storage for revisions: immutable JSON objects (page documents, page trees,
 * file lists, revision roots) and binary blobs (files), each stored once under the SHA-256 of its
 * content and shared by every revision that contains it.
 */
import type { Kysely } from "kysely";
import { dialectOf } from "../database.js";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("content_objects")
    .addColumn("hash", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("content_blobs")
    .addColumn("hash", "text", (c) => c.primaryKey())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("data", dialectOf(db) === "postgres" ? "bytea" : "blob", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("content_blobs").ifExists().execute();
  await db.schema.dropTable("content_objects").ifExists().execute();
}
