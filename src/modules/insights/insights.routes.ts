/**
 * A published site's insights through the API, for its editors and admins (insights.policy.ts):
 * GitBook 0.202's site question operations (listSiteQuestions, getSiteQuestionById,
 * getSiteQuestionStats, listSiteQuestionSources, listSiteQuestionAnswers) over the questions asked
 * of the site's Ask box and its agents, and Quire's getSiteInsights, the summary the app's Insights
 * page shows (views, visitors, pages, searches, questions, feedback; agents apart from browsers).
 * Another organization's site is a 404; a member who only sees the site gets a 403.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import Type, { type Static } from "typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { errorResponses, ListOf } from "../../http/schemas.js";
import { invalid, missing } from "../../lib/errors.js";
import { paginateRows, toList } from "../../lib/pagination.js";
import type { LoadedSite } from "../sites/sites.loader.js";
import { SiteParams } from "../sites/sites.schemas.js";
import { loadInsights, loadPageNames, requireSiteInsights } from "./insights.loader.js";
import {
  citedPages,
  presentAnswer,
  presentAnswerWithResponse,
  presentInsights,
  presentQuestion,
  questionStats,
} from "./insights.presenter.js";
import {
  type AnswerFacts,
  type AnswerFilter,
  type AnswerRow,
  getAnswer,
  getQuestion,
  listAnswerFacts,
  listAnswers,
  pageOfAnswers,
  questionsAnswered,
} from "./insights.queries.js";
import {
  GetSiteQuestionQuery,
  InsightsQuery,
  ListAnswerSourcesQuery,
  ListQuestionSourcesQuery,
  ListSiteQuestionAnswersQuery,
  ListSiteQuestionsQuery,
  QuestionStatsQuery,
  SiteInsightsSchema,
  SiteQuestionAnswerParams,
  SiteQuestionAnswerSchema,
  SiteQuestionAnswerSourceSchema,
  SiteQuestionAnswerWithResponseSchema,
  SiteQuestionParams,
  SiteQuestionSchema,
  SiteQuestionStatsSchema,
} from "./insights.schemas.js";

const tags = ["site-questions"];
const prefix = "/v1/orgs/:organizationId/sites/:siteId";

interface FilterQuery {
  from?: string | undefined;
  to?: string | undefined;
  relevance?: string[] | undefined;
  channelType?: string[] | undefined;
  answered?: string[] | undefined;
  topic?: string[] | undefined;
}

/**
 * The answers a query's filters keep, or undefined when they keep none: Quire's questions are all
 * `relevant`, have no topic, and come through the `site` and `api` channels only.
 */
function filterOf(query: FilterQuery): AnswerFilter | undefined {
  const from = query.from ? new Date(query.from).toISOString() : undefined;
  const to = query.to ? new Date(query.to).toISOString() : undefined;
  if (from && to && from > to) throw invalid("`from` is after `to`: give a range that ends after it starts.");
  if (query.relevance?.length && !query.relevance.includes("relevant")) return undefined;
  if (query.topic?.length) return undefined;
  const channel = query.channelType?.filter((c): c is "site" | "api" => c === "site" || c === "api");
  if (query.channelType?.length && !channel?.length) return undefined;
  return {
    from,
    to,
    answered: query.answered as AnswerFilter["answered"],
    channel: query.channelType?.length ? channel : undefined,
  };
}

const questionNotFound = (id: string) => missing(`No question with id "${id}" on this site.`);

