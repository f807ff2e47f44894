/**
 * Live collaboration (src/modules/collab): the Yjs state of each document being edited together,
 * one row per change request page. The state is what the editors converged on, persisted so that a
 * restart or another Quire process loads it where the clients left it; the page's document in the
 * change request is written from it as well (the state is the source, the page the result).
 * Deleted with its change request.
 */
import type { Kysely } from "kysely";
import { dialectOf } from "../database.js";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("collab_documents")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("change_request_id", "text", (c) => c.notNull().references("change_requests.id").onDelete("cascade"))
    .addColumn("page_id", "text", (c) => c.notNull())
    .addColumn("state", dialectOf(db) === "postgres" ? "bytea" : "blob", (c) => c.notNull())
    // The page document the state was last written to the change request as: another hash there
    // means the page changed outside the editor (the API, an update from the primary content).
    .addColumn("document_hash", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("collab_documents_change_request").on("collab_documents").column("change_request_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("collab_documents").ifExists().execute();
}
