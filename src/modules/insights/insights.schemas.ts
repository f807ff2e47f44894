/**
 * The site question operations' shapes, from GitBook's @gitbook/api 0.202 (SiteQuestion,
 * SiteQuestionStats, SiteQuestionAnswer, SiteQuestionAnswerSource), and Quire's summary of a site's
 * insights (getSiteInsights: views, visitors, pages, searches, questions, feedback, agents).
 */
import Type, { type Static } from "typebox";
import type { JSONDocument } from "../../content/document/types.js";
import { ListQuery, RichDocument } from "../../http/schemas.js";
import { SiteParams } from "../sites/sites.schemas.js";

export const QUESTION_TYPES = ["exploring", "how-to", "troubleshooting", "reference", "unknown"] as const;
export const RESOLUTIONS = ["no", "partially", "yes"] as const;
export const RELEVANCES = ["relevant", "spam", "off-topic", "unclear"] as const;
export const CHANNEL_TYPES = ["site", "embed", "api", "builtin:slack", "builtin:discord", "builtin:github", "builtin:linear"] as const;

const QuestionType = Type.Enum([...QUESTION_TYPES]);
const Resolution = Type.Enum([...RESOLUTIONS]);
const Relevance = Type.Enum([...RELEVANCES]);
const ChannelType = Type.Enum([...CHANNEL_TYPES]);
const count = Type.Number();

export const SiteQuestionStatsSchema = Type.Object({
  total: count,
  answers: count,
  feedback: Type.Object({ positive: count, negative: count, unrated: count }),
  answered: Type.Object({ yes: count, partially: count, no: count }),
  relevance: Type.Object({ relevant: count, spam: count, "off-topic": count, unclear: count }),
  types: Type.Object({ exploring: count, "how-to": count, troubleshooting: count, reference: count, unknown: count }),
  channelTypes: Type.Record(Type.String(), count),
  channels: Type.Record(Type.String(), count),
  weeklyPulse: Type.Array(count, { minItems: 13, maxItems: 13 }),
});
export type SiteQuestionStatsValue = Static<typeof SiteQuestionStatsSchema>;

export const SiteQuestionSchema = Type.Object({
  object: Type.Literal("site-question"),
  id: Type.String(),
  question: Type.String(),
  type: QuestionType,
  createdAt: Type.String({ format: "date-time" }),
  askedAt: Type.String({ format: "date-time" }),
  stats: SiteQuestionStatsSchema,
  urls: Type.Object({ location: Type.String() }),
});

export const SiteQuestionAnswerSchema = Type.Object({
  object: Type.Literal("site-question-answer"),
  id: Type.String(),
  question: Type.Object({ id: Type.String(), type: QuestionType }),
  topics: Type.Array(Type.String()),
  input: Type.Object({ text: Type.String(), raw: Type.String() }),
  responseId: Type.String(),
  language: Type.String(),
  answered: Resolution,
  helpfulness: Type.Enum(["low", "medium", "high"]),
  relevance: Relevance,
  channel: Type.Object({ type: ChannelType }),
  createdAt: Type.String({ format: "date-time" }),
  urls: Type.Object({ location: Type.String() }),
});

/**
 * 0.202's AIMessage as Quire fills it: the assistant's one final step, the answer as a document.
 * Quire's Ask answers each question on its own (no follow-ups in one exchange), so a thread is the
 * answer alone.
 */
const AnswerMessage = Type.Object({
  id: Type.String(),
  role: Type.Literal("assistant"),
  steps: Type.Array(
    Type.Object({
      phase: Type.Literal("final_answer"),
      // The schema checks the shape loosely; the content engine made the document.
      content: Type.Unsafe<JSONDocument>(RichDocument),
    }),
  ),
  createdAt: Type.String({ format: "date-time" }),
});

export const SiteQuestionAnswerWithResponseSchema = Type.Object({ ...SiteQuestionAnswerSchema.properties, response: AnswerMessage });

export const SiteQuestionAnswerParams = Type.Object({
  ...SiteParams.properties,
  siteQuestionAnswerId: Type.String({ minLength: 1, maxLength: 100 }),
});

export const ListAnswerSourcesQuery = Type.Object({ page: ListQuery.properties.page, limit: ListQuery.properties.limit });

