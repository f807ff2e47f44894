/**
 * The insights reads that scan a site's events are bounded (bounded-reads.queries.ts): on SQLite they run
 * in a worker thread, so the server answers other requests while one runs; on both databases one
 * over the time limit is a 413 asking to narrow the range, and nothing is left running.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { testDialect } from "../../../test/helpers/db.js";
import { seedEvents } from "../../../test/helpers/insights.factories.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { runInWorker } from "../../content/run-in-worker.js";
import { sqliteFileOf } from "../../db/database.js";
import { configureWorkerThreads } from "../../workers/pool.js";
import { configureInsightsReadLimit, insightsReadsInFlight, useInsightsTasks } from "./bounded-reads.queries.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
}, 120_000);
afterAll(() => ctx.close(), 60_000);

async function siteWithEvents(count: number) {
  const base = await createOrgWithSpace(ctx, { title: "Handbook" });
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Handbook", spaces: [base.space.id] });
  await seedEvents(ctx.db, site.id, count, new Date(Date.now() - 3_600_000));
  return { ...base, site, url: `/v1/orgs/${base.org.id}/sites/${site.id}` };
}

/** The reads' task module behind a gate (test/helpers/gated-insights-tasks.ts). */
const gatedTasks = {
  url: new URL("../../../test/helpers/gated-insights-tasks.ts", import.meta.url),
  load: () => import("../../../test/helpers/gated-insights-tasks.js") as never,
  outOfMemory: () => ({ work: "test", remedy: "test" }),
};

const byPath = { range: "last24Hours", groupBy: [{ column: "urlPath" }], select: [{ column: "eventsCount" }], limit: 3 };

describe("bounded insights reads", () => {
  // PostgreSQL's queries are already off the request thread.
  it.runIf(testDialect() === "sqlite")(
    "answer other requests while an aggregation runs in its worker thread, and refuse reads beyond those that may wait",
    async () => {
      const s = await siteWithEvents(500);
      const file = sqliteFileOf(ctx.db)!;
      const previous = useInsightsTasks(gatedTasks);
      try {
        let answered = false;
        const aggregation = ctx
          .as(s.owner)
          .post(`${s.url}/insights/events/aggregate`, byPath)
          .then((res) => {
            answered = true;
            return res;
          });
        // The read is in its thread, which it holds (as a long statement would) until released.
        // (Were it read on the request thread, it would be answered without ever reaching the gate.)
        while (!fs.existsSync(`${file}.started`) && !answered) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(answered).toBe(false);
        const others = [];
        for (let i = 0; i < 5; i++) {
          const res = await ctx.as(s.owner).get(`${s.url}`);
          others.push(res.status);
          expect(answered).toBe(false);
        }
        expect(others).toEqual([200, 200, 200, 200, 200]);
        // Nor does it hold the threads of conversions: a page's Markdown is converted meanwhile.
        const converted = await runInWorker("convertMarkdown", { markdown: "# Held\n\nNot waiting." });
        expect(JSON.stringify(converted)).toContain("Not waiting.");
        expect(answered).toBe(false);
        // Three more wait for the reads' thread (4 reads at once); once they do, a fifth is told to come back.
        const waiting = [1, 2, 3].map(() => ctx.as(s.owner).post(`${s.url}/insights/events/aggregate`, byPath));
        while (insightsReadsInFlight() < 4) await new Promise((resolve) => setTimeout(resolve, 10));
        const refused = await ctx.as(s.owner).get(`${s.url}/insights/visitor-segments`);
        expect(refused.status, JSON.stringify(refused.body)).toBe(429);
        expect(refused.headers["retry-after"]).toBe("5");
        expect(answered).toBe(false);
        fs.writeFileSync(`${file}.release`, "");
        for (const res of [await aggregation, ...(await Promise.all(waiting))]) {
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          expect(res.body.columns).toEqual([
            { column: "urlPath", values: ["/p0", "/p1", "/p10"] },
            { column: "eventsCount", values: [10, 10, 10] },
          ]);
        }
      } finally {
        useInsightsTasks(previous);
        fs.rmSync(`${file}.started`, { force: true });
        fs.rmSync(`${file}.release`, { force: true });
      }
    },
  );

  it.runIf(testDialect() === "sqlite")("stop the thread of a read that does not stop by itself, and read on a new one", async () => {
    const s = await siteWithEvents(500);
    const file = sqliteFileOf(ctx.db)!;
    const previous = useInsightsTasks(gatedTasks);
    // The gate holds the read for ever (it is opened only after the answer): only stopping its thread answers.
    configureInsightsReadLimit(0, 200);
    try {
      const res = await ctx.as(s.owner).post(`${s.url}/insights/events/aggregate`, byPath);
      expect(res.status, JSON.stringify(res.body)).toBe(413);
      expect(res.body.error.message).toMatch(/narrow the range/);
    } finally {
      configureInsightsReadLimit(10_000);
      useInsightsTasks(previous);
      fs.writeFileSync(`${file}.release`, "");
    }
    const res = await ctx.as(s.owner).post(`${s.url}/insights/events/aggregate`, byPath);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.columns[1].values).toEqual([10, 10, 10]);
    fs.rmSync(`${file}.started`, { force: true });
    fs.rmSync(`${file}.release`, { force: true });
  });

  it.runIf(testDialect() === "sqlite")("read on the calling thread within the limit when there are no worker threads", async () => {
    const s = await siteWithEvents(2_000);
    configureWorkerThreads(0);
    try {
      const res = await ctx.as(s.owner).post(`${s.url}/insights/events/aggregate`, byPath);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.columns[1].values).toEqual([40, 40, 40]);
      configureInsightsReadLimit(0);
      const late = await ctx.as(s.owner).post(`${s.url}/insights/events/aggregate`, byPath);
      expect(late.status, JSON.stringify(late.body)).toBe(413);
    } finally {
      configureInsightsReadLimit(10_000);
      configureWorkerThreads(1);
    }
  });

  it("refuse an aggregation over the time limit with a 413 that says to narrow the range, then answer within it", async () => {
    // 0 ms on SQLite: the first row checked is over the limit. PostgreSQL's 0 means no limit: 1 ms
    // there, for a statement that groups 200,000 rows.
    const s = await siteWithEvents(ctx.dialect === "postgres" ? 200_000 : 2_000);
    configureInsightsReadLimit(ctx.dialect === "postgres" ? 1 : 0);
    try {
      const res = await ctx.as(s.owner).post(`${s.url}/insights/events/aggregate`, byPath);
      expect(res.status, JSON.stringify(res.body)).toBe(413);
      expect(res.body.error.code).toBe(413);
      expect(res.body.error.message).toMatch(/narrow the range/);
      const segments = await ctx.as(s.owner).get(`${s.url}/insights/visitor-segments`);
      expect(segments.status, JSON.stringify(segments.body)).toBe(413);
    } finally {
      configureInsightsReadLimit(10_000);
    }
    // The same read within the limit: the thread (or connection) that timed out serves the next.
    const res = await ctx.as(s.owner).post(`${s.url}/insights/events/aggregate`, { ...byPath, groupBy: [{ column: "visitorBot" }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const total = ctx.dialect === "postgres" ? 200_000 : 2_000;
    expect(res.body.columns[1].values.reduce((a: number, b: number) => a + b, 0)).toBe(total);
  });
});
