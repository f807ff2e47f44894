/**
 * Ask, GitBook's "AI" answers, over the documentation a member may read: askInOrganization (POST
 * /v1/orgs/{o}/ask), streamAskInOrganization (GET /v1/orgs/{o}/ask/stream), streamAskInSite (POST
 * /v1/orgs/{o}/sites/{s}/ask) and streamRecommendedQuestionsInSite (GET .../ask/questions). The
 * streams are server-sent events as GitBook's client reads them (http/event-stream.ts). Answers
 * come from content/ask: retrieval over the search index, then the configured engine
 * (QUIRE_ASK_*). Nothing is recorded (the answer's `answered` is the hook for insights).
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { checkQuestion } from "../../content/ask/analysis.js";
import { type AskAnswer, type AskOptions, askEngineOf } from "../../content/ask/engines.js";
import { retrieve } from "../../content/ask/retrieve.js";
import { convertMarkdown } from "../../content/markdown/off-thread.js";
import { fullTextIndex } from "../../content/search/engine.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { statusOfDomainError } from "../../http/error-handler.js";
import { openEventStream } from "../../http/event-stream.js";
import { errorResponses } from "../../http/schemas.js";
import { DomainError, invalid } from "../../lib/errors.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { requireSite } from "../sites/sites.loader.js";
import { SiteParams } from "../sites/sites.schemas.js";
import { readableSpaceNodes } from "../spaces/spaces.loader.js";
import { listSpaceNodes } from "../spaces/spaces.queries.js";
import { presentAnswer, recommendedQuestions } from "./ask.presenter.js";
import { indexedRevisionOf, questionSources, siteSpacesOfSite } from "./ask.queries.js";
import { AskBody, AskQueryString, AskResponse, RecommendedQuestionsQuery, SiteAskBody, StreamAskQueryString } from "./ask.schemas.js";

const tags = ["organization-ask"];
const RECOMMENDED_QUESTIONS = 5;

export const askRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, dialect } = deps;
  const index = fullTextIndex(dialect);

  /** The spaces of the organization the caller may read. */
  const readableSpaces = async (request: FastifyRequest, orgId: string) => {
    const { org, access } = await requireOrganization(db, actorOf(request), orgId);
    return { org, access, spaceIds: readableSpaceNodes(access, await listSpaceNodes(db, { orgId: org.id })).map((n) => n.id) };
  };

  const answerOf = async (spaceIds: string[], question: string, options: AskOptions = {}) => {
    const retrieval = await retrieve(index, db, spaceIds, question, "members");
    return askEngineOf(deps.config.ask).answer(question, retrieval, options);
  };

  const present = async (answer: AskAnswer, format: "document" | "markdown" | undefined) => {
    const revisions = await indexedRevisionOf(db, [...new Set(answer.sources.map((s) => s.spaceId))]);
    // GitBook's default is a JSON document; Markdown on request.
    const body =
      format === "markdown"
        ? { markdown: answer.markdown }
        : { document: JSON.parse((await convertMarkdown({ markdown: answer.markdown })).json) as unknown };
    return presentAnswer(answer, body, revisions);
  };

  /** Streams an answer: one `SearchAIAnswerStream` event as the text grows (Markdown only), the whole answer last. */
  const streamAnswer = async (
    request: FastifyRequest,
    reply: FastifyReply,
    spaceIds: string[],
    question: string,
    format: "document" | "markdown" | undefined,
  ) => {
    const stream = openEventStream(reply);
    let text = "";
    try {
      const answer = await answerOf(spaceIds, question, {
        signal: stream.signal,
        onText: (piece) => {
          text += piece;
          if (format === "markdown") {
            stream.send({ type: "answer", answer: { answer: { markdown: text }, followupQuestions: [], sources: [] } });
          }
        },
      });
      stream.send({ type: "answer", answer: await present(answer, format) });
      stream.done();
    } catch (error) {
      if (stream.signal.aborted) return reply;
      if (error instanceof DomainError) stream.fail(statusOfDomainError[error.kind], error.message);
      else {
        request.log.error({ err: error }, "ask stream failed");
        stream.fail(500, "The answer could not be written; try again.");
      }
    }
    return reply;
  };

  app.post(
    "/v1/orgs/:organizationId/ask",
    {
      schema: {
        tags,
        operationId: "askInOrganization",
        params: OrganizationParams,
        querystring: AskQueryString,
        body: AskBody,
        response: { 200: AskResponse, ...errorResponses },
      },
    },
    async (request) => {
      const question = checkQuestion(request.body.query, "body.query");
      const { spaceIds } = await readableSpaces(request, request.params.organizationId);
      const answer = await answerOf(spaceIds, question);
      return { answer: await present(answer, request.query.format) };
    },
  );

  app.get(
    "/v1/orgs/:organizationId/ask/stream",
    {
      schema: {
        tags,
        operationId: "streamAskInOrganization",
        params: OrganizationParams,
        querystring: StreamAskQueryString,
        response: errorResponses,
      },
    },
    async (request, reply) => {
      const question = checkQuestion(request.query.query, "the `query` parameter");
      const { spaceIds } = await readableSpaces(request, request.params.organizationId);
      return streamAnswer(request, reply, spaceIds, question, request.query.format);
    },
  );

  /**
   * The site spaces a site question is asked in (its scope), of those the caller may read: 400 for
   * a site space the site does not have.
   */
  const siteScope = async (request: FastifyRequest, params: { organizationId: string; siteId: string }, scope: SiteScope) => {
    const { organizationId, siteId } = params;
    const { site } = await requireSite(db, actorOf(request), organizationId, siteId);
    const { spaceIds: readable } = await readableSpaces(request, organizationId);
    const siteSpaces = await siteSpacesOfSite(db, site.id);
    const byId = new Map(siteSpaces.map((s) => [s.id, s]));
    let chosen = siteSpaces;
    if (scope.mode === "specific") {
      const unknown = scope.siteSpaceIds.find((id) => !byId.has(id));
      if (unknown) throw invalid(`scope.siteSpaceIds: the site has no site space "${unknown}".`);
      chosen = scope.siteSpaceIds.map((id) => byId.get(id) as (typeof siteSpaces)[number]);
    } else if (scope.mode === "default") {
      if (scope.currentSiteSpace && !byId.has(scope.currentSiteSpace)) {
        throw invalid(`scope.currentSiteSpace: the site has no site space "${scope.currentSiteSpace}".`);
      }
      chosen = siteSpaces.filter((s) => s.isDefault || s.id === scope.currentSiteSpace);
    }
    const allowed = new Set(readable);
    return [...new Set(chosen.map((s) => s.spaceId))].filter((id) => allowed.has(id));
  };

  app.post(
    "/v1/orgs/:organizationId/sites/:siteId/ask",
    {
      schema: {
        tags: ["site-ask"],
        operationId: "streamAskInSite",
        params: SiteParams,
        querystring: AskQueryString,
        body: SiteAskBody,
        response: errorResponses,
      },
    },
    async (request, reply) => {
      const question = checkQuestion(request.body.question, "body.question");
      const spaceIds = await siteScope(request, request.params, request.body.scope);
      return streamAnswer(request, reply, spaceIds, question, request.query.format);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId/ask/questions",
    {
      schema: {
        tags: ["site-ask"],
        operationId: "streamRecommendedQuestionsInSite",
        params: SiteParams,
        querystring: RecommendedQuestionsQuery,
        response: errorResponses,
      },
    },
    async (request, reply) => {
      const { siteSpaceId, spaceId } = request.query;
      const spaceIds = await siteScope(
        request,
        request.params,
        siteSpaceId ? { mode: "specific", siteSpaceIds: [siteSpaceId] } : { mode: "all" },
      );
      const scoped = spaceId ? spaceIds.filter((id) => id === spaceId) : spaceIds;
      const questions = recommendedQuestions(await questionSources(db, scoped, RECOMMENDED_QUESTIONS * 4), RECOMMENDED_QUESTIONS);
      const stream = openEventStream(reply);
      for (const question of questions) stream.send({ question });
      stream.done();
      return reply;
    },
  );
};

type SiteScope =
  | { mode: "default"; currentSiteSpace?: string | undefined }
  | { mode: "specific"; siteSpaceIds: string[] }
  | { mode: "all" };
