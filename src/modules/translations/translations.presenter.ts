import type { TranslationRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import type { TranslationPermissionsValue, TranslationResponse } from "./translations.schemas.js";

const seconds = (ms: number) => Math.round(ms / 1000);

/** The public shape of a translation (`Translation`). */
export function presentTranslation(row: TranslationRow, permissions: TranslationPermissionsValue, urls: Urls): TranslationResponse {
  const failure = row.failure ? (JSON.parse(row.failure) as { message: string; at: string }) : undefined;
  return {
    object: "translation",
    id: row.id,
    status: row.status as TranslationResponse["status"],
    source: { space: row.sourceSpaceId, language: row.sourceLanguage as TranslationResponse["language"] },
    language: row.language as TranslationResponse["language"],
    instructions: JSON.parse(row.instructions),
    result: { space: row.targetSpaceId, revision: row.resultRevisionId },
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    stats: {
      runs: row.runs,
      totalWords: row.totalWords,
      totalPages: row.totalPages,
      totalDuration: seconds(row.totalDurationMs),
      latestRunDuration: seconds(row.latestDurationMs),
      latestPages: row.latestPages,
      latestWords: row.latestWords,
    },
    ...(failure ? { failure } : {}),
    permissions,
    urls: { location: urls.api(`/orgs/${row.orgId}/translations/${row.id}`) },
  };
}
