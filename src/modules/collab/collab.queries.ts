import type { Executor } from "../../db/database.js";
import type { CollabDocumentsTable } from "../../db/schema.js";

export type CollabDocumentRow = CollabDocumentsTable;

export function getCollabDocument(db: Executor, name: string): Promise<CollabDocumentRow | undefined> {
  return db.selectFrom("collabDocuments").selectAll().where("name", "=", name).executeTakeFirst();
}

/** Locks the document's row until the transaction ends (PostgreSQL; SQLite has one writer anyway). */
export function getCollabDocumentForUpdate(db: Executor, name: string, lock: boolean): Promise<CollabDocumentRow | undefined> {
  const query = db.selectFrom("collabDocuments").selectAll().where("name", "=", name);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

/** Inserts the row unless the document has one already; true when this one was inserted. */
export async function insertCollabDocumentIfAbsent(db: Executor, row: CollabDocumentRow): Promise<boolean> {
  const result = await db
    .insertInto("collabDocuments")
    .values(row)
    .onConflict((oc) => oc.column("name").doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function replaceCollabDocument(db: Executor, row: CollabDocumentRow): Promise<void> {
  await db
    .insertInto("collabDocuments")
    .values(row)
    .onConflict((oc) => oc.column("name").doUpdateSet({ state: row.state, documentHash: row.documentHash, updatedAt: row.updatedAt }))
    .execute();
}

export async function setCollabDocumentHash(db: Executor, name: string, documentHash: string | null): Promise<void> {
  await db.updateTable("collabDocuments").set({ documentHash }).where("name", "=", name).execute();
}

/** The space a change request belongs to (the document name carries only the change request's id). */
export async function spaceOfChangeRequest(db: Executor, changeRequestId: string): Promise<string | undefined> {
  const row = await db.selectFrom("changeRequests").select("spaceId").where("id", "=", changeRequestId).executeTakeFirst();
  return row?.spaceId;
}
