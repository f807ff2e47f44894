/**
 * Makes the WebP variants of one stored image (content/images/variants.ts) and stores them, so that
 * the file's signed address with `&w=` serves them. Enqueued by that address the first time a
 * width of a source nobody asked for yet is asked (the request gets the source meanwhile).
 */
import { deriveVariants, UnderivableImageError } from "../../content/images/variants.js";
import { getBlob } from "../../content/store/blobs.queries.js";
import type { Executor } from "../../db/database.js";
import { enqueue } from "../../jobs/queue.js";
import { defineJob } from "../../jobs/registry.js";
import { saveVariants, variantEntries } from "./image-variants.queries.js";

declare module "../../jobs/registry.js" {
  interface JobPayloads {
    "image-variants": { sourceHash: string };
  }
}

/** Asks for the variants of a source (once while a job for it is queued or running). */
export async function requestVariants(db: Executor, sourceHash: string): Promise<boolean> {
  return (await enqueue(db, "image-variants", { sourceHash }, { dedupeKey: `image-variants:${sourceHash}` })) !== null;
}

export const imageVariantsJob = defineJob({
  kind: "image-variants",
  maxAttempts: 3,
  async run({ sourceHash }, { db, log }) {
    if ((await variantEntries(db, sourceHash)).some((entry) => entry.width === 0)) return;
    const source = await getBlob(db, sourceHash);
    if (!source) return;
    try {
      const variants = await deriveVariants(source);
      await db.transaction().execute((trx) => saveVariants(trx, sourceHash, variants));
      log.info({ sourceHash, widths: variants.map((v) => v.width) }, "image variants made");
    } catch (error) {
      if (!(error instanceof UnderivableImageError)) throw error;
      // Served as stored from now on; not tried again.
      await saveVariants(db, sourceHash, [], error.message);
      log.info({ sourceHash, reason: error.message }, "image served as stored");
    }
  },
});
