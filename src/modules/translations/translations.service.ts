/**
 * Creating a translation: checks what the request names (the source space, the languages, the
 * engine's pairs), then in the caller's transaction creates the target space next to the source
 * (locked: its content is written by runs only; with the source's default level and grants, so
 * that it reads like the source, no wider), records the translation and queues its first run.
 */
import type { Executor } from "../../db/database.js";
import type { SpaceRow, TranslationRow } from "../../db/schema.js";
import { invalid } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { nowIso } from "../../lib/time.js";
import type { OrgAccess } from "../../permissions/access.js";
import { createSpace } from "../spaces/spaces.service.js";
import { requestTranslationRun } from "./translations.jobs.js";
import { findTranslationOf, insertTranslation } from "./translations.queries.js";
import type { CreateTranslationValue } from "./translations.schemas.js";
import { requirePair, type Translator } from "./translator.model.js";

export const EMPTY_INSTRUCTIONS = { object: "document", data: {}, nodes: [] } as const;

/**
 * Checks the rest of a new translation's request (400s), its source being one the caller may read
 * (translations.loader.ts `requireTranslationSource`).
 */
export async function validateNewTranslation(
  db: Executor,
  source: SpaceRow,
  body: CreateTranslationValue,
  translator: Translator,
): Promise<void> {
  if (source.deletedAt) throw invalid(`body.source.space names "${source.id}", which is deleted; restore it first.`);
  if (body.language === body.source.language) {
    throw invalid(`body.language must differ from body.source.language (both are "${body.language}").`);
  }
  const existing = await findTranslationOf(db, source.id, body.language);
  if (existing) {
    throw invalid(
      `Space "${source.id}" already has a translation into "${body.language}" (translation "${existing.id}"); run or delete that one.`,
    );
  }
  await requirePair(translator, { from: body.source.language, to: body.language });
}

/** Title of the translated space: the source's, with the language, within a space title's 50 characters. */
export function targetTitle(sourceTitle: string, language: string): string {
  const suffix = ` (${language})`;
  return (
    Array.from(sourceTitle)
      .slice(0, 50 - suffix.length)
      .join("") + suffix
  );
}

export async function createTranslation(
  trx: Executor,
  input: { orgId: string; source: SpaceRow; body: CreateTranslationValue; access: OrgAccess; actorId: string },
): Promise<TranslationRow> {
  const { source, body } = input;
  const target = await createSpace(trx, {
    orgId: input.orgId,
    parentId: source.parentId,
    title: targetTitle(source.title, body.language),
    emoji: source.emoji || undefined,
    language: body.language,
    // Runs overwrite it: locked, nobody edits it by hand (an admin may unlock it, at that risk).
    editMode: "locked",
    // Next to the source, with its default level and grants: it reads like the source, no wider.
    accessLike: source,
    access: input.access,
    actorId: input.actorId,
  });
  const now = nowIso();
  const row: TranslationRow = {
    id: newId(),
    orgId: input.orgId,
    sourceSpaceId: source.id,
    sourceLanguage: body.source.language,
    language: body.language,
    targetSpaceId: target.id,
    instructions: JSON.stringify(body.instructions ?? EMPTY_INSTRUCTIONS),
    status: "pending",
    resultRevisionId: target.revisionId,
    sourceRevisionId: null,
    runVersion: 0,
    runs: 0,
    totalWords: 0,
    totalPages: 0,
    totalDurationMs: 0,
    latestDurationMs: 0,
    latestPages: 0,
    latestWords: 0,
    failure: null,
    createdBy: input.actorId,
    createdAt: now,
    updatedAt: now,
  };
  await insertTranslation(trx, row);
  await requestTranslationRun(trx, row.id, source.revisionId);
  return row;
}
