/**
 * Ask on a published site: `<site>/~quire/ask?q=` streams the answer to the reader's question as
 * server-sent events (`text` events with the answer's words as they are written, then one `answer`
 * event with the whole answer and its citations, then `done`), read by the Ask box of the search
 * dialog. Only what the reader may see is searched, quoted and cited (askSite). A question without
 * words or too long is a 400 before the stream opens.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { checkQuestion } from "../../../content/ask/analysis.js";
import { statusOfDomainError } from "../../../http/error-handler.js";
import { openEventStream } from "../../../http/event-stream.js";
import { DomainError } from "../../../lib/errors.js";
import { robotsOf, type SiteRequest } from "../site.steps.js";
import { askSite, countQuestion } from "../site-pages.steps.js";

export const askStream = async (request: FastifyRequest, reply: FastifyReply, site: SiteRequest) => {
  const { app, ctx, reader } = site;
  const query = (request.query ?? {}) as Record<string, unknown>;
  const question = typeof query.q === "string" ? query.q : "";
  try {
    checkQuestion(question, "the `q` parameter (e.g. ~quire/ask?q=How do I install it?)");
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return reply
      .code(400)
      .header("cache-control", "no-store")
      .send({ error: { code: 400, message: error.message } });
  }
  const stream = openEventStream(reply, robotsOf(reader));
  try {
    const result = await askSite(app.deps, ctx, question, { onText: (text) => stream.send({ text }, "text"), signal: stream.signal });
    countQuestion(app.insights, site.site.id, result, "site");
    stream.send(result, "answer");
    stream.done();
  } catch (error) {
    if (stream.signal.aborted) return reply;
    if (error instanceof DomainError) stream.fail(statusOfDomainError[error.kind], error.message);
    else {
      request.log.error({ err: error }, "site ask failed");
      stream.fail(500, "The answer could not be written; try again.");
    }
  }
  return reply;
};
