/**
 * An answer to "Was this page helpful?" (`POST <site>/~quire/feedback`, fields siteSpace, page,
 * rating), when the customization enables feedback and the reader may read the page. One answer
 * per reader (a random id in a cookie), page and UTC day: a second one replaces the first. At most
 * FEEDBACK_PER_HOUR answers an hour from one address to one site (a reader without the cookie is a
 * new reader each time, so this is what bounds a script). Answered with a redirect to the page's
 * thanks note.
 */
import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { randomBase62 } from "../../../lib/ids.js";
import { FEEDBACK_RATINGS, type FeedbackRating } from "../../../modules/sites/feedback.queries.js";
import { pageHref } from "../layout.views.js";
import { parseCookies } from "../reader.steps.js";
import { plainNotFound, type SiteRequest, YEAR_SECONDS } from "../site.steps.js";

import { recordReaderFeedback } from "./feedback.steps.js";

export { FEEDBACK_PER_HOUR } from "./feedback.steps.js";

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
  const cookieName = `quire-feedback~${createHash("sha256")
    .update(where.basePath || "/")
    .digest("hex")
    .slice(0, 12)}`;
  let id = parseCookies(request.headers.cookie).get(cookieName);
  const newId = !id || !/^[A-Za-z0-9]{22}$/.test(id);
  if (newId) id = randomBase62(22);
  const outcome = await recordReaderFeedback(deps, {
    site,
    view: ctx.view,
    reader,
    variant,
    pageId,
    rating,
    ip: request.ip,
    voter: id as string,
  });
  if (!outcome.recorded) return outcome.status === 404 ? plainNotFound(reply) : text(outcome.status, outcome.message);
  if (newId) {
    const secure = request.protocol === "https" || deps.config.publicUrl.startsWith("https:");
    reply.header(
      "set-cookie",
      `${cookieName}=${id}; Path=${where.basePath || "/"}; Max-Age=${YEAR_SECONDS}; SameSite=Lax; HttpOnly${secure ? "; Secure" : ""}`,
    );
  }
  return reply
    .header("cache-control", "no-store")
    .redirect(`${pageHref({ ...ctx, variant, pageId }, variant as NonNullable<typeof variant>, pageId)}#q-feedback-thanks`, 303);
};
