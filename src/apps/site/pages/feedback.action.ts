/**
 * An answer to "Was this page helpful?" (`POST <site>/~quire/feedback`, fields siteSpace, page,
 * rating), when the customization enables feedback and the reader may read the page. One answer
 * per reader (a random id in a cookie), page and UTC day: a second one replaces the first. At most
 * FEEDBACK_PER_HOUR answers an hour from one address to one site (a reader without the cookie is a
 * new reader each time, so this is what bounds a script). Answered with a redirect to the page's
 * thanks note.
 */
import { createHash } from "node:crypto";
import { normalizeIP } from "@fastify/rate-limit";
import type { FastifyReply, FastifyRequest } from "fastify";
import { randomBase62 } from "../../../lib/ids.js";
import { sign } from "../../../lib/signing.js";
import {
  FEEDBACK_RATINGS,
  type FeedbackRating,
  feedbackFromAddressSince,
  recordFeedback,
} from "../../../modules/sites/feedback.queries.js";
import { pageHref } from "../layout.js";
import { parseCookies } from "../reader.js";
import { plainNotFound, type SiteRequest, YEAR_SECONDS } from "../site.steps.js";
import { customizationOf } from "../site-customization.js";
import { readablePage, variantVisible } from "../site-view.js";

/** Feedback answers one address may give one site in an hour. */
export const FEEDBACK_PER_HOUR = 30;

export const feedbackAction = async (request: FastifyRequest, reply: FastifyReply, prepared: SiteRequest) => {
  const { ctx, reader, where, site } = prepared;
  const deps = prepared.app.deps;
  const body = (request.body ?? {}) as Record<string, unknown>;
  const field = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : "");
  const rating = field("rating") as FeedbackRating;
  const text = (status: number, message: string) =>
    reply.code(status).header("cache-control", "no-store").type("text/plain; charset=utf-8").send(message);
  if (!FEEDBACK_RATINGS.includes(rating)) return text(400, `rating must be one of ${FEEDBACK_RATINGS.join(", ")}.`);
  const variant = ctx.view.variants.get(field("siteSpace"));
  const pageId = field("page");
  if (!variant || !variantVisible(ctx.view, variant, reader) || !readablePage(variant, pageId, reader, false)) return plainNotFound(reply);
  if (!customizationOf({ view: ctx.view, variant }).settings.feedback.enabled) return plainNotFound(reply);
  const now = new Date();
  const address = sign(deps.secret, `feedback-address\n${normalizeIP(request.ip)}`);
  const hourAgo = new Date(now.getTime() - 60 * 60 * 1000).toISOString();
  if ((await feedbackFromAddressSince(deps.db, site.id, address, hourAgo)) >= FEEDBACK_PER_HOUR) {
    return text(429, "Too many answers from this address in the last hour; thank you, try again later.");
  }
  const cookieName = `quire-feedback~${createHash("sha256")
    .update(where.basePath || "/")
    .digest("hex")
    .slice(0, 12)}`;
  let id = parseCookies(request.headers.cookie).get(cookieName);
  if (!id || !/^[A-Za-z0-9]{22}$/.test(id)) {
    id = randomBase62(22);
    const secure = request.protocol === "https" || deps.config.publicUrl.startsWith("https:");
    reply.header(
      "set-cookie",
      `${cookieName}=${id}; Path=${where.basePath || "/"}; Max-Age=${YEAR_SECONDS}; SameSite=Lax; HttpOnly${secure ? "; Secure" : ""}`,
    );
  }
  const createdAt = now.toISOString();
  await recordFeedback(deps.db, {
    siteId: site.id,
    spaceId: variant.siteSpace.spaceId,
    pageId,
    voter: createHash("sha256").update(id).digest("base64url"),
    day: createdAt.slice(0, 10),
    rating,
    address,
    createdAt,
  });
  return reply
    .header("cache-control", "no-store")
    .redirect(`${pageHref({ ...ctx, variant, pageId }, variant, pageId)}#q-feedback-thanks`, 303);
};
