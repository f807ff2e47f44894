/**
 * Change request reviews. A reviewer's newest review counts; older ones (and any review followed by
 * a new request to the same reviewer) are `outdated`, a stored flag so that lists can filter on it.
 * A review submitted with a comment owns a comment of the change request (`comments.review_id`),
 * which lists, replies and reactions treat like any other comment.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("change_request_reviews")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("change_request_id", "text", (c) => c.notNull().references("change_requests.id").onDelete("cascade"))
    .addColumn("reviewer_id", "text", (c) => c.notNull().references("users.id"))
    .addColumn("requested_by", "text")
    .addColumn("revision", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("outdated", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("comment_id", "text", (c) => c.references("comments.id").onDelete("set null"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("change_request_reviews_list")
    .on("change_request_reviews")
    .columns(["change_request_id", "created_at", "id"])
    .execute();
  // One current review per reviewer (submissions take the change request's row lock and follow each other).
  await db.schema
    .createIndex("change_request_reviews_current")
    .on("change_request_reviews")
    .columns(["change_request_id", "reviewer_id"])
    .unique()
    .where(sql.ref("outdated"), "=", 0)
    .execute();
  await db.schema.alterTable("comments").addColumn("review_id", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("comments").dropColumn("review_id").execute();
  await db.schema.dropTable("change_request_reviews").ifExists().execute();
}
