/**
 * A published site's insight events, end to end: events reported through trackEventsInSiteById and
 * the reads the site serves itself are held in memory, written by the recorder's flush, and counted
 * by aggregateSiteEvents and listSiteVisitorSegments; requests and answers checked against 0.202's
 * own schemas; hostile reports refused whole; nothing personal in the rows.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type Requester, type TestContext } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { responseErrors0202, schemaErrors0202 } from "../../../test/helpers/contract-0202.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, setDefaultLevel } from "../../../test/helpers/spaces.factories.js";
import { deleteEventsBefore } from "./events.queries.js";
import { MAX_SITE_EVENTS_PER_WRITE } from "./recorder.service.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
}, 120_000);
afterAll(() => ctx.close(), 60_000);

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
const ADDRESS = "203.0.113.9";

const jsonSchema = {
  type: "object",
  properties: {
    plan: { type: "string", description: "Plan", enum: ["free", "pro"] },
    email: { type: "string", description: "E-mail" },
    beta: { type: "boolean", description: "Beta program member" },
  },
  additionalProperties: false,
};

async function scenario() {
  const base = await createOrgWithSpace(ctx, { title: "Handbook" });
  const { content } = await commitContent(ctx, base.space.id, {
    pages: [
      { title: "Welcome", slug: "welcome", paragraphs: ["Start here."] },
      { title: "Install", slug: "install", paragraphs: ["Run the installer."] },
    ],
  });
  await ctx.worker.drain();
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Handbook", spaces: [base.space.id] });
  const url = `/v1/orgs/${base.org.id}/sites/${site.id}`;
  expect((await ctx.as(base.owner).put(`${url}/adaptive-schema`, { jsonSchema })).status).toBe(200);
  expect((await ctx.as(base.owner).post(`${url}/publish`)).status).toBe(200);
  const [welcome, install] = content.pages.map((p) => p.id) as [string, string];
  return { ...base, site, url, root: `/s/${site.basename}`, ids: { welcome, install } };
}

const flush = () => ctx.app.insights?.flush(true);

/** A 0.202 event (checked against its schema before it is sent). */
function event(
  type: string,
  extra: Record<string, unknown> = {},
  session: Record<string, unknown> = {},
  location: Record<string, unknown> = {},
) {
  const value = {
    type,
    session: {
      visitorId: "visitor-alpha",
      sessionId: "session-alpha",
      cookies: {},
      userAgent: FIREFOX,
      language: "fr-FR",
      referrer: "https://news.example.com/item?id=42&email=reader%40example.com",
      ...session,
    },
    location: {
      url: "https://docs.example.com/install?utm_source=newsletter&utm_medium=email&token=secret",
      siteSection: null,
      siteSpace: null,
      siteShareKey: null,
      space: null,
      revision: null,
      page: null,
      ...location,
    },
    ...extra,
  };
  // 0.202's PlainObject has no `type`, so each claim's value matches it and a string (or boolean)
  // too, and its `oneOf` refuses every claim: the event is checked with its claims aside.
  const { visitorAuthClaims: _claims, ...checked } = value.session as Record<string, unknown>;
  expect(schemaErrors0202("SiteInsightsEvent", { ...value, session: checked })).toEqual([]);
  return value;
}

