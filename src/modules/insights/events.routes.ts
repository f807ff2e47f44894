/**
 * GitBook 0.202's site insight event operations, for the site's editors and admins like every
 * insights route (insights.policy.ts; another organization's site, or one hidden from the caller,
 * is a 404, a member who only sees it gets a 403):
 *
 * - trackEventsInSiteById: a client reports what readers did (a proxy in front of the site, an
 *   embed). At most MAX_EVENTS_PER_REQUEST events and 256 KB a request, every event checked before
 *   any is kept (one bad event refuses the request, naming it), times within 5 minutes of now, at
 *   most MAX_SITE_EVENTS_PER_WRITE events a site between two writes (then 429). Held in memory and
 *   written with the recorder's next batch, never on the request path; nothing personal kept.
 * - aggregateSiteEvents: counts over those events and the reads Quire served (events.queries.ts).
 * - listSiteVisitorSegments: the events by the claims their visitors brought.
 *
 * Both reads are bounded (bounded-reads.queries.ts): off the request thread on SQLite, within a
 * time limit on both databases (413 asking to narrow the range), a few at once (then 429).
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { errorResponses, ListOf, NoContent } from "../../http/schemas.js";
import { paginateRows, toList } from "../../lib/pagination.js";
import { SiteParams } from "../sites/sites.schemas.js";
import { type ReadEvent, type ReportedEvent, readEvent } from "./events.model.js";
import { adaptiveSchemaOf, aggregateEvents, visitorSegments } from "./events.queries.js";
import { AggregateBody, AggregateResult, TrackEventsBody, VisitorSegmentSchema, VisitorSegmentsQuery } from "./events.schemas.js";
import { readableSiteSpaces, requireSiteInsights } from "./insights.loader.js";
import { presentVisitorSegment } from "./insights.presenter.js";
import type { InsightsRecorder } from "./recorder.service.js";

const tags = ["site-insights"];
const prefix = "/v1/orgs/:organizationId/sites/:siteId/insights";

export const siteEventRoutes: FastifyPluginAsyncTypebox<{ deps: Deps; insights: InsightsRecorder }> = async (app, { deps, insights }) => {
  const { db } = deps;

  app.post(
    `${prefix}/events`,
    {
      bodyLimit: 256 * 1024,
      schema: {
        tags,
        operationId: "trackEventsInSiteById",
        description:
          "Reports what readers of the site did (GitBook 0.202's SiteInsightsEvent), to count with the reads Quire serves itself. At most 100 events and 256 KB a request; each event's `timestamp` within 5 minutes of now. Nothing personal is kept: the visitor is a hash of address and user agent under a salt changed every day, addresses lose their query and fragment, and of the visitor's claims only the categories of the site's adaptive schema (booleans, enumerated strings) are kept. Written with the next batch: an aggregation sees the events a few seconds later.",
        params: SiteParams,
        body: TrackEventsBody,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { site } = await requireSiteInsights(db, actorOf(request), request.params.organizationId, request.params.siteId);
      const now = new Date();
      // Every event is checked before any is held: a request is kept whole or refused.
      const read: ReadEvent[] = request.body.events.map((event, i) => readEvent(event as ReportedEvent, `body.events[${i}]`, now));
      if (read.length > 0 && insights.enabled) insights.track(site.id, read, request.ip, await adaptiveSchemaOf(db, site.id));
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${prefix}/events/aggregate`,
    {
      schema: {
        tags,
        operationId: "aggregateSiteEvents",
        description:
          "Counts over the site's events (the reads Quire serves: pages, `.md`, llms.txt, llms-full.txt, MCP; and what clients reported) in a time range, of the spaces the caller may read and of no space, grouped by the `groupBy` columns and filtered by `where` (`in` when no operator; a filter on a count applies to the groups). The result has one column per `groupBy` column, then one per `select` column not already there (a column of events in `select` is grouped by too; neither: the number of events). `datetime` is bucketed by `interval` (day when not given; UTC; weeks start on Monday); a `datetime` filter with `in` matches the UTC days of its times. Visitors are counted once a day (their hash changes every day). The visitor's country and place are never known (no address is kept): always null. Without `order`, by time when grouped by time, else by the first count, largest first. An aggregation may run 10 s, off the thread that answers requests: one that takes longer is refused with 413, asking to narrow the range; 429 (Retry-After) when as many as the server allows are running.",
        params: SiteParams,
        body: AggregateBody,
        response: { 200: AggregateResult, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await requireSiteInsights(db, actorOf(request), request.params.organizationId, request.params.siteId);
      return aggregateEvents(db, loaded.site.id, request.body, new Date(), await readableSiteSpaces(db, loaded));
    },
  );

  app.get(
    `${prefix}/visitor-segments`,
    {
      schema: {
        tags,
        operationId: "listSiteVisitorSegments",
        description:
          "The site's events by the claims their visitors brought (only the categories of the site's adaptive schema are kept), most visitors first, over the days insights keep. Visitors are counted once a day. Bounded as aggregateSiteEvents is (413 over 10 s, 429 when too many run).",
        params: SiteParams,
        querystring: VisitorSegmentsQuery,
        response: { 200: ListOf(VisitorSegmentSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { site } = await requireSiteInsights(db, actorOf(request), request.params.organizationId, request.params.siteId);
      const segments = (await visitorSegments(db, site.id)).map(presentVisitorSegment);
      const page = paginateRows(
        segments,
        [
          { direction: "desc", value: (s) => s.visitors },
          { direction: "desc", value: (s) => s.events },
          { direction: "asc", value: (s) => s.key },
        ],
        request.query,
      );
      return toList(page, ({ key: _key, ...segment }) => segment);
    },
  );
};
