/**
 * A site's Insights page in Chromium: readers' visits to the published site (a real browser, an
 * agent's user agent, llms.txt, searches, Ask questions, a rating) reach the page once the recorder
 * writes them, and from its events the agents by name, the addresses that found no page and the
 * sites readers came from; an editor reaches it from the site's page and changes the period; a
 * member who only sees the site gets no link and a 403. axe finds no serious violation, light and
 * dark. QUIRE_SCREENSHOTS_DIR=<dir> keeps the screenshots, desktop and phone, light and dark.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext, TestUser } from "../helpers/app.js";
import { commitContent } from "../helpers/content.factories.js";
import { createSite } from "../helpers/sites.factories.js";
import { createOrgWithSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";
const CLAUDE = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)";

let e2e: WebE2E;
let ctx: TestContext;
let base: string;
let orgId: string;
let siteId: string;
let root: string;
let owner: TestUser;
let reader: TestUser;

beforeAll(async () => {
  e2e = await startWebE2E();
  ({ ctx, base } = e2e);
  const made = await createOrgWithSpace(ctx, { title: "Handbook" });
  ({ owner } = made);
  reader = made.members.read;
  orgId = made.org.id;
  const { content } = await commitContent(ctx, made.space.id, {
    pages: [
      { title: "Welcome", slug: "welcome", paragraphs: ["Start here to learn about the gateway."] },
      { title: "Install", slug: "install", paragraphs: ["Run the installer with sudo, then restart the gateway service."] },
      { title: "Configure", slug: "configure", paragraphs: ["Set the port and the log level in gateway.toml."] },
    ],
  });
  await ctx.worker.drain();
  const site = await createSite(ctx, owner, orgId, { title: "Gateway Docs", spaces: [made.space.id] });
  siteId = site.id;
  root = `/s/${site.basename}`;
  const url = `/v1/orgs/${orgId}/sites/${siteId}`;
  expect((await ctx.as(owner).put(`${url}/customization`, { feedback: { enabled: true } })).status).toBe(200);
  expect((await ctx.as(owner).post(`${url}/publish`)).status).toBe(200);
  // Earlier days, as the recorder would have written them (the chart shows two weeks of them).
  const spaceId = made.space.id;
  const [welcome, install, configure] = content.pages.map((p) => p.id) as [string, string, string];
  const rows = [];
  for (let d = 1; d < 14; d++) {
    const day = new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10);
    rows.push({ siteId, day, spaceId, pageId: install, source: "page" as const, agent: 0, views: 20 + ((d * 7) % 13) });
    rows.push({ siteId, day, spaceId, pageId: welcome, source: "page" as const, agent: 0, views: 8 + (d % 5) });
    rows.push({ siteId, day, spaceId, pageId: configure, source: "markdown" as const, agent: 1, views: 3 + ((d * 3) % 7) });
    rows.push({ siteId, day, spaceId: "", pageId: "", source: "llms.txt" as const, agent: 1, views: 2 + (d % 3) });
  }
  await ctx.db.insertInto("sitePageViews").values(rows).execute();
}, 180_000);

afterAll(async () => {
  await e2e?.close();
});

async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

describe("a site's Insights page, in Chromium", () => {
  it("shows what readers did: views over time, agents apart, pages, searches, questions and feedback", async () => {
    // A reader in Chromium reads a page and rates it; an agent reads the same page and llms.txt.
    // Headless Chromium says so in its user agent (counted as an agent): this reader's says what a person's browser does.
    const readerContext = await e2e.browser.newContext({ userAgent: CHROME });
    const site = await readerContext.newPage();
    await site.goto(`${base}${root}/install`);
    await site.getByRole("button", { name: /Yes/ }).first().click();
    await site.waitForURL(/#q-feedback-thanks$/);
    await readerContext.close();
    const agent = (path: string) => ctx.app.inject({ method: "GET", url: path, headers: { "user-agent": CLAUDE } });
    expect((await agent(`${root}/install`)).statusCode).toBe(200);
    expect((await agent(`${root}/llms.txt`)).statusCode).toBe(200);
    // Readers sent by other sites, one to an address that is no page (twice); a reader moving
    // between the site's own pages (not a referral).
    const referred = (path: string, referer: string) =>
      ctx.app.inject({ method: "GET", url: path, headers: { "user-agent": CHROME, referer } });
    expect((await referred(`${root}/welcome`, "https://forum.example.org/t/gateway-setup?page=2")).statusCode).toBe(200);
    expect((await referred(`${root}/old-install-guide`, "https://news.example.com/item?id=7")).statusCode).toBe(404);
    expect((await referred(`${root}/old-install-guide`, "https://news.example.com/item?id=8")).statusCode).toBe(404);
    expect((await referred(`${root}/configure`, `${base}${root}/welcome`)).statusCode).toBe(200);
    for (const q of ["installer", "zeppelin", "kubernetes"]) await ctx.anonymous.get(`${root}/~quire/search?q=${q}`);
    await ctx.anonymous.get(`${root}/~quire/ask?q=${encodeURIComponent("How do I run the installer?")}`);
    await ctx.anonymous.get(`${root}/~quire/ask?q=${encodeURIComponent("Where is the hovercraft manual?")}`);
    await ctx.app.insights?.flush(true);

    const { context, page } = await e2e.signIn(owner);
    const problems = watchProblems(page);
    await page.goto(`${base}/app/o/${orgId}/sites/${siteId}`);
    await page.getByRole("link", { name: "Insights" }).click();
    await page.waitForURL(/\/insights$/);
    const main = page.locator("main");
    await expect.poll(() => main.textContent()).toContain("Views over time");
    const text = (await main.textContent()) ?? "";
    expect(text).toContain("Insights: Gateway Docs");
    expect(text).toContain("zeppelin");
    expect(text).toContain("Where is the hovercraft manual?");
    expect(text).toContain("llms.txt");
    // 30 days, one bar each; today's has the Chromium reader's two views (the page, and the page again
    // after the rating), the referred readers' two pages (a 404 is no view) and the agent's two reads.
    expect(await page.locator(".bars .day").count()).toBe(30);
    const today = new Date().toISOString().slice(0, 10);
    expect(await page.locator(".bars .day").last().getAttribute("title")).toBe(`${today}: 4 views by browsers, 2 views by agents`);
    const unanswered = page.locator("section", { hasText: "Questions asked" }).locator("table").last();
    expect(await unanswered.textContent()).toContain("Where is the hovercraft manual?");
    expect(await unanswered.textContent()).not.toContain("installer");
    const feedback = page.locator("section", { hasText: "Page feedback" });
    expect(await feedback.locator("tbody tr").first().textContent()).toContain("Install");
    // From the site's events: agents by name, the addresses that found no page, the sites readers came from.
    const agentNames = page.locator("table", { has: page.getByRole("columnheader", { name: "Agent" }) });
    expect(await agentNames.locator("tbody tr", { hasText: "ClaudeBot" }).textContent()).toBe("ClaudeBot (Anthropic)2");
    const broken = page.locator("section", { hasText: "Addresses that found no page" });
    expect(await broken.locator("tbody tr").first().textContent()).toBe(`${root}/old-install-guide2`);
    const referrers = page.locator("section", { hasText: "Sites readers came from" });
    expect(await referrers.locator("tbody tr").allTextContents()).toEqual(["news.example.com21", "forum.example.org11"]);
    expect(await axeViolations(page)).toEqual([]);
    await e2e.shot(page, "insights-01-month");

    await page.getByLabel("Period").selectOption("7");
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForURL(/days=7/);
    expect(await page.locator(".bars .day").count()).toBe(7);
    expect(problems).toEqual([]);
    await context.close();

    const phone = await e2e.signIn(owner, PHONE);
    await phone.page.goto(`${base}/app/o/${orgId}/sites/${siteId}/insights`);
    expect(await axeViolations(phone.page)).toEqual([]);
    await e2e.shot(phone.page, "insights-02-phone");
    await phone.context.close();

    for (const [options, name] of [
      [{ colorScheme: "dark", viewport: { width: 1280, height: 900 } }, "insights-03-dark"],
      [{ ...PHONE, colorScheme: "dark" }, "insights-04-dark-phone"],
    ] as const) {
      const dark = await e2e.signIn(owner, options);
      await dark.page.goto(`${base}/app/o/${orgId}/sites/${siteId}/insights`);
      expect(await dark.page.locator("main").textContent()).toContain("Sites readers came from");
      expect(await axeViolations(dark.page)).toEqual([]);
      await e2e.shot(dark.page, name);
      await dark.context.close();
    }
  });

  it("is refused to a member who only sees the site, and the link is not shown to them", async () => {
    const { context, page } = await e2e.signIn(reader);
    await page.goto(`${base}/app/o/${orgId}/sites/${siteId}`);
    expect(await page.getByRole("link", { name: "Insights" }).count()).toBe(0);
    const answer = await page.goto(`${base}/app/o/${orgId}/sites/${siteId}/insights`);
    expect(answer?.status()).toBe(403);
    expect(await page.locator("main").textContent()).toContain("Only the site's editors and admins");
    await context.close();
  });
});