export const SiteQuestionAnswerSourceSchema = Type.Object({
  object: Type.Literal("site-question-answer-source"),
  id: Type.String(),
  weight: Type.Number({ description: "The share of the answers that cited this page (0 to 1)." }),
  urls: Type.Object({ location: Type.String() }),
  type: Type.Literal("page"),
  space: Type.String(),
  revision: Type.String(),
  page: Type.String(),
  title: Type.String(),
  count: Type.Number({ description: "How many answers cited this page." }),
});

const from = Type.Optional(Type.String({ format: "date-time", description: "Only answers created at or after this time." }));
const to = Type.Optional(Type.String({ format: "date-time", description: "Only answers created at or before this time." }));
const many = <T extends Parameters<typeof Type.Array>[0]>(item: T, description: string) =>
  Type.Optional(Type.Array(item, { maxItems: 10, description }));

/** The filters every question operation takes (GitBook 0.202's names). */
const AnswerFilters = {
  from,
  to,
  relevance: many(Relevance, "Only questions of these relevances (every question Quire records is `relevant`)."),
  channelType: many(
    ChannelType,
    "Only answers given through these channels: `site` (the site's Ask box), `api` (agents: MCP, a page's `.md?ask=`).",
  ),
  answered: many(Resolution, "Only answers of these resolutions (`no`: the docs did not answer)."),
};

export const SiteQuestionParams = Type.Object({ ...SiteParams.properties, siteQuestionId: Type.String({ minLength: 1, maxLength: 100 }) });

export const ListSiteQuestionsQuery = Type.Object({
  ...AnswerFilters,
  type: Type.Optional(QuestionType),
  topic: many(Type.String({ maxLength: 100 }), "Only questions of these topics (Quire has no topics: a topic filter matches nothing)."),
  order: Type.Optional(Type.Enum(["asc", "desc"], { default: "desc" })),
  sort: Type.Optional(Type.Enum(["askedAt", "stats.answered", "stats.feedback", "stats.answers"])),
  page: ListQuery.properties.page,
  limit: ListQuery.properties.limit,
});

export const QuestionStatsQuery = Type.Object({
  ...AnswerFilters,
  topic: many(Type.String({ maxLength: 100 }), "Only questions of these topics (Quire has no topics: a topic filter matches nothing)."),
});

export const GetSiteQuestionQuery = Type.Object(AnswerFilters);

export const ListQuestionSourcesQuery = Type.Object({
  ...AnswerFilters,
  page: ListQuery.properties.page,
  limit: ListQuery.properties.limit,
});

export const ListSiteQuestionAnswersQuery = Type.Object({
  ...AnswerFilters,
  question: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only answers to this question." })),
  "question.type": Type.Optional(QuestionType),
  page: ListQuery.properties.page,
  limit: ListQuery.properties.limit,
});

export const InsightsQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366, default: 30, description: "How many days up to today (UTC), 1 to 366." })),
});

const DayCount = Type.Object({ day: Type.String(), browser: count, agent: count });

export const SiteInsightsSchema = Type.Object({
  object: Type.Literal("site-insights"),
  from: Type.String({ description: "First day counted (UTC, YYYY-MM-DD)." }),
  to: Type.String({ description: "Last day counted (UTC, YYYY-MM-DD)." }),
  totals: Type.Object({
    views: Type.Object({ browser: count, agent: count }),
    visitors: Type.Object({ browser: count, agent: count }),
    searches: count,
    searchesWithoutResult: count,
    questions: count,
    unanswered: count,
  }),
  views: Type.Array(DayCount, { description: "Views per day (every day of the range, zero included)." }),
  visitors: Type.Array(DayCount, { description: "Distinct visitors per day." }),
  sources: Type.Array(Type.Object({ source: Type.String(), agent: Type.Boolean(), views: count })),
  pages: Type.Array(Type.Object({ space: Type.String(), page: Type.String(), title: Type.String(), browser: count, agent: count })),
  searches: Type.Array(Type.Object({ query: Type.String(), searches: count, noResult: count })),
  searchesWithoutResult: Type.Array(Type.Object({ query: Type.String(), searches: count, noResult: count })),
  questions: Type.Array(
    Type.Object({ id: Type.String(), question: Type.String(), answers: count, unanswered: count, askedAt: Type.String() }),
  ),
  feedback: Type.Array(
    Type.Object({ space: Type.String(), page: Type.String(), title: Type.String(), good: count, ok: count, bad: count }),
  ),
});
export type SiteInsightsValue = Static<typeof SiteInsightsSchema>;