export const siteInsightsRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;
  const questionUrl = (orgId: string, siteId: string, id: string) => urls.api(`/orgs/${orgId}/sites/${siteId}/questions/${id}`);
  const answerUrl = (orgId: string, siteId: string, id: string) => urls.api(`/orgs/${orgId}/sites/${siteId}/answers/${id}`);
  // A filter that keeps nothing (a topic, spam: Quire has neither) reads nothing.
  const factsOf = async (siteId: string, filter: AnswerFilter | undefined): Promise<AnswerFacts[]> =>
    filter ? listAnswerFacts(db, siteId, filter) : [];
  // The pages some answers cited, most cited first, named as they are in the site's revisions now.
  const sourcesOf = async (loaded: LoadedSite, answers: AnswerRow[]) => {
    const cited = citedPages(answers);
    const names = await loadPageNames(
      db,
      loaded,
      cited.map((c) => c.spaceId),
    );
    return cited.map((c, i) => ({
      rank: i,
      object: "site-question-answer-source" as const,
      id: `${c.spaceId}/${c.pageId}`,
      weight: c.count / answers.length,
      urls: { location: urls.api(`/spaces/${c.spaceId}/content/page/${c.pageId}`) },
      type: "page" as const,
      space: c.spaceId,
      revision: names.revision(c.spaceId),
      page: c.pageId,
      title: names.title(c.spaceId, c.pageId),
      count: c.count,
    }));
  };
  const present = <T extends { rank: number }>({ rank: _rank, ...source }: T) => source;

  app.get(
    `${prefix}/insights`,
    {
      schema: {
        tags: ["site-insights"],
        operationId: "getSiteInsights",
        description:
          "What the site's readers did over the last `days` (30 by default): views and distinct visitors per day, browsers and agents (`.md`, llms.txt, llms-full.txt, MCP, known agents' user agents) apart; the pages read most; searches and those that found nothing; questions asked and those the docs did not answer; page feedback. Visitors are counted from a hash under a salt changed every day: no address is kept.",
        params: SiteParams,
        querystring: InsightsQuery,
        response: { 200: SiteInsightsSchema, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await requireSiteInsights(db, actorOf(request), request.params.organizationId, request.params.siteId);
      return presentInsights(await loadInsights(db, loaded, request.query.days ?? 30));
    },
  );

  app.get(
    `${prefix}/questions`,
    {
      schema: {
        tags,
        operationId: "listSiteQuestions",
        description:
          "The questions readers asked the site's Ask box and its agents (MCP, a page's `.md?ask=`): the same words asked again are one question. Without `sort`, newest question first.",
        params: SiteParams,
        querystring: ListSiteQuestionsQuery,
        response: { 200: ListOf(SiteQuestionSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { site } = await requireSiteInsights(db, actorOf(request), request.params.organizationId, request.params.siteId);
      const { params, query } = request;
      const base = filterOf(query);
      const filter = base && { ...base, type: query.type };
      const answers = await factsOf(site.id, filter);
      const byQuestion = new Map<string, AnswerFacts[]>();
      for (const answer of answers) {
        const list = byQuestion.get(answer.questionId);
        if (list) list.push(answer);
        else byQuestion.set(answer.questionId, [answer]);
      }
      const now = new Date();
      const items = (filter ? await questionsAnswered(db, site.id, filter) : []).map((q) =>
        presentQuestion(q, byQuestion.get(q.id) ?? [], questionUrl(params.organizationId, site.id, q.id), now),
      );
      const direction = query.order ?? "desc";
      const sortValue = {
        askedAt: (q: (typeof items)[number]) => q.askedAt,
        "stats.answered": (q: (typeof items)[number]) => (q.stats.answers ? q.stats.answered.yes / q.stats.answers : 0),
        "stats.feedback": (q: (typeof items)[number]) => q.stats.feedback.positive,
        "stats.answers": (q: (typeof items)[number]) => q.stats.answers,
        createdAt: (q: (typeof items)[number]) => q.createdAt,
      }[query.sort ?? "createdAt"];
      const page = paginateRows(
        items,
        [
          { direction, value: sortValue },
          { direction, value: (q) => q.id },
        ],
        query,
      );
      return toList(page, (q) => q);
    },
  );

  app.get(
    `${prefix}/question-stats`,
    {
      schema: {
        tags,
        operationId: "getSiteQuestionStats",
        description: "Counts over the questions asked of the site: answered or not, by type and channel, and a weekly pulse of 13 weeks.",
        params: SiteParams,
        querystring: QuestionStatsQuery,
        response: { 200: SiteQuestionStatsSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { site } = await requireSiteInsights(db, actorOf(request), request.params.organizationId, request.params.siteId);
      return questionStats(await factsOf(site.id, filterOf(request.query)), new Date());
    },
  );

  app.get(
    `${prefix}/questions/:siteQuestionId`,
    {
      schema: {
        tags,
        operationId: "getSiteQuestionById",
        params: SiteQuestionParams,
        querystring: GetSiteQuestionQuery,
        response: { 200: SiteQuestionSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { site } = await requireSiteInsights(db, actorOf(request), request.params.organizationId, request.params.siteId);
      const question = await getQuestion(db, site.id, request.params.siteQuestionId);
      if (!question) throw questionNotFound(request.params.siteQuestionId);
      const filter = filterOf(request.query);
      const answers = await factsOf(site.id, filter && { ...filter, questionId: question.id });
      return presentQuestion(question, answers, questionUrl(request.params.organizationId, site.id, question.id), new Date());
    },
  );

  app.get(
    `${prefix}/questions/:siteQuestionId/sources`,
    {
      schema: {
        tags,
        operationId: "listSiteQuestionSources",
        description: "The pages the answers to a question cited, most cited first.",
        params: SiteQuestionParams,
        querystring: ListQuestionSourcesQuery,
        response: { 200: ListOf(SiteQuestionAnswerSourceSchema), ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await requireSiteInsights(db, actorOf(request), request.params.organizationId, request.params.siteId);
      const question = await getQuestion(db, loaded.site.id, request.params.siteQuestionId);
      if (!question) throw questionNotFound(request.params.siteQuestionId);
      const filter = filterOf(request.query);
      // One question's answers, whole: their sources are what this lists.
      const answers = filter ? await listAnswers(db, loaded.site.id, { ...filter, questionId: question.id }) : [];
      return toList(paginateRows(await sourcesOf(loaded, answers), [{ direction: "asc", value: (s) => s.rank }], request.query), present);
    },
  );

  app.get(
    `${prefix}/answers`,
    {
      schema: {
        tags,
        operationId: "listSiteQuestionAnswers",
        description: "Each time a question was asked, newest first, with whether the docs answered it.",
        params: SiteParams,
        querystring: ListSiteQuestionAnswersQuery,
        response: { 200: ListOf(SiteQuestionAnswerSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { site } = await requireSiteInsights(db, actorOf(request), request.params.organizationId, request.params.siteId);
      const { query, params } = request;
      const filter = filterOf(query);
      const page = filter
        ? await pageOfAnswers(db, site.id, { ...filter, questionId: query.question, type: query["question.type"] }, query)
        : { rows: [], count: 0 };
      return toList(page, (a) => presentAnswer(a, answerUrl(params.organizationId, site.id, a.id)));
    },
  );

  const answerOf = async (request: { params: Static<typeof SiteQuestionAnswerParams> } & Parameters<typeof actorOf>[0]) => {
    const loaded = await requireSiteInsights(db, actorOf(request), request.params.organizationId, request.params.siteId);
    const answer = await getAnswer(db, loaded.site.id, request.params.siteQuestionAnswerId);
    if (!answer) throw missing(`No answer with id "${request.params.siteQuestionAnswerId}" on this site.`);
    return { loaded, answer, location: answerUrl(request.params.organizationId, loaded.site.id, answer.id) };
  };
  // The answer as the reader read it, with its text only for a caller who may read every space it
  // cites (the text quotes them; an editor of the site need not read all of its spaces).
  const answerWithResponse = async (loaded: LoadedSite, answer: AnswerRow, location: string) => {
    const cited = citedPages([answer]);
    const names = await loadPageNames(
      db,
      loaded,
      cited.map((c) => c.spaceId),
    );
    return presentAnswerWithResponse(
      answer,
      location,
      cited.every((c) => names.readable(c.spaceId)),
    );
  };

  app.get(
    `${prefix}/answers/:siteQuestionAnswerId`,
    {
      schema: {
        tags,
        operationId: "getSiteQuestionAnswerById",
        description:
          "One time a question was asked: the question, whether the docs answered it, and the answer the reader read (its text only when the caller may read every space it cites).",
        params: SiteQuestionAnswerParams,
        response: { 200: SiteQuestionAnswerWithResponseSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { loaded, answer, location } = await answerOf(request);
      return answerWithResponse(loaded, answer, location);
    },
  );

  app.get(
    `${prefix}/answers/:siteQuestionAnswerId/thread`,
    {
      schema: {
        tags,
        operationId: "getSiteQuestionAnswerThreadById",
        description: "The exchange an answer belongs to. Quire's Ask answers each question on its own, so the thread is the answer alone.",
        params: SiteQuestionAnswerParams,
        response: { 200: Type.Array(SiteQuestionAnswerWithResponseSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { loaded, answer, location } = await answerOf(request);
      return [await answerWithResponse(loaded, answer, location)];
    },
  );

  app.get(
    `${prefix}/answers/:siteQuestionAnswerId/sources`,
    {
      schema: {
        tags,
        operationId: "listSiteQuestionAnswerSources",
        description: "The pages one answer cited.",
        params: SiteQuestionAnswerParams,
        querystring: ListAnswerSourcesQuery,
        response: { 200: ListOf(SiteQuestionAnswerSourceSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { loaded, answer } = await answerOf(request);
      return toList(paginateRows(await sourcesOf(loaded, [answer]), [{ direction: "asc", value: (s) => s.rank }], request.query), present);
    },
  );
};
