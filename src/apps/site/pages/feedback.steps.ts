/**
 * The rule of a page's feedback, shared by the page's form (feedback.action.ts) and the MCP
 * `sendFeedback` tool: feedback enabled by the customization, the page one the reader may read,
 * at most FEEDBACK_PER_HOUR answers an hour from one address to one site; one answer per voter,
 * page and UTC day (a second one replaces the first).
 */
import { createHash } from "node:crypto";
import { normalizeIP } from "@fastify/rate-limit";
import type { SiteRow } from "../../../db/schema.js";
import type { Deps } from "../../../deps.js";
import { sign } from "../../../lib/signing.js";
import { type FeedbackRating, feedbackFromAddressSince, recordFeedback } from "../../../modules/sites/feedback.queries.js";
import type { Reader } from "../reader.model.js";
import { customizationOf } from "../site-customization.views.js";
import { readablePage, type SiteView, type VariantView, variantVisible } from "../site-view.model.js";

/** Feedback answers one address may give one site in an hour. */
export const FEEDBACK_PER_HOUR = 30;

export type FeedbackOutcome = { recorded: true } | { recorded: false; status: 404 | 429; message: string };

export async function recordReaderFeedback(
  deps: Pick<Deps, "db" | "secret">,
  input: {
    site: SiteRow;
    view: SiteView;
    reader: Reader;
    variant: VariantView | undefined;
    pageId: string;
    rating: FeedbackRating;
    ip: string;
    /** Who votes: a random id of the reader's cookie, or what stands for them (hashed here). */
    voter: string;
  },
): Promise<FeedbackOutcome> {
  const { site, view, reader, variant, pageId } = input;
  if (!variant || !variantVisible(view, variant, reader) || !readablePage(variant, pageId, reader, false)) {
    return { recorded: false, status: 404, message: "There is no such page for you on this site." };
  }
  if (!customizationOf({ view, variant }).settings.feedback.enabled) {
    return { recorded: false, status: 404, message: "This site does not take feedback on its pages." };
  }
  const now = new Date();
  const address = sign(deps.secret, `feedback-address\n${normalizeIP(input.ip)}`);
  const hourAgo = new Date(now.getTime() - 60 * 60 * 1000).toISOString();
  if ((await feedbackFromAddressSince(deps.db, site.id, address, hourAgo)) >= FEEDBACK_PER_HOUR) {
    return { recorded: false, status: 429, message: "Too many answers from this address in the last hour; thank you, try again later." };
  }
  const createdAt = now.toISOString();
  await recordFeedback(deps.db, {
    siteId: site.id,
    spaceId: variant.siteSpace.spaceId,
    pageId,
    voter: createHash("sha256").update(input.voter).digest("base64url"),
    day: createdAt.slice(0, 10),
    rating: input.rating,
    address,
    createdAt,
  });
  return { recorded: true };
}
