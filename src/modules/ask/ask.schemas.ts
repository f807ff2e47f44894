import Type from "typebox";

/** `format` of an answer: a JSON document (default, as GitBook's) or Markdown. */
export const AskFormat = Type.Optional(Type.Union([Type.Literal("document"), Type.Literal("markdown")]));

export const AskQueryString = Type.Object({
  format: AskFormat,
  details: Type.Optional(Type.Boolean({ description: "Accepted for compatibility; answers carry no query details." })),
});

export const AskBody = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 512, description: "The question" }),
  previousQueries: Type.Optional(Type.Array(Type.String({ maxLength: 512 }), { maxItems: 10, deprecated: true })),
});

export const StreamAskQueryString = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 512, description: "The question" }),
  format: AskFormat,
  details: Type.Optional(Type.Boolean()),
});

const Id = Type.String({ minLength: 1, maxLength: 100 });

export const SiteAskBody = Type.Object({
  question: Type.String({ minLength: 1, maxLength: 512 }),
  context: Type.Optional(Type.Object({ siteSpaceId: Type.Optional(Id) })),
  scope: Type.Union([
    Type.Object({ mode: Type.Literal("default"), currentSiteSpace: Type.Optional(Id) }),
    Type.Object({ mode: Type.Literal("specific"), siteSpaceIds: Type.Array(Id, { minItems: 1, maxItems: 100 }) }),
    Type.Object({ mode: Type.Literal("all") }),
  ]),
});

export const RecommendedQuestionsQuery = Type.Object({
  siteSpaceId: Type.Optional(Id),
  spaceId: Type.Optional(Id),
});

const AnswerSource = Type.Object({
  type: Type.Literal("page"),
  reason: Type.Optional(Type.String()),
  page: Type.String(),
  revision: Type.String(),
  space: Type.String(),
  sections: Type.Array(Type.String()),
});

export const SearchAIAnswer = Type.Object({
  answer: Type.Optional(Type.Union([Type.Object({ markdown: Type.String() }), Type.Object({ document: Type.Any() })])),
  followupQuestions: Type.Array(Type.String()),
  sources: Type.Array(AnswerSource),
});

export const AskResponse = Type.Object({ answer: Type.Optional(SearchAIAnswer) });
