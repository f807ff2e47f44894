/**
 * A width of an image made while the reader who asked for it waits (GET /files/...&w=), so that a
 * first visit gets a few tens of kilobytes rather than the stored file. Bounded three ways: only
 * still images of at most ON_REQUEST_MAX_PIXELS (variants.ts; larger and animated ones wait for the
 * job), through the process's encode slots (content/images/encode-slots.ts: a slot must free up
 * within SLOT_WAIT_MS), and an answer within ANSWER_WITHIN_MS of asking: past it the reader gets
 * the source, and the encoding still finishes and is stored for the next reader.
 */
import { encodeSlots } from "../../content/images/encode-slots.js";
import { deriveOneWidth, type ImageVariant } from "../../content/images/variants.js";
import type { Deps } from "../../deps.js";
import { saveOneVariant } from "./image-variants.queries.js";

/** How long a request waits for a free encode slot. */
const SLOT_WAIT_MS = 1_000;
/** How long after asking a request is answered, variant or not. */
const ANSWER_WITHIN_MS = 2_000;

/** The width asked for made now, stored, or undefined when it could not be in time (the caller serves the source). */
export async function variantOnRequest(
  deps: Pick<Deps, "db" | "log">,
  sourceHash: string,
  source: Buffer,
  width: number,
): Promise<ImageVariant | undefined> {
  const asked = Date.now();
  const release = await encodeSlots.forRequest(SLOT_WAIT_MS);
  if (!release) return undefined;
  const work = (async () => {
    try {
      const variant = await deriveOneWidth(source, width);
      if (variant) await saveOneVariant(deps.db, sourceHash, variant);
      return variant;
    } finally {
      release();
    }
  })();
  let stopTimer = () => {};
  const late = new Promise<undefined>((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, ANSWER_WITHIN_MS - (Date.now() - asked)));
    stopTimer = () => clearTimeout(timer);
  });
  try {
    return await Promise.race([work, late]);
  } catch (error) {
    deps.log.warn({ err: error, sourceHash }, "could not make an image width on request");
    return undefined;
  } finally {
    stopTimer();
    // Finished after the answer: stored all the same; a failure is the job's to retry.
    work.catch((error) => deps.log.warn({ err: error, sourceHash }, "could not make an image width on request"));
  }
}
