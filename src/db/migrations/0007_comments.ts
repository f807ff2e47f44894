/**
 * Comments and replies on a space's content or on a change request, with per-user emoji reactions.
 *
 * - `comments.change_request_id` is null for comments on the space itself; it is a plain text
 *   column (change requests live in their own table, without a foreign key from here).
 * - Deletion is a hard delete: replies and reactions follow through foreign keys, and so does
 *   everything when a space is purged.
 * - `body` is the JSON document (Markdown input is converted before it is stored).
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("comments")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
    .addColumn("change_request_id", "text")
    .addColumn("revision_id", "text", (c) => c.notNull())
    .addColumn("page_id", "text")
    .addColumn("node_key", "text")
    .addColumn("table_cell", "text")
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("resolved_at", "text")
    .addColumn("resolved_by", "text", (c) => c.references("users.id"))
    .addColumn("posted_by", "text", (c) => c.notNull().references("users.id"))
    .addColumn("posted_at", "text", (c) => c.notNull())
    .addColumn("edited_at", "text")
    .execute();
  await db.schema.createIndex("comments_scope").on("comments").columns(["space_id", "change_request_id", "posted_at", "id"]).execute();
  await db.schema.createIndex("comments_change_request").on("comments").columns(["change_request_id", "status"]).execute();

  await db.schema
    .createTable("comment_replies")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("comment_id", "text", (c) => c.notNull().references("comments.id").onDelete("cascade"))
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("posted_by", "text", (c) => c.notNull().references("users.id"))
    .addColumn("posted_at", "text", (c) => c.notNull())
    .addColumn("edited_at", "text")
    .execute();
  await db.schema.createIndex("comment_replies_comment").on("comment_replies").columns(["comment_id", "posted_at", "id"]).execute();
  await db.schema.createIndex("comment_replies_poster").on("comment_replies").column("posted_by").execute();

  await db.schema
    .createTable("comment_reactions")
    .addColumn("comment_id", "text", (c) => c.notNull().references("comments.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("emoji", "text", (c) => c.notNull())
    .addColumn("reacted_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("comment_reactions_pk", ["comment_id", "user_id", "emoji"])
    .execute();

  await db.schema
    .createTable("comment_reply_reactions")
    .addColumn("reply_id", "text", (c) => c.notNull().references("comment_replies.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("emoji", "text", (c) => c.notNull())
    .addColumn("reacted_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("comment_reply_reactions_pk", ["reply_id", "user_id", "emoji"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("comment_reply_reactions").ifExists().execute();
  await db.schema.dropTable("comment_reactions").ifExists().execute();
  await db.schema.dropTable("comment_replies").ifExists().execute();
  await db.schema.dropTable("comments").ifExists().execute();
}
