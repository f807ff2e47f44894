/**
 * Makes the WebP variants of stored images (content/images/variants.ts) and stores them, so that
 * the file's signed address with `&w=` serves them. Two jobs:
 *
 * - `image-variants` makes one source's widths. Enqueued by that address the first time a width
 *   of a source nobody asked for yet is asked and could not be made while the reader waited.
 * - `space-image-variants` makes the widths of every image of a space shown on a published site,
 *   before readers ask: enqueued when a site is published and when such a space's content changes.
 *   It runs at low priority: in slices of SLICE_MS that give way to any other job (a Git import
 *   queued or running pauses it), one image at a time, resting as long as each image took (so at
 *   most half of one core), and through the process's encode slots, where readers come first.
 */

import type { Logger } from "pino";
import { encodeSlots } from "../../content/images/encode-slots.js";
import { deriveVariants, UnderivableImageError } from "../../content/images/variants.js";
import { isDerivable } from "../../content/images/widths.js";
import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import { loadContent } from "../../content/revision/storage.js";
import { getBlob } from "../../content/store/blobs.queries.js";
import type { Executor } from "../../db/database.js";
import { enqueue } from "../../jobs/queue.js";
import { defineJob } from "../../jobs/registry.js";
import {
  otherWorkPending,
  saveVariants,
  shownOnPublishedSite,
  sourcesDone,
  spacesOfSite,
  spaceToWarm,
  variantEntries,
} from "./image-variants.queries.js";

declare module "../../jobs/registry.js" {
  interface JobPayloads {
    "image-variants": { sourceHash: string };
    "space-image-variants": { spaceId: string };
  }
}

/** Asks for the variants of a source (once while a job for it is queued or running). */
export async function requestVariants(db: Executor, sourceHash: string): Promise<boolean> {
  return (await enqueue(db, "image-variants", { sourceHash }, { dedupeKey: `image-variants:${sourceHash}` })) !== null;
}

/** Makes and stores the widths of one source not made yet; false when it was done already or is gone. */
async function makeVariants(db: Executor, sourceHash: string, log: Logger): Promise<boolean> {
  const entries = await variantEntries(db, sourceHash);
  if (entries.some((entry) => entry.width === 0)) return false;
  const source = await getBlob(db, sourceHash);
  if (!source) return false;
  // A slot for each encoding, not for the whole image: a waiting reader gets the next free one.
  const inSlot = async <T>(encoding: () => Promise<T>): Promise<T> => {
    const release = await encodeSlots.forJob();
    try {
      return await encoding();
    } finally {
      release();
    }
  };
  try {
    // Widths a reader's request made already are kept as they are.
    const variants = await deriveVariants(source, new Set(entries.map((entry) => entry.width)), inSlot);
    await saveVariants(db, sourceHash, variants);
    log.debug({ sourceHash, widths: variants.map((v) => v.width) }, "image variants made");
  } catch (error) {
    if (!(error instanceof UnderivableImageError)) throw error;
    // Served as stored from now on; not tried again.
    await saveVariants(db, sourceHash, [], error.message);
    log.info({ sourceHash, reason: error.message }, "image served as stored");
  }
  return true;
}

export const imageVariantsJob = defineJob({
  kind: "image-variants",
  maxAttempts: 3,
  async run({ sourceHash }, { db, log }) {
    await makeVariants(db, sourceHash, log);
  },
});

/** How long one slice of a space's images runs before the job lets queued work go first. */
const SLICE_MS = 20_000;
/** How long the job waits when other jobs are queued or running. */
const YIELD_MS = 15_000;
/** From a change of content to the first slice: the change's own follow-up jobs (search index) go first. */
const START_DELAY_MS = 5_000;

/** Asks for the images of a space to be made at their widths (one job per space at a time). */
export function requestSpaceImageVariants(db: Executor, spaceId: string, delayMs = START_DELAY_MS): Promise<string | null> {
  return enqueue(
    db,
    "space-image-variants",
    { spaceId },
    { dedupeKey: `space-image-variants:${spaceId}`, runAt: new Date(Date.now() + delayMs) },
  );
}

/** Asks for the images of every space a site shows (when it is published). */
export async function requestImagesOfSite(db: Executor, siteId: string): Promise<void> {
  for (const spaceId of await spacesOfSite(db, siteId)) await requestSpaceImageVariants(db, spaceId);
}

/** Primary-content hook (src/app.ts): a published space's new content gets its images made ahead of readers. */
export async function onSpaceContentChanged(trx: Executor, change: { spaceId: string }): Promise<void> {
  if (await shownOnPublishedSite(trx, change.spaceId)) await requestSpaceImageVariants(trx, change.spaceId);
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

export const spaceImageVariantsJob = defineJob({
  kind: "space-image-variants",
  maxAttempts: 5,
  async run({ spaceId }, { db, log, signal }) {
    const space = await spaceToWarm(db, spaceId);
    if (!space || space.deletedAt || !(await shownOnPublishedSite(db, spaceId))) return;
    // The current revision each slice: a change meanwhile is deduplicated into this job.
    const revision = await getSpaceRevision(db, spaceId, space.revisionId);
    const content = await loadContent(db, revision?.treeHash ?? null);
    const sources = [...new Set(content.files.filter((file) => isDerivable(file.contentType)).map((file) => file.blobHash))];
    const done = await sourcesDone(db, sources);
    const pending = sources.filter((hash) => !done.has(hash));
    const sliceEnd = Date.now() + SLICE_MS;
    let made = 0;
    for (const [index, hash] of pending.entries()) {
      if (signal.aborted) return { continueAt: new Date() };
      if (await otherWorkPending(db)) {
        log.info({ spaceId, made, left: pending.length - index }, "space images wait for other jobs");
        return { continueAt: new Date(Date.now() + YIELD_MS) };
      }
      const started = performance.now();
      if (await makeVariants(db, hash, log)) made++;
      const took = performance.now() - started;
      if (Date.now() > sliceEnd && index < pending.length - 1) {
        log.info({ spaceId, made, left: pending.length - index - 1 }, "space images: slice done");
        return { continueAt: new Date(Date.now() + took) };
      }
      // Rest as long as the image took: this background work keeps at most half of one core.
      await pause(took, signal);
    }
    if (made > 0) log.info({ spaceId, made }, "space images made at their widths");
  },
});
