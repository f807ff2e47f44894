/**
 * The shapes of GitBook 0.202's site insight event operations: trackEventsInSiteById (a list of
 * SiteInsightsEvent, each checked field by field in events.model.ts so that a refusal names the
 * event), aggregateSiteEvents (SiteInsightsQueryEventsAggregation and its result) and
 * listSiteVisitorSegments (SiteInsightsVisitorSegment). Each column's value schema is 0.202's, used
 * to check the values of a filter on it.
 */
import Type, { type Static, type TSchema } from "typebox";
import { ListQuery } from "../../http/schemas.js";
import {
  BOTS,
  BROWSERS,
  DEVICES,
  DISPLAY_CONTEXTS,
  EVENT_TYPES,
  FEEDBACK_RATINGS,
  LINK_KINDS,
  LINK_POSITIONS,
  MAX_EVENTS_PER_REQUEST,
  SYSTEMS,
  TRADEMARK_PLACEMENTS,
} from "./events.model.js";

const str = Type.String();
const nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);
const nullableString = nullable(str);

/** Each column 0.202 lets a query select, group by or filter on, with the schema of one of its values. */
export const COLUMN_VALUES = {
  datetime: Type.String({ format: "date-time" }),
  dayOfWeek: Type.Integer({ minimum: 1, maximum: 7 }),
  hourOfDay: Type.Integer({ minimum: 0, maximum: 23 }),
  url: Type.String({ maxLength: 2048 }),
  urlPath: str,
  eventType: Type.Enum([...EVENT_TYPES]),
  eventsCount: Type.Number(),
  sessionsCount: Type.Number(),
  visitorsCount: Type.Number(),
  siteSection: nullableString,
  siteSpace: nullableString,
  siteShareKey: nullableString,
  displayContext: Type.Enum([...DISPLAY_CONTEXTS]),
  page: nullable(Type.Object({ space: str, page: nullableString })),
  visitorGeoCountry: nullableString,
  visitorGeoPoint: nullable(Type.Object({ latitude: Type.Number(), longitude: Type.Number(), h3: str })),
  visitorDevice: Type.Enum([...DEVICES]),
  visitorBrowser: Type.Enum([...BROWSERS]),
  visitorOS: Type.Enum([...SYSTEMS]),
  visitorBot: Type.Union([Type.Enum([...BOTS, ""]), Type.Null()]),
  visitorLanguage: nullableString,
  visitorAuthenticated: Type.Union([Type.Boolean(), Type.Null()]),
  visitorClaimProperty: str,
  visitorClaim: str,
  eventLinkTargetValue: Type.Object({ kind: Type.Enum([...LINK_KINDS, "tag", "openapi"]) }, { additionalProperties: true }),
  eventLinkTargetKind: Type.Enum([...LINK_KINDS]),
  eventLinkTargetDomain: nullableString,
  eventLinkPosition: Type.Enum([...LINK_POSITIONS]),
  eventAPIOperationPath: nullableString,
  eventAPIOperationMethod: nullableString,
  eventLLMSVariant: nullable(Type.Enum(["standard", "full"])),
  eventPageNotFoundType: nullable(Type.Enum(["conditional"])),
  eventMarkdownSource: nullable(Type.Enum(["page-action"])),
  eventSearchQuery: str,
  eventSearchResultRecordId: nullableString,
  eventPageFeedbackRating: Type.Enum([...FEEDBACK_RATINGS]),
  eventPageFeedbackComment: str,
  eventAskResponseRating: Type.Integer(),
  pageFeedbackRating: Type.Object({ ok: Type.Number(), good: Type.Number(), bad: Type.Number() }),
  askResponseRating: Type.Object({ positive: Type.Number(), negative: Type.Number() }),
  referrer: str,
  referrerDomain: str,
  utmSource: str,
  utmMedium: str,
  utmCampaign: str,
  utmTerm: str,
  utmContent: str,
  eventAdDomain: str,
  eventAdPlacement: Type.Enum(["aside"]),
  eventTrademarkPlacement: Type.Enum([...TRADEMARK_PLACEMENTS]),
} satisfies Record<string, TSchema>;
export type ColumnName = keyof typeof COLUMN_VALUES;
export const COLUMN_NAMES = Object.keys(COLUMN_VALUES) as ColumnName[];

export const OPERATORS = ["in", "notIn", "greaterThan", "greaterThanOrEqual", "lessThan", "lessThanOrEqual"] as const;
export type Operator = (typeof OPERATORS)[number];
export const INTERVALS = ["hour", "day", "week", "month"] as const;
export const RANGE_PRESETS = ["lastYear", "last3Months", "last30Days", "last7Days", "last24Hours"] as const;

const ColumnNameSchema = Type.Enum([...COLUMN_NAMES]);

/** SiteInsightsQueryEventsColumn: a column, with its interval (datetime), precision (geo point) or claim (visitorClaim). */
export const QueryColumn = Type.Object({
  column: ColumnNameSchema,
  interval: Type.Optional(Type.Enum([...INTERVALS], { description: "Of `datetime`: the buckets counted (day when not given)." })),
  precision: Type.Optional(Type.Integer({ minimum: 0, maximum: 15 })),
  claim: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Of `visitorClaim`: the claim's path, e.g. `plan`." })),
});
export type QueryColumnValue = Static<typeof QueryColumn>;

/** SiteInsightsQueryEventsFilter: a column's values and how to compare (`in` when not given). */
export const QueryFilter = Type.Object({
  column: ColumnNameSchema,
  claim: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  values: Type.Array(Type.Unknown(), { maxItems: 100, description: "Checked against the column's value schema." }),
  operator: Type.Optional(Type.Enum([...OPERATORS])),
});
export type QueryFilterValue = Static<typeof QueryFilter>;

export const AggregateBody = Type.Object({
  select: Type.Optional(Type.Array(QueryColumn, { maxItems: 20 })),
  where: Type.Optional(Type.Array(QueryFilter, { maxItems: 20 })),
  groupBy: Type.Optional(Type.Array(QueryColumn, { maxItems: 6 })),
  order: Type.Optional(Type.Object({ by: QueryColumn, direction: Type.Enum(["asc", "desc"]) })),
  range: Type.Union([
    Type.Enum([...RANGE_PRESETS]),
    Type.Object({ from: Type.String({ format: "date-time" }), to: Type.String({ format: "date-time" }) }),
  ]),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1000 })),
});
export type AggregateBodyValue = Static<typeof AggregateBody>;

export const AggregateResult = Type.Object({
  columns: Type.Array(
    Type.Object({
      column: Type.String(),
      claim: Type.Optional(Type.String()),
      values: Type.Array(Type.Unknown()),
    }),
  ),
});
export type AggregateResultValue = Static<typeof AggregateResult>;

export const TrackEventsBody = Type.Object({
  events: Type.Array(
    Type.Object(
      { type: Type.String({ maxLength: 50 }) },
      { additionalProperties: true, description: "A SiteInsightsEvent of GitBook 0.202 (checked field by field)." },
    ),
    { maxItems: MAX_EVENTS_PER_REQUEST, description: `At most ${MAX_EVENTS_PER_REQUEST} events.` },
  ),
});
export type TrackEventsBodyValue = Static<typeof TrackEventsBody>;

export const VisitorSegmentSchema = Type.Object({
  title: Type.String(),
  claims: Type.Record(Type.String(), Type.Unknown()),
  events: Type.Number(),
  visitors: Type.Number(),
  sessions: Type.Number(),
});

export const VisitorSegmentsQuery = Type.Object({ page: ListQuery.properties.page, limit: ListQuery.properties.limit });
