/**
 * Inline comments of the block editor: the text a comment was made on. The comment itself stays
 * a comment on its block (GitBook's comment target has no text range); its anchor is kept beside
 * it as two Yjs relative positions in the page's collaboration document, which follow the text as
 * anyone edits around it, and the words quoted when it was made (shown when the positions can no
 * longer be found, as after the page changed outside the editor). Deleted with its comment.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("comment_anchors")
    .addColumn("comment_id", "text", (c) => c.primaryKey().references("comments.id").onDelete("cascade"))
    .addColumn("quote", "text", (c) => c.notNull())
    // Base64 of Y.encodeRelativePosition: where the commented text starts and ends.
    .addColumn("start", "text", (c) => c.notNull())
    .addColumn("end", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("comment_anchors").ifExists().execute();
}
