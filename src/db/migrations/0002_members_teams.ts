/**
 * Members and teams: an index for listing members by last activity (keyset paging on
 * `last_seen_at, user_id` within an organization, like `members_joined` for `joined_at`).
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("members_last_seen").on("members").columns(["org_id", "last_seen_at", "user_id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("members_last_seen").ifExists().execute();
}
