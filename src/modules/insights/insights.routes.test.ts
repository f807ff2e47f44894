/**
 * Insights of a published site, end to end: readers' requests on the real site routes are counted
 * in memory, written by the recorder's flush, and read through getSiteInsights and GitBook 0.202's
 * site question operations (validated against 0.202's own schemas), by the site's editors only.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { responseErrors0202 } from "../../../test/helpers/contract-0202.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, setDefaultLevel } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
}, 120_000);
afterAll(() => ctx.close(), 60_000);

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const SAFARI = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";
const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
const ADDRESS = "203.0.113.9";

async function scenario() {
  const base = await createOrgWithSpace(ctx, { title: "Handbook" });
  const { content } = await commitContent(ctx, base.space.id, {
    pages: [
      { title: "Welcome", slug: "welcome", paragraphs: ["Start here to learn about the gateway."] },
      { title: "Install", slug: "install", paragraphs: ["Run the installer with sudo, then restart the gateway service."] },
    ],
  });
  await ctx.worker.drain();
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Handbook", spaces: [base.space.id] });
  const url = `/v1/orgs/${base.org.id}/sites/${site.id}`;
  expect((await ctx.as(base.owner).put(`${url}/customization`, { feedback: { enabled: true } })).status).toBe(200);
  expect((await ctx.as(base.owner).post(`${url}/publish`)).status).toBe(200);
  const [welcome, install] = content.pages.map((p) => p.id) as [string, string];
  return { ...base, site, url, root: `/s/${site.basename}`, ids: { welcome, install } };
}

async function read(path: string, userAgent?: string) {
  const res = await ctx.app.inject({
    method: "GET",
    url: path,
    headers: userAgent ? { "user-agent": userAgent } : {},
    remoteAddress: ADDRESS,
  });
  expect(res.statusCode, `${path}: ${res.body.slice(0, 200)}`).toBeLessThan(400);
  return res;
}

const flush = () => ctx.app.insights?.flush(true);

describe("site insights", () => {
  it("count views (browsers and agents apart), visitors, searches and questions, and answer them to the site's editors", async () => {
    const s = await scenario();
    await read(`${s.root}/install`, FIREFOX);
    await read(`${s.root}/install`, FIREFOX);
    await read(`${s.root}/install`, SAFARI);
    await read(`${s.root}/welcome`, FIREFOX);
    await read(`${s.root}/install`, GPTBOT);
    await read(`${s.root}/install.md`, FIREFOX);
    await read(`${s.root}/llms.txt`, "curl/8.5.0");
    await read(`${s.root}/llms-full.txt`);
    // The header's box as a reader types "install": one search, not three.
    for (const typed of ["ins", "inst", "install"]) await read(`${s.root}/~quire/search.json?q=${typed}`, FIREFOX);
    await read(`${s.root}/~quire/search?q=zeppelin`, FIREFOX);
    await read(`${s.root}/~quire/search?q=Zeppelin`, SAFARI);
    await read(`${s.root}/~quire/ask?q=${encodeURIComponent("How do I run the installer?")}`, FIREFOX);
    await read(`${s.root}/~quire/ask?q=${encodeURIComponent("how do I run the installer")}`, SAFARI);
    await read(`${s.root}/~quire/ask?q=${encodeURIComponent("Where is the hovercraft manual?")}`, FIREFOX);
    await read(`${s.root}/install.md?ask=${encodeURIComponent("Why does the zeppelin fail to dock?")}`, GPTBOT);
    // Nothing is written on the request path: the counts reach the database with the recorder's flush.
    expect(await ctx.db.selectFrom("sitePageViews").selectAll().where("siteId", "=", s.site.id).execute()).toEqual([]);
    await flush();

    const res = await ctx.as(s.owner).get(`${s.url}/insights?days=7`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const insights = res.body;
    // Browsers: install ×3, welcome ×1; agents: GPTBot's page, the .md, llms.txt, llms-full.txt.
    expect(insights.totals.views).toEqual({ browser: 4, agent: 4 });
    expect(insights.totals.visitors).toEqual({ browser: 2, agent: 3 });
    expect(insights.views).toHaveLength(7);
    expect(insights.views.at(-1)).toMatchObject({ browser: 4, agent: 4 });
    expect(insights.pages[0]).toMatchObject({ page: s.ids.install, title: "Install", browser: 3, agent: 2 });
    expect(insights.sources).toEqual(
      expect.arrayContaining([
        { source: "page", agent: false, views: 4 },
        { source: "page", agent: true, views: 1 },
        { source: "markdown", agent: true, views: 1 },
        { source: "llms.txt", agent: true, views: 1 },
        { source: "llms-full.txt", agent: true, views: 1 },
      ]),
    );
    expect(insights.searches).toEqual([
      { query: "zeppelin", searches: 2, noResult: 2 },
      { query: "install", searches: 1, noResult: 0 },
    ]);
    expect(insights.searchesWithoutResult).toEqual([{ query: "zeppelin", searches: 2, noResult: 2 }]);
    expect(insights.totals).toMatchObject({ searches: 3, searchesWithoutResult: 2, questions: 4, unanswered: 2 });
    expect(insights.questions[0]).toMatchObject({ question: "How do I run the installer?", answers: 2, unanswered: 0 });

    // GitBook 0.202's operations, with its own schemas.
    const list = await ctx.as(s.owner).get(`${s.url}/questions`);
    expect(list.status).toBe(200);
    expect(responseErrors0202("listSiteQuestions", 200, list.body)).toEqual([]);
    expect(list.body.count).toBe(3);
    const installer = list.body.items.find((q: { question: string }) => q.question === "How do I run the installer?");
    expect(installer).toMatchObject({
      type: "how-to",
      stats: { total: 1, answers: 2, answered: { yes: 2, no: 0 }, channelTypes: { site: 2 } },
    });
    const unanswered = await ctx.as(s.owner).get(`${s.url}/questions?answered=no&sort=askedAt&order=asc`);
    expect(unanswered.body.items.map((q: { question: string }) => q.question)).toEqual([
      "Where is the hovercraft manual?",
      "Why does the zeppelin fail to dock?",
    ]);
    expect(unanswered.body.items[1]).toMatchObject({ type: "troubleshooting", stats: { channelTypes: { api: 1 } } });
    const agents = await ctx.as(s.owner).get(`${s.url}/questions?channelType=api`);
    expect(agents.body.count).toBe(1);
    expect((await ctx.as(s.owner).get(`${s.url}/questions?channelType=builtin:slack`)).body.count).toBe(0);

    const stats = await ctx.as(s.owner).get(`${s.url}/question-stats`);
    expect(responseErrors0202("getSiteQuestionStats", 200, stats.body)).toEqual([]);
    expect(stats.body).toMatchObject({ total: 3, answers: 4, answered: { yes: 2, partially: 0, no: 2 } });
    expect(stats.body.weeklyPulse).toHaveLength(13);
    expect(stats.body.weeklyPulse[12]).toBe(4);

    const one = await ctx.as(s.owner).get(`${s.url}/questions/${installer.id}`);
    expect(responseErrors0202("getSiteQuestionById", 200, one.body)).toEqual([]);
    expect(one.body).toMatchObject({ id: installer.id, stats: { answers: 2 } });
    const sources = await ctx.as(s.owner).get(`${s.url}/questions/${installer.id}/sources`);
    expect(responseErrors0202("listSiteQuestionSources", 200, sources.body)).toEqual([]);
    expect(sources.body.items[0]).toMatchObject({ type: "page", page: s.ids.install, title: "Install", count: 2, weight: 1 });
    const answers = await ctx.as(s.owner).get(`${s.url}/answers?question=${installer.id}`);
    expect(responseErrors0202("listSiteQuestionAnswers", 200, answers.body)).toEqual([]);
    expect(answers.body.items.map((a: { input: { raw: string } }) => a.input.raw).sort()).toEqual([
      "How do I run the installer?",
      "how do I run the installer",
    ]);

    // One answer: what the reader read, as a document, and the pages it cited.
    const answerId = answers.body.items[0].id as string;
    const answer = await ctx.as(s.owner).get(`${s.url}/answers/${answerId}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(responseErrors0202("getSiteQuestionAnswerById", 200, answer.body)).toEqual([]);
    expect(answer.body).toMatchObject({ id: answerId, question: { id: installer.id }, answered: "yes", response: { role: "assistant" } });
    expect(answer.body.response.steps).toHaveLength(1);
    expect(JSON.stringify(answer.body.response.steps[0].content)).toContain("Run the installer with sudo");
    const thread = await ctx.as(s.owner).get(`${s.url}/answers/${answerId}/thread`);
    expect(responseErrors0202("getSiteQuestionAnswerThreadById", 200, thread.body)).toEqual([]);
    expect(thread.body).toEqual([answer.body]);
    const cited = await ctx.as(s.owner).get(`${s.url}/answers/${answerId}/sources`);
    expect(responseErrors0202("listSiteQuestionAnswerSources", 200, cited.body)).toEqual([]);
    expect(cited.body.items).toEqual([
      expect.objectContaining({ type: "page", page: s.ids.install, title: "Install", count: 1, weight: 1 }),
    ]);
    const unansweredId = (await ctx.as(s.owner).get(`${s.url}/answers?answered=no`)).body.items[0].id as string;
    expect((await ctx.as(s.owner).get(`${s.url}/answers/${unansweredId}/sources`)).body.items).toEqual([]);
  });

  it("keep no address or user agent: visitors are hashes under a salt of the day", async () => {
    const s = await scenario();
    await read(`${s.root}/welcome`, FIREFOX);
    await flush();
    const visitors = await ctx.db.selectFrom("siteVisitors").selectAll().where("siteId", "=", s.site.id).execute();
    expect(visitors).toHaveLength(1);
    const stored = JSON.stringify(visitors);
    expect(stored).not.toContain(ADDRESS);
    expect(stored).not.toContain("Firefox");
    const today = new Date().toISOString().slice(0, 10);
    expect(await ctx.db.selectFrom("siteInsightSalts").select("day").where("day", "=", today).execute()).toHaveLength(1);
    // The same reader the next day is hashed under that day's salt: another hash, not followed across days.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 24 * 60 * 60 * 1000 });
    try {
      await read(`${s.root}/welcome`, FIREFOX);
      await flush();
    } finally {
      vi.useRealTimers();
    }
    const days = await ctx.db.selectFrom("siteVisitors").selectAll().where("siteId", "=", s.site.id).orderBy("day").execute();
    expect(days).toHaveLength(2);
    expect(days[1]?.day).not.toBe(today);
    expect(days[1]?.visitor).not.toBe(days[0]?.visitor);
  });

  it("are for the site's editors and admins: a member who only sees the site gets 403, another organization 404", async () => {
    const s = await scenario();
    const other = await scenario();
    await read(`${s.root}/~quire/ask?q=${encodeURIComponent("How do I run the installer?")}`, FIREFOX);
    await flush();
    const question = (await ctx.as(s.owner).get(`${s.url}/questions`)).body.items[0];
    expect(question).toBeDefined();
    const answer = (await ctx.as(s.owner).get(`${s.url}/answers`)).body.items[0];
    for (const path of [
      "insights",
      "questions",
      "question-stats",
      "answers",
      `questions/${question.id}`,
      `questions/${question.id}/sources`,
      `answers/${answer.id}`,
      `answers/${answer.id}/thread`,
      `answers/${answer.id}/sources`,
    ]) {
      expect((await ctx.as(s.members.create).get(`${s.url}/${path}`)).status, path).toBe(200);
      const reader = await ctx.as(s.members.read).get(`${s.url}/${path}`);
      expect(reader.status, path).toBe(403);
      expect(reader.body.error.message).toContain("editors and admins");
      expect((await ctx.as(s.outsider).get(`${s.url}/${path}`)).status, path).toBe(404);
      expect((await ctx.anonymous.get(`${s.url}/${path}`)).status, path).toBe(401);
      // Another organization's owner, with this site's ids under their own organization: 404.
      expect((await ctx.as(other.owner).get(`/v1/orgs/${other.org.id}/sites/${s.site.id}/${path}`)).status, path).toBe(404);
    }
    // A question of another site, asked through this site's address: 404.
    const mine = await ctx.as(other.owner).get(`${other.url}/questions/${question.id}`);
    expect(mine.status).toBe(404);
    expect(mine.body.error.message).toContain(question.id);
    const theirs = await ctx.as(other.owner).get(`${other.url}/answers/${answer.id}`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.message).toContain(answer.id);
  });

  it("show an answer's text only to a caller who may read every space it cites", async () => {
    const s = await scenario();
    await read(`${s.root}/~quire/ask?q=${encodeURIComponent("How do I run the installer?")}`, FIREFOX);
    await flush();
    const answerId = (await ctx.as(s.owner).get(`${s.url}/answers`)).body.items[0].id as string;
    const stepsOf = async (who: typeof s.owner) => (await ctx.as(who).get(`${s.url}/answers/${answerId}`)).body.response.steps;
    expect(await stepsOf(s.members.create)).toHaveLength(1);
    // The cited space closed to members: an editor of the site who no longer reads it sees that the
    // question was answered, not the text that quotes it.
    await setDefaultLevel(ctx, s.owner, { space: s.space.id }, null);
    const answer = await ctx.as(s.members.create).get(`${s.url}/answers/${answerId}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ answered: "yes", response: { steps: [] } });
    expect(JSON.stringify(answer.body)).not.toContain("installer with sudo");
    const thread = await ctx.as(s.members.create).get(`${s.url}/answers/${answerId}/thread`);
    expect(thread.body[0].response.steps).toEqual([]);
    const cited = await ctx.as(s.members.create).get(`${s.url}/answers/${answerId}/sources`);
    expect(cited.body.items[0].title).toBe("(a page of a space you cannot read)");
    expect(await stepsOf(s.owner)).toHaveLength(1);
  });

  it("refuse bad parameters with 400 and a message saying what to change", async () => {
    const s = await scenario();
    const bad = async (path: string) => {
      const res = await ctx.as(s.owner).get(`${s.url}/${path}`);
      expect(res.status, path).toBe(400);
      expect(res.body.error.message, path).toBeTruthy();
      return res.body.error.message as string;
    };
    await bad("insights?days=0");
    await bad("insights?days=400");
    await bad("questions?answered=maybe");
    await bad("questions?sort=loudness");
    await bad("questions?from=yesterday");
    expect(await bad("question-stats?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z")).toContain("`from` is after `to`");
    await bad(`questions?limit=${"9".repeat(5)}`);
    await bad(`answers?page=${"x".repeat(30)}`);
    await bad(`answers/${"x".repeat(101)}`);
    await bad("answers/some-answer/sources?limit=0");
  });

  it("go with their site, and are not counted when insights are off", async () => {
    const s = await scenario();
    await read(`${s.root}/welcome`, FIREFOX);
    await read(`${s.root}/~quire/ask?q=${encodeURIComponent("How do I run the installer?")}`, FIREFOX);
    await flush();
    expect((await ctx.as(s.owner).delete(s.url)).status).toBe(204);
    for (const table of ["sitePageViews", "siteVisitors", "siteQuestions", "siteQuestionAnswers"] as const) {
      expect(await ctx.db.selectFrom(table).select("siteId").where("siteId", "=", s.site.id).execute(), table).toEqual([]);
    }
    const off = await createTestContext({ config: { insights: { enabled: false, retentionDays: 30, flushMs: 60_000 } } });
    try {
      const base = await createOrgWithSpace(off, { title: "Quiet" });
      await commitContent(off, base.space.id, { pages: [{ title: "Welcome", slug: "welcome", paragraphs: ["Hello."] }] });
      const site = await createSite(off, base.owner, base.org.id, { title: "Quiet", spaces: [base.space.id] });
      expect((await off.as(base.owner).post(`/v1/orgs/${base.org.id}/sites/${site.id}/publish`)).status).toBe(200);
      expect((await off.anonymous.get(`/s/${site.basename}/welcome`)).status).toBe(200);
      await off.app.insights?.flush(true);
      expect(await off.db.selectFrom("sitePageViews").selectAll().execute()).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
