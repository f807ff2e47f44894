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
import { requestVariants } from "./image-variants.jobs.js";
import { saveOneVariant, variantData, variantEntries } from "./image-variants.queries.js";

/** What a request for an image at a width is answered with. */
export type AtWidth =
  /** A variant, stored or just made: kept by the browser like the file. */
  | { kind: "variant"; bytes: Buffer; contentType: string }
  /** The variants are not all made yet: the source, not kept, so that the next visit gets the variant. */
  | { kind: "source-for-now"; bytes: Buffer }
  /** Every width is made and none stored fits: the source, as without a width. */
  | { kind: "source" };

/**
 * The image `sourceHash` at about `width`: the narrowest variant at least that wide (the widest made
 * for a wider request, once every width is made). A width not made yet is made while the reader
 * waits when it can be in time (variantOnRequest), and the job is asked for the others.
 */
export async function imageAtWidth(
  deps: Pick<Deps, "db" | "log" | "notifyJobs">,
  sourceHash: string,
  width: number,
  source: () => Promise<Buffer>,
): Promise<AtWidth> {
  const entries = await variantEntries(deps.db, sourceHash);
  const done = entries.some((entry) => entry.width === 0);
  const made = entries.filter((entry) => entry.width > 0);
  // Once every width is made, the widest stands for a wider request; before, only a width at least as wide will do.
  const chosen = made.find((entry) => entry.width >= width) ?? (done ? made.at(-1) : undefined);
  if (chosen?.stored) {
    const data = await variantData(deps.db, sourceHash, chosen.width);
    if (data) return { kind: "variant", bytes: data, contentType: chosen.contentType };
  }
  if (done) return { kind: "source" };
  const bytes = await source();
  // Nothing at this width yet: made now when an encode slot frees up soon enough (else the job makes it).
  const now = chosen ? undefined : await variantOnRequest(deps, sourceHash, bytes, width);
  // The job makes the other widths (and the width asked for, if it could not be made now).
  if (await requestVariants(deps.db, sourceHash)) deps.notifyJobs();
  if (now?.data) return { kind: "variant", bytes: now.data, contentType: now.contentType };
  return { kind: "source-for-now", bytes };
}

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
