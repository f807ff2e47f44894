/**
 * The translation run job, and what enqueues it: a create, a manual run, and every change of a
 * source space's primary content (a merge, a Git import, a template), through `onSourceChanged`,
 * which the app wires as a primary-content hook (src/app.ts), run in the transaction that made the change.
 */
import type { Executor } from "../../db/database.js";
import { enqueue } from "../../jobs/queue.js";
import { defineJob } from "../../jobs/registry.js";
import { runTranslation, TRANSLATION_RUN_ATTEMPTS, type TranslationRunPayload } from "./translation-run.service.js";
import { listTranslationsOfSource, markPending } from "./translations.queries.js";

declare module "../../jobs/registry.js" {
  interface JobPayloads {
    "translation-run": TranslationRunPayload;
  }
}

export const translationRunJob = defineJob({
  kind: "translation-run",
  maxAttempts: TRANSLATION_RUN_ATTEMPTS,
  run: (payload, ctx) => runTranslation(ctx, payload),
});

/**
 * Queues a run of the translation (one per source revision: a second request for the same source
 * content while one is queued or running is a no-op) and shows it as `pending`. A run started by a
 * change of the source (`changedSource`) is skipped if an earlier run already translated it.
 */
export async function requestTranslationRun(
  trx: Executor,
  translationId: string,
  sourceRevisionId: string,
  options: { changedSource?: boolean } = {},
): Promise<void> {
  const payload: TranslationRunPayload = { translationId, ...(options.changedSource ? { changedSource: sourceRevisionId } : {}) };
  await enqueue(trx, "translation-run", payload, { dedupeKey: `translation-run:${translationId}:${sourceRevisionId}` });
  await markPending(trx, translationId);
}

/** Every translation of a space re-runs when the space's primary content changes. */
export async function onSourceChanged(trx: Executor, change: { spaceId: string; revisionId: string }): Promise<void> {
  for (const translation of await listTranslationsOfSource(trx, change.spaceId)) {
    await requestTranslationRun(trx, translation.id, change.revisionId, { changedSource: true });
  }
}
