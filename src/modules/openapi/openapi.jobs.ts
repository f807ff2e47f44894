/**
 * OpenAPI jobs.
 *
 * `openapi-process` processes one generation of a spec's source: `pending` -> `progress` ->
 * `complete`. The work (fetch, parse, bundle, validate) happens outside any transaction; its result
 * is written in one transaction that first checks the spec still has that generation (a PUT that
 * came meanwhile has its own job, whose result wins). A new version is recorded only when the
 * processed document differs from the last version; a failure records its code and problems and
 * keeps the last version. A worker that dies mid-run leaves nothing written: the job's lease
 * expires, another worker runs it again from the start, and after MAX_ATTEMPTS interrupted or
 * failed runs the spec says so in `lastProcessedErrors`.
 *
 * `openapi-refresh` runs every few minutes (a periodic job) and enqueues the processing of every
 * URL spec last fetched longer ago than QUIRE_OPENAPI_REFRESH_MINUTES (6 hours by default).
 */
import type { Executor } from "../../db/database.js";
import type { JobContext } from "../../jobs/registry.js";
import { defineJob } from "../../jobs/registry.js";
import { newId } from "../../lib/ids.js";
import { nowIso } from "../../lib/time.js";
import {
  getSpecSource,
  getVersionHash,
  insertVersion,
  lockSpecGeneration,
  markInProgress,
  recordProcessResult,
  specsDueForRefresh,
} from "./openapi.queries.js";
import { enqueueProcessing } from "./openapi.service.js";
import { type IsolatedOutcome, processSpecIsolated } from "./openapi-processing.adapter.js";

declare module "../../jobs/registry.js" {
  interface JobPayloads {
    "openapi-process": { specId: string; generation: number };
    "openapi-refresh": Record<string, never>;
  }
}

/** Runs of one processing job (failed or interrupted) before the spec records the failure. */
export const MAX_ATTEMPTS = 3;

/** Time for one processing (fetches included); the job's lease (15 minutes) is longer. */
export const PROCESS_TIMEOUT_MS = 10 * 60_000;

/** How often the worker looks for URL specs due for a re-fetch. */
export const REFRESH_SCAN_EVERY_MS = 5 * 60_000;

export const openapiProcessJob = defineJob({
  kind: "openapi-process",
  maxAttempts: MAX_ATTEMPTS,
  async run(payload, ctx) {
    if (ctx.attempt > MAX_ATTEMPTS) {
      // Claimed again after its lease expired MAX_ATTEMPTS times: the worker keeps dying on it.
      await recordJobFailure(ctx, payload, `processing was interrupted ${MAX_ATTEMPTS} times (the worker stopped while processing it)`);
      return;
    }
    const source = await getSpecSource(ctx.db, payload.specId);
    if (!source || source.sourceGeneration !== payload.generation) return; // deleted, or superseded by a newer source
    if (!(await markInProgress(ctx.db, payload.specId, payload.generation))) return;

    // In a worker thread: a large document never blocks the event loop that serves requests.
    const outcome = await processSpecIsolated(source.sourceUrl !== null ? { url: source.sourceUrl } : { text: source.sourceText ?? "" }, {
      maxBytes: ctx.config.openapiMaxBytes,
      timeoutMs: ctx.config.openapiFetchTimeoutMs,
      allowNetworks: ctx.config.fetchAllowNetworks,
      memoryMb: ctx.config.openapiMemoryMb,
      maxMs: PROCESS_TIMEOUT_MS,
      signal: ctx.signal,
    });
    const recorded = await ctx.db.transaction().execute((trx) => recordOutcome(trx, ctx, payload, source.sourceUrl !== null, outcome));
    ctx.log.info(
      { specId: payload.specId, generation: payload.generation, ok: outcome.ok, ...(outcome.ok ? {} : { code: outcome.code }), recorded },
      "processed OpenAPI spec",
    );
  },
  async onFailed(payload, error, ctx) {
    await recordJobFailure(ctx, payload, error.message);
  },
});

/** Writes the outcome of one generation, unless a newer source replaced it meanwhile. */
async function recordOutcome(
  trx: Executor,
  ctx: JobContext,
  payload: { specId: string; generation: number },
  fromUrl: boolean,
  outcome: IsolatedOutcome,
): Promise<"superseded" | "version" | "unchanged" | "error"> {
  const generation = await lockSpecGeneration(trx, payload.specId, ctx.dialect);
  if (generation !== payload.generation) return "superseded";
  const now = nowIso();
  const fetched = fromUrl ? { lastFetchedAt: now } : {};
  if (!outcome.ok) {
    await recordProcessResult(trx, payload.specId, {
      processingState: "complete",
      lastProcessedAt: now,
      ...fetched,
      lastProcessErrorCode: outcome.code,
      lastProcessedErrors: JSON.stringify(outcome.errors),
    });
    return "error";
  }
  const source = await getSpecSource(trx, payload.specId);
  const lastHash = source?.lastVersionId ? await getVersionHash(trx, source.lastVersionId) : undefined;
  let lastVersionId: string | undefined;
  if (lastHash !== outcome.hash) {
    lastVersionId = newId();
    await insertVersion(trx, {
      id: lastVersionId,
      specId: payload.specId,
      contentHash: outcome.hash,
      document: outcome.json,
      createdAt: now,
    });
  }
  await recordProcessResult(trx, payload.specId, {
    processingState: "complete",
    lastProcessedAt: now,
    ...fetched,
    lastProcessErrorCode: null,
    lastProcessedErrors: null,
    ...(lastVersionId ? { lastVersionId } : {}),
  });
  return lastVersionId ? "version" : "unchanged";
}

/** The job gave up: the spec is complete again, keeps its last version, and says why. */
async function recordJobFailure(ctx: JobContext, payload: { specId: string; generation: number }, reason: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const generation = await lockSpecGeneration(trx, payload.specId, ctx.dialect);
    if (generation !== payload.generation) return;
    const source = await getSpecSource(trx, payload.specId);
    const now = nowIso();
    await recordProcessResult(trx, payload.specId, {
      processingState: "complete",
      lastProcessedAt: now,
      ...(source?.sourceUrl ? { lastFetchedAt: now } : {}),
      lastProcessErrorCode: null,
      lastProcessedErrors: JSON.stringify([{ message: `The spec could not be processed: ${reason}.`, code: "JOB_FAILED" }]),
    });
  });
}

export const openapiRefreshJob = defineJob({
  kind: "openapi-refresh",
  maxAttempts: 3,
  // Finds the URL specs due for a re-fetch (QUIRE_OPENAPI_REFRESH_MINUTES after their last fetch).
  everyMs: REFRESH_SCAN_EVERY_MS,
  async run(_payload, ctx) {
    const before = new Date(Date.now() - ctx.config.openapiRefreshMinutes * 60_000).toISOString();
    let enqueued = 0;
    // A bounded batch per scan: the next scan (minutes later) takes the rest.
    for (const { id, sourceGeneration } of await specsDueForRefresh(ctx.db, before, 500)) {
      if (await enqueueProcessing(ctx.db, id, sourceGeneration)) enqueued++;
    }
    if (enqueued > 0) {
      ctx.log.info({ specs: enqueued }, "re-fetching OpenAPI specs");
      ctx.notifyJobs();
    }
  },
});