describe("site insight events", () => {
  it("count reported events with the reads the site served, by every column 0.202 groups by", async () => {
    const s = await scenario();
    const page = (id: string) => ({ space: s.space.id, page: id });
    const events = [
      event("page_view", {}, { visitorAuthClaims: { plan: "pro", email: "ada@example.com", beta: true } }, page(s.ids.install)),
      event("page_view", {}, { sessionId: "session-beta", visitorAuthClaims: { plan: "pro" } }, page(s.ids.welcome)),
      event(
        "page_view",
        {},
        { userAgent: IPHONE, sessionId: "session-gamma", visitorAuthClaims: { plan: "free" } },
        {
          url: "https://docs.example.com/missing/page",
          space: s.space.id,
        },
      ),
      event("search_type_query", { query: "installer" }),
      event("page_post_feedback", { feedback: { rating: "good" } }, {}, page(s.ids.install)),
      event("page_post_feedback", { feedback: { rating: "bad" } }, { sessionId: "session-beta" }, page(s.ids.install)),
      event("page_post_feedback_comment", { feedback: { rating: "bad", comment: "Say which sudo." } }, {}, page(s.ids.install)),
      event("ask_rate_response", { query: "how to install", rating: 1, responseId: "r-1" }),
      event("link_click", { link: { target: { kind: "url", url: "https://github.com/acme/gw?tab=readme" }, position: "content" } }),
      event("api_client_request", { operation: { path: "/pets", method: "GET" } }),
    ];
    const tracked = await ctx.as(s.owner).post(`${s.url}/insights/events`, { events });
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(204);
    expect(responseErrors0202("trackEventsInSiteById", 204, tracked.text)).toEqual([]);
    // The site's own reads: two pages by a browser, llms.txt by an agent.
    for (const [path, ua, status] of [
      ["install", FIREFOX, 200],
      ["welcome", FIREFOX, 200],
      ["llms.txt", GPTBOT, 200],
      ["no-such-page", FIREFOX, 404],
      ["~quire/search?q=Zeppelin", FIREFOX, 200],
    ] as const) {
      const res = await ctx.app.inject({ method: "GET", url: `${s.root}/${path}`, headers: { "user-agent": ua }, remoteAddress: ADDRESS });
      expect(res.statusCode).toBe(status);
    }
    // Nothing reaches the database before the recorder writes.
    expect(await ctx.db.selectFrom("siteEvents").select("id").where("siteId", "=", s.site.id).execute()).toEqual([]);
    await flush();

    const aggregate = async (body: Record<string, unknown>) => {
      const res = await ctx.as(s.owner).post(`${s.url}/insights/events/aggregate`, { range: "last24Hours", ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(responseErrors0202("aggregateSiteEvents", 200, res.body), JSON.stringify(res.body)).toEqual([]);
      return res.body.columns as { column: string; values: unknown[] }[];
    };
    const rows = (columns: { values: unknown[] }[]) => (columns[0]?.values ?? []).map((_, i) => columns.map((c) => c.values[i]));

    // By type, most first; ties by type.
    expect(rows(await aggregate({ groupBy: [{ column: "eventType" }], select: [{ column: "eventsCount" }] }))).toEqual([
      ["page_view", 6],
      ["page_post_feedback", 2],
      ["search_type_query", 2],
      ["api_client_request", 1],
      ["ask_rate_response", 1],
      ["link_click", 1],
      ["llms_request", 1],
      ["page_post_feedback_comment", 1],
    ]);
    // No select, no group: the number of events.
    expect(await aggregate({})).toEqual([{ column: "eventsCount", values: [15] }]);

    // 404s: page views that resolved to no page, by path.
    expect(
      rows(
        await aggregate({
          where: [
            { column: "eventType", values: ["page_view"] },
            { column: "page", values: [null] },
          ],
          groupBy: [{ column: "urlPath" }],
          select: [{ column: "eventsCount" }],
        }),
      ),
    ).toEqual([
      ["/missing/page", 1],
      [`${s.root}/no-such-page`, 1],
    ]);
    // What was searched: reported, and through the site's own search (as counted: lowercased).
    expect(
      rows(await aggregate({ groupBy: [{ column: "eventSearchQuery" }], where: [{ column: "eventType", values: ["search_type_query"] }] })),
    ).toEqual([["installer"], ["zeppelin"]]);
    // Pages read, as {space, page}, by browsers only (no bot).
    expect(
      rows(
        await aggregate({
          where: [
            { column: "eventType", values: ["page_view"] },
            { column: "visitorBot", values: [null] },
            { column: "page", operator: "notIn", values: [null] },
          ],
          groupBy: [{ column: "page" }],
          select: [{ column: "eventsCount" }],
          order: { by: { column: "eventsCount" }, direction: "desc" },
        }),
      ).sort((a, b) => String(JSON.stringify(a)).localeCompare(JSON.stringify(b))),
    ).toEqual(
      [
        [{ space: s.space.id, page: s.ids.install }, 2],
        [{ space: s.space.id, page: s.ids.welcome }, 2],
      ].sort((a, b) => String(JSON.stringify(a)).localeCompare(JSON.stringify(b))),
    );

    // Time: one hour bucket today, the day of the week and the hour of now (UTC).
    const now = new Date();
    const [time, dow, hod, count] = await aggregate({
      groupBy: [{ column: "datetime", interval: "hour" }, { column: "dayOfWeek" }, { column: "hourOfDay" }],
      select: [{ column: "eventsCount" }],
      where: [{ column: "datetime", operator: "greaterThanOrEqual", values: [new Date(now.getTime() - 3_600_000).toISOString()] }],
    });
    expect(count?.values.reduce((a, b) => Number(a) + Number(b), 0)).toBe(15);
    expect(String(time?.values.at(-1))).toBe(`${now.toISOString().slice(0, 13)}:00:00.000Z`);
    expect(dow?.values.at(-1)).toBe(now.getUTCDay() === 0 ? 7 : now.getUTCDay());
    expect(hod?.values.at(-1)).toBe(now.getUTCHours());
    const [month] = await aggregate({ groupBy: [{ column: "datetime", interval: "month" }] });
    expect(month?.values).toEqual([`${now.toISOString().slice(0, 7)}-01T00:00:00.000Z`]);

    // Visitors and sessions: the reported reader (3 sessions) and the iPhone are one address; the
    // site's own reads add a browser visitor (its day is its session) and GPTBot.
    expect(
      rows(
        await aggregate({
          where: [{ column: "eventType", values: ["page_view", "llms_request"] }],
          groupBy: [{ column: "visitorDevice" }, { column: "visitorBrowser" }, { column: "visitorOS" }, { column: "visitorBot" }],
          select: [{ column: "visitorsCount" }, { column: "sessionsCount" }, { column: "eventsCount" }],
          order: { by: { column: "eventsCount" }, direction: "asc" },
        }),
      ),
    ).toEqual([
      ["mobile", "safari", "ios", null, 1, 1, 1],
      ["unknown", "unknown", "unknown", "gptbot", 1, 1, 1],
      ["desktop", "firefox", "linux", null, 2, 3, 5],
    ]);

    // Referrers and campaigns, the visitor's language; no query kept.
    expect(
      rows(
        await aggregate({
          where: [
            { column: "eventType", values: ["search_type_query"] },
            { column: "visitorLanguage", values: ["fr"] },
          ],
          groupBy: [
            { column: "referrerDomain" },
            { column: "referrer" },
            { column: "utmSource" },
            { column: "utmMedium" },
            { column: "visitorLanguage" },
            { column: "url" },
          ],
        }),
      ),
    ).toEqual([["news.example.com", "https://news.example.com/item", "newsletter", "email", "fr", "https://docs.example.com/install"]]);

    // Counts of ratings, and a filter on a count (HAVING).
    expect(rows(await aggregate({ select: [{ column: "pageFeedbackRating" }, { column: "askResponseRating" }] }))).toEqual([
      [
        { ok: 0, good: 1, bad: 1 },
        { positive: 1, negative: 0 },
      ],
    ]);
    expect(
      rows(
        await aggregate({
          groupBy: [{ column: "eventType" }],
          where: [{ column: "eventsCount", operator: "greaterThan", values: [1] }],
        }),
      ),
    ).toEqual([["page_post_feedback"], ["page_view"], ["search_type_query"]]);
    expect(
      rows(
        await aggregate({
          groupBy: [{ column: "eventPageFeedbackRating" }, { column: "eventPageFeedbackComment" }],
          where: [{ column: "eventType", operator: "notIn", values: ["page_post_feedback"] }],
        }),
      ),
    ).toEqual([["bad", "Say which sudo."]]);
    // A link's target, its kind and domain (the URL without its query).
    expect(
      rows(
        await aggregate({
          groupBy: [
            { column: "eventLinkTargetValue" },
            { column: "eventLinkTargetKind" },
            { column: "eventLinkTargetDomain" },
            { column: "eventLinkPosition" },
          ],
        }),
      ),
    ).toEqual([[{ kind: "url", url: "https://github.com/acme/gw" }, "url", "github.com", "content"]]);
    expect(
      rows(
        await aggregate({
          groupBy: [{ column: "eventType" }],
          where: [{ column: "eventLinkTargetValue", values: [{ url: "https://github.com/acme/gw?tab=other", kind: "url" }] }],
        }),
      ),
    ).toEqual([["link_click"]]);
    expect(
      rows(
        await aggregate({
          groupBy: [{ column: "eventAPIOperationPath" }, { column: "eventAPIOperationMethod" }],
          where: [{ column: "eventType", values: ["api_client_request"] }],
        }),
      ),
    ).toEqual([["/pets", "get"]]);
    expect(
      rows(
        await aggregate({
          groupBy: [{ column: "eventLLMSVariant" }, { column: "displayContext" }],
          where: [{ column: "eventType", values: ["llms_request"] }],
        }),
      ),
    ).toEqual([["standard", "server"]]);
    // The visitor's place is never known.
    expect(
      rows(
        await aggregate({ groupBy: [{ column: "visitorGeoCountry" }, { column: "visitorGeoPoint" }], select: [{ column: "eventsCount" }] }),
      ),
    ).toEqual([[null, null, 15]]);

    // Claims: only the site's categories (plan, beta), never the e-mail.
    const claims = await aggregate({
      groupBy: [{ column: "visitorClaim", claim: "plan" }, { column: "visitorAuthenticated" }],
      where: [{ column: "eventType", values: ["page_view"] }],
      order: { by: { column: "visitorClaim", claim: "plan" }, direction: "asc" },
    });
    expect(claims[0]).toMatchObject({ column: "visitorClaim", claim: "plan" });
    expect(rows(claims)).toEqual([
      ["", null],
      ["free", true],
      ["pro", true],
    ]);
    expect(rows(await aggregate({ groupBy: [{ column: "visitorClaimProperty" }], select: [{ column: "eventsCount" }] }))).toEqual([
      ["plan", 3],
      ["beta", 1],
    ]);
    // Events of visitors who brought a beta claim, by plan: counted once each, whatever else they brought.
    expect(
      rows(
        await aggregate({
          where: [{ column: "visitorClaimProperty", values: ["beta", "plan"] }],
          groupBy: [{ column: "visitorClaim", claim: "plan" }],
          select: [{ column: "eventsCount" }],
        }),
      ),
    ).toEqual([
      ["pro", 2],
      ["free", 1],
    ]);
    expect(rows(await aggregate({ where: [{ column: "visitorClaimProperty", operator: "notIn", values: ["plan"] }] }))).toEqual([[12]]);
    const stored = JSON.stringify([
      await ctx.db.selectFrom("siteEvents").selectAll().where("siteId", "=", s.site.id).execute(),
      await ctx.db.selectFrom("siteEventClaims").selectAll().where("siteId", "=", s.site.id).execute(),
    ]);
    for (const personal of [
      ADDRESS,
      "ada@example.com",
      "reader%40example.com",
      "token=secret",
      "Firefox",
      "session-alpha",
      "session-beta",
      "visitor-alpha",
    ]) {
      expect(stored).not.toContain(personal);
    }

    const segments = await ctx.as(s.owner).get(`${s.url}/insights/visitor-segments`);
    expect(segments.status).toBe(200);
    // Claims aside, as for the events (0.202's PlainObject refuses every claim's value).
    const withoutClaims = { ...segments.body, items: segments.body.items.map((i: object) => ({ ...i, claims: {} })) };
    expect(responseErrors0202("listSiteVisitorSegments", 200, withoutClaims)).toEqual([]);
    expect(segments.body.items).toEqual([
      { title: "Visitors without claims", claims: {}, events: 12, visitors: 3, sessions: 4 },
      { title: "beta: true · plan: pro", claims: { beta: true, plan: "pro" }, events: 1, visitors: 1, sessions: 1 },
      { title: "plan: free", claims: { plan: "free" }, events: 1, visitors: 1, sessions: 1 },
      { title: "plan: pro", claims: { plan: "pro" }, events: 1, visitors: 1, sessions: 1 },
    ]);
  });

  it("refuse a hostile report whole, with 400, 413 or 429, and keep none of it", async () => {
    const s = await scenario();
    const post = (body: unknown) => ctx.as(s.owner).post(`${s.url}/insights/events`, body);
    const refused = async (body: unknown, status: number, message: string | RegExp) => {
      const res = await post(body);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body.error.code).toBeTruthy();
      expect(res.body.error.message).toMatch(message);
    };
    await refused(
      { events: [event("page_view"), { ...event("page_view"), type: "mind_read" }] },
      400,
      /body\.events\[1\]\.type: unknown event type "mind_read"/,
    );
    await refused({ events: Array.from({ length: 101 }, () => event("page_view")) }, 400, /events/);
    await refused({ events: [{ ...event("page_view"), timestamp: "2020-01-01T00:00:00Z" }] }, 400, /within 5 minutes/);
    await refused({ events: [event("page_view", {}, {}, { url: "javascript:alert(1)" })] }, 400, /http\(s\) URL/);
    await refused(
      { events: [{ type: "search_type_query", session: event("page_view").session, location: event("page_view").location }] },
      400,
      /needs `query`/,
    );
    await refused({ events: [{ ...event("page_view"), session: undefined }] }, 400, /session is required/);
    await refused({ events: [event("page_view", {}, { userAgent: "x".repeat(300 * 1024) })] }, 413, /.+/);
    await refused({}, 400, /events/);
    await flush();
    expect(await ctx.db.selectFrom("siteEvents").select("id").where("siteId", "=", s.site.id).execute()).toEqual([]);

    // A flood: a site holds at most MAX_SITE_EVENTS_PER_WRITE events between two writes, then 429.
    const batch = { events: Array.from({ length: 100 }, () => event("page_view")) };
    for (let held = 0; held + 100 <= MAX_SITE_EVENTS_PER_WRITE; held += 100) expect((await post(batch)).status).toBe(204);
    await refused(batch, 429, /too many events/);
    await flush();
    expect((await post(batch)).status).toBe(204);
    await flush();
    const count = await ctx.db
      .selectFrom("siteEvents")
      .select(({ fn }) => fn.countAll().as("n"))
      .where("siteId", "=", s.site.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(MAX_SITE_EVENTS_PER_WRITE + 100);
  });

  it("go past the retention days with their claims, and with their site", async () => {
    const s = await scenario();
    const track = await ctx.as(s.owner).post(`${s.url}/insights/events`, {
      events: [event("page_view", {}, { visitorAuthClaims: { plan: "pro" } })],
    });
    expect(track.status).toBe(204);
    await flush();
    const [row] = await ctx.db.selectFrom("siteEvents").select("id").where("siteId", "=", s.site.id).execute();
    expect(row).toBeDefined();
    // As if written 400 days ago: the retention job's query deletes it and its claim.
    await ctx.db
      .updateTable("siteEvents")
      .set({ day: "2025-01-01" })
      .where("id", "=", row?.id ?? "")
      .execute();
    expect(await deleteEventsBefore(ctx.db, "2025-06-01")).toBeGreaterThanOrEqual(1);
    expect(await ctx.db.selectFrom("siteEvents").select("id").where("siteId", "=", s.site.id).execute()).toEqual([]);
    expect(await ctx.db.selectFrom("siteEventClaims").select("eventId").where("siteId", "=", s.site.id).execute()).toEqual([]);
    // A deleted site takes its events with it.
    await ctx.as(s.owner).post(`${s.url}/insights/events`, { events: [event("page_view", {}, { visitorAuthClaims: { plan: "pro" } })] });
    await flush();
    expect((await ctx.as(s.owner).delete(s.url)).status).toBe(204);
    expect(await ctx.db.selectFrom("siteEvents").select("id").where("siteId", "=", s.site.id).execute()).toEqual([]);
    expect(await ctx.db.selectFrom("siteEventClaims").select("eventId").where("siteId", "=", s.site.id).execute()).toEqual([]);
  });

  it("refuse an aggregation that cannot be answered with 400 and what to change", async () => {
    const s = await scenario();
    const bad = async (body: Record<string, unknown>, message: RegExp) => {
      const res = await ctx.as(s.owner).post(`${s.url}/insights/events/aggregate`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message).toMatch(message);
    };
    await bad({}, /range/);
    await bad({ range: "lastCentury" }, /range/);
    await bad({ range: { from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z" } }, /`from` is after `to`/);
    await bad({ range: "last7Days", groupBy: [{ column: "visitorClaim" }] }, /needs `claim`/);
    await bad({ range: "last7Days", groupBy: [{ column: "shoeSize" }] }, /column/);
    await bad(
      { range: "last7Days", where: [{ column: "visitorDevice", values: ["toaster"] }] },
      /values\[0\] is not a value of the visitorDevice column/,
    );
    await bad({ range: "last7Days", where: [{ column: "page", operator: "greaterThan", values: [null] }] }, /`in` or `notIn` only/);
    await bad({ range: "last7Days", where: [{ column: "urlPath", operator: "lessThan", values: [] }] }, /needs one value/);
    await bad({ range: "last7Days", order: { by: { column: "urlPath" }, direction: "asc" } }, /add it to `groupBy`/);
    await bad({ range: "last7Days", limit: 1001 }, /limit/);
    await bad(
      { range: "last7Days", where: [{ column: "datetime", operator: "lessThan", values: ["yesterday"] }] },
      /not a value of the datetime column/,
    );
    await bad(
      { range: "last7Days", where: [{ column: "pageFeedbackRating", values: [{ ok: 1 }] }] },
      /not a value of the pageFeedbackRating column/,
    );
  });

  it("are for the site's editors and admins: a member who only sees the site gets 403, another organization 404", async () => {
    const s = await scenario();
    const other = await scenario();
    const calls = [
      (c: Requester, url: string) => c.post(`${url}/insights/events`, { events: [event("page_view")] }),
      (c: Requester, url: string) => c.post(`${url}/insights/events/aggregate`, { range: "last7Days" }),
      (c: Requester, url: string) => c.get(`${url}/insights/visitor-segments`),
    ];
    for (const call of calls) {
      expect((await call(ctx.as(s.members.create), s.url)).status).toBeLessThan(300);
      const reader = await call(ctx.as(s.members.read), s.url);
      expect(reader.status).toBe(403);
      expect(reader.body.error.message).toContain("editors and admins");
      expect((await call(ctx.as(s.outsider), s.url)).status).toBe(404);
      expect((await call(ctx.anonymous, s.url)).status).toBe(401);
      expect((await call(ctx.as(other.owner), `/v1/orgs/${other.org.id}/sites/${s.site.id}`)).status).toBe(404);
    }
    // Only the editor's report was kept: none refused (403, 404, 401) reached the site, not even the
    // one sent through another organization's address naming this site's id.
    await flush();
    expect(await ctx.db.selectFrom("siteEvents").select("id").where("siteId", "=", s.site.id).execute()).toHaveLength(1);
    expect(await ctx.db.selectFrom("siteEvents").select("id").where("siteId", "=", other.site.id).execute()).toEqual([]);
  });

  it("count for an editor of the site only the events of the spaces they may read, and those of no space", async () => {
    const s = await scenario();
    const tracked = await ctx.as(s.owner).post(`${s.url}/insights/events`, {
      events: [
        event(
          "page_post_feedback_comment",
          { feedback: { rating: "bad", comment: "The sudo step fails." } },
          {},
          { space: s.space.id, page: s.ids.install },
        ),
        event("search_type_query", { query: "installer" }),
      ],
    });
    expect(tracked.status).toBe(204);
    await flush();
    const aggregate = async (who: Requester) => {
      const res = await who.post(`${s.url}/insights/events/aggregate`, { range: "last24Hours", groupBy: [{ column: "eventType" }] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return JSON.stringify(res.body);
    };
    expect(await aggregate(ctx.as(s.members.create))).toContain("page_post_feedback_comment");
    // The space closed to members: an editor of the site who no longer reads it sees the site's
    // search, not the feedback on its pages; the owner still sees both.
    await setDefaultLevel(ctx, s.owner, { space: s.space.id }, null);
    const editor = await aggregate(ctx.as(s.members.create));
    expect(editor).not.toContain("page_post_feedback_comment");
    expect(editor).toContain("search_type_query");
    expect(await aggregate(ctx.as(s.owner))).toContain("page_post_feedback_comment");
  });
});
