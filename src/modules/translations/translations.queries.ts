import type { Executor } from "../../db/database.js";
import type { TranslationRow } from "../../db/schema.js";
import { nowIso } from "../../lib/time.js";
import type { TranslationSourceNode } from "./translations.policy.js";

/** A translation of this organization; another organization's id finds nothing. */
export function getTranslation(db: Executor, orgId: string, id: string): Promise<TranslationRow | undefined> {
  return db.selectFrom("translations").selectAll().where("orgId", "=", orgId).where("id", "=", id).executeTakeFirst();
}

/** A translation by id alone (jobs). */
export function getTranslationById(db: Executor, id: string): Promise<TranslationRow | undefined> {
  return db.selectFrom("translations").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Every translation of an organization (an organization has a handful; lists filter them by access). */
export function listTranslationsOfOrg(db: Executor, orgId: string): Promise<TranslationRow[]> {
  return db.selectFrom("translations").selectAll().where("orgId", "=", orgId).orderBy("createdAt").orderBy("id").execute();
}

/** Translations whose source is this space. */
export function listTranslationsOfSource(db: Executor, spaceId: string): Promise<TranslationRow[]> {
  return db.selectFrom("translations").selectAll().where("sourceSpaceId", "=", spaceId).execute();
}

export function findTranslationOf(db: Executor, sourceSpaceId: string, language: string): Promise<TranslationRow | undefined> {
  return db
    .selectFrom("translations")
    .selectAll()
    .where("sourceSpaceId", "=", sourceSpaceId)
    .where("language", "=", language)
    .executeTakeFirst();
}

/** The source spaces of translations, as the policy needs them, by id (only those still in `orgId`). */
export async function sourceNodes(db: Executor, orgId: string, spaceIds: readonly string[]): Promise<Map<string, TranslationSourceNode>> {
  const nodes = new Map<string, TranslationSourceNode>();
  if (spaceIds.length === 0) return nodes;
  const rows = await db
    .selectFrom("spaces")
    .select(["id", "parentId", "defaultLevel", "deletedAt"])
    .where("orgId", "=", orgId)
    .where("id", "in", [...new Set(spaceIds)])
    .execute();
  for (const row of rows) nodes.set(row.id, row);
  return nodes;
}

export async function insertTranslation(db: Executor, row: TranslationRow): Promise<void> {
  await db.insertInto("translations").values(row).execute();
}

export async function updateInstructions(db: Executor, id: string, instructions: unknown): Promise<void> {
  await db
    .updateTable("translations")
    .set({ instructions: JSON.stringify(instructions), updatedAt: nowIso() })
    .where("id", "=", id)
    .execute();
}

export async function deleteTranslation(db: Executor, orgId: string, id: string): Promise<void> {
  await db.deleteFrom("translationItems").where("translationId", "=", id).execute();
  await db.deleteFrom("translations").where("orgId", "=", orgId).where("id", "=", id).execute();
}

/** Marks a translation as having a run queued (unless one is running: it will pick up the change). */
export async function markPending(db: Executor, id: string): Promise<void> {
  await db
    .updateTable("translations")
    .set({ status: "pending", updatedAt: nowIso() })
    .where("id", "=", id)
    .where("status", "=", "completed")
    .execute();
}

export async function setStatus(db: Executor, id: string, status: "pending" | "running" | "completed"): Promise<void> {
  await db.updateTable("translations").set({ status, updatedAt: nowIso() }).where("id", "=", id).execute();
}

/** Whether a run of the translation is queued (not yet started). */
export async function hasQueuedRun(db: Executor, id: string): Promise<boolean> {
  const queued = await db
    .selectFrom("jobs")
    .select("id")
    .where("kind", "=", "translation-run")
    .where("state", "=", "queued")
    .where("dedupeKey", "like", `translation-run:${id}:%`)
    .executeTakeFirst();
  return !!queued;
}

export async function recordFailure(db: Executor, id: string, message: string): Promise<void> {
  const now = nowIso();
  await db
    .updateTable("translations")
    .set({ status: "completed", failure: JSON.stringify({ message, at: now }), updatedAt: now })
    .where("id", "=", id)
    .execute();
}

export interface TranslationItem {
  itemId: string;
  sourceFingerprint: string;
  translated: TranslatedItem;
}

/** What a translated page (or reusable content) became. */
export interface TranslatedItem {
  title: string;
  description?: string;
  /** Sidebar label, when the page has one. */
  label?: string;
  documentHash?: string;
  /** Words translated for it (counted again when it changes). */
  words: number;
}

export async function loadItems(db: Executor, translationId: string): Promise<Map<string, TranslationItem>> {
  const rows = await db.selectFrom("translationItems").selectAll().where("translationId", "=", translationId).execute();
  return new Map(
    rows.map((row) => [
      row.itemId,
      { itemId: row.itemId, sourceFingerprint: row.sourceFingerprint, translated: JSON.parse(row.translated) as TranslatedItem },
    ]),
  );
}

/** Replaces the stored items with `items` (those of the content just written). */
export async function replaceItems(db: Executor, translationId: string, items: readonly TranslationItem[]): Promise<void> {
  await db.deleteFrom("translationItems").where("translationId", "=", translationId).execute();
  for (let i = 0; i < items.length; i += 200) {
    await db
      .insertInto("translationItems")
      .values(
        items.slice(i, i + 200).map((item) => ({
          translationId,
          itemId: item.itemId,
          sourceFingerprint: item.sourceFingerprint,
          translated: JSON.stringify(item.translated),
        })),
      )
      .execute();
  }
}

export interface RunOutcome {
  resultRevisionId: string;
  sourceRevisionId: string;
  pages: number;
  newPages: number;
  words: number;
  durationMs: number;
}

/**
 * Records a finished run, only if no other run committed since this one started (`runVersion`);
 * returns false otherwise (the caller's transaction must then be rolled back).
 */
export async function recordRun(db: Executor, row: TranslationRow, outcome: RunOutcome): Promise<boolean> {
  const result = await db
    .updateTable("translations")
    .set((eb) => ({
      status: "completed",
      failure: null,
      resultRevisionId: outcome.resultRevisionId,
      sourceRevisionId: outcome.sourceRevisionId,
      runVersion: eb("runVersion", "+", 1),
      runs: eb("runs", "+", 1),
      totalWords: eb("totalWords", "+", outcome.words),
      totalPages: eb("totalPages", "+", outcome.newPages),
      totalDurationMs: eb("totalDurationMs", "+", outcome.durationMs),
      latestDurationMs: outcome.durationMs,
      latestPages: outcome.pages,
      latestWords: outcome.words,
      updatedAt: nowIso(),
    }))
    .where("id", "=", row.id)
    .where("runVersion", "=", row.runVersion)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
