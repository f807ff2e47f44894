/**
 * The site's search page (`<site>/~quire/search?q=`) and its instant search
 * (`<site>/~quire/search.json?q=`, read by the header's box as the reader types): results for this
 * reader, never kept.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { statusOfDomainError } from "../../../http/error-handler.js";
import { DomainError } from "../../../lib/errors.js";
import { answer, robotsOf, type SiteRequest, send, visitOf } from "../site.steps.js";
import { renderSearchPage, searchResultsJson, searchSite } from "../site-pages.steps.js";
import { resolvePath } from "../site-view.model.js";

const queryOf = (request: FastifyRequest) => {
  const query = (request.query ?? {}) as Record<string, unknown>;
  return typeof query.q === "string" ? query.q.slice(0, 500) : "";
};

export const searchPage = async (request: FastifyRequest, reply: FastifyReply, site: SiteRequest) => {
  const { app, ctx, view, reader } = site;
  const q = queryOf(request);
  let results: Awaited<ReturnType<typeof searchSite>> | { error: string } = [];
  let status = 200;
  if (q.trim() !== "") {
    try {
      results = await searchSite(app.deps, ctx, q);
      app.insights?.search(visitOf(request, site.site), q, results.length, false);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      // A query refused for its shape: the page says what to change, with the status that says so.
      results = { error: error.message };
      if (error.kind === "invalid") status = 400;
    }
  }
  // The search page keeps the navigation of the site's home variant.
  const home = resolvePath(view, [], reader, []);
  const searchCtx = { ...ctx, variant: home.kind === "redirect" ? undefined : home.variant };
  const result = answer(status, "text/html; charset=utf-8", renderSearchPage(searchCtx, q, results), robotsOf(reader));
  return send(request, reply, result, "private, no-cache", undefined);
};

/** The same search as the page, as JSON; a query refused (or none) is a 4xx saying what to change. */
export const searchJson = async (request: FastifyRequest, reply: FastifyReply, site: SiteRequest) => {
  const { app, ctx, reader } = site;
  const q = queryOf(request);
  const refuse = (status: number, message: string) =>
    send(
      request,
      reply,
      answer(status, JSON_TYPE, JSON.stringify({ error: { code: status, message } }), robotsOf(reader)),
      "no-store",
      undefined,
    );
  if (q.trim() === "") return refuse(400, "Give the words to search for in the `q` parameter, e.g. ~quire/search.json?q=install.");
  let results: Awaited<ReturnType<typeof searchSite>>;
  try {
    results = await searchSite(app.deps, ctx, q);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return refuse(statusOfDomainError[error.kind], error.message);
  }
  // The header's box searches as the reader types: the recorder keeps the last of a run of searches.
  app.insights?.search(visitOf(request, site.site), q, results.length, true);
  const result = answer(200, JSON_TYPE, JSON.stringify(searchResultsJson(q, results)), robotsOf(reader));
  return send(request, reply, result, "private, no-cache", undefined);
};

const JSON_TYPE = "application/json; charset=utf-8";
