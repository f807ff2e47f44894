/**
 * The published site's instant search in Chromium: typing in the header's box shows results (page,
 * section, snippet with the words marked) from search.json; the arrow keys choose one and Enter
 * opens it, Escape closes the list; Ctrl+K and "/" focus the box; axe finds no serious
 * accessibility violation with the list open; a misspelled word ("kubernets") finds its page. The
 * search script is fetched only when the reader comes to the box, and what was typed meanwhile is searched.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveDocument } from "../../src/content/revision/storage.js";
import { commitContent } from "../helpers/content.factories.js";
import { doc, h, p } from "../helpers/render-documents.js";
import { createSite } from "../helpers/sites.factories.js";
import { createOrgWithSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

let e2e: WebE2E;
let root: string;

beforeAll(async () => {
  e2e = await startWebE2E();
  const { ctx } = e2e;
  const { org, owner, space } = await createOrgWithSpace(ctx, { title: "Ops" });
  const events = doc(
    p("Kubernetes events tell what happened in the cluster."),
    h(1, "Watching events"),
    p("Run kubectl get events to watch the Kubernetes events stream."),
  );
  await commitContent(ctx, space.id, {
    pages: [
      { title: "Overview", slug: "overview", paragraphs: ["Start here."] },
      { title: "Kubernetes events", slug: "events", extra: { documentHash: await saveDocument(ctx.db, events) } },
      { title: "Kubernetes", slug: "kubernetes", paragraphs: ["The cluster runs on Kubernetes."] },
      { title: "Secret plans", slug: "secret", paragraphs: ["Kubernetes upgrades planned."], extra: { hidden: true } },
    ],
  });
  const site = await createSite(ctx, owner, org.id, { title: "Ops Docs", spaces: [space.id] });
  expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).status).toBe(200);
  await ctx.worker.drain();
  root = `${e2e.base}/s/${site.basename}`;
}, 120_000);

afterAll(async () => {
  await e2e?.close();
});

/** Serious and critical axe violations of the page as it is now. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; nodes: { target: string[]; failureSummary?: string }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => `${n.target.join(" ")} ${n.failureSummary ?? ""}`).join("; ")}`);
}

describe("the published site's instant search", () => {
  it("shows results as the reader types; arrows and Enter open one, Escape closes, Ctrl+K and / focus the box", async () => {
    const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      await page.goto(`${root}/overview`);
      const box = page.getByRole("combobox", { name: "Search this site" });
      const list = page.getByRole("listbox", { name: "Search results" });

      // Ctrl+K from the page focuses the box; so does "/" when not typing in a field.
      await page.locator("main").click();
      await page.keyboard.press("Control+k");
      await expect.poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
      await page.locator("main").click();
      await page.keyboard.press("/");
      await expect.poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await box.inputValue()).toBe("");

      await page.keyboard.type("kubernetes");
      await list.waitFor({ state: "visible" });
      const options = list.getByRole("option");
      await expect.poll(() => options.count()).toBeGreaterThan(1);
      const texts = await options.allTextContents();
      // The page titled as the query first; the hidden page is not found.
      expect(texts[0]).toContain("Kubernetes");
      expect(texts[0]).not.toContain("Kubernetes events");
      expect(texts.join(" ")).toContain("Kubernetes events");
      expect(texts.join(" ")).not.toContain("Secret plans");
      expect(await list.locator("mark").first().textContent()).toMatch(/^kubernetes$/i);
      expect(await box.getAttribute("aria-expanded")).toBe("true");
      await e2e.shot(page, "search-dropdown");
      expect(await axeViolations(page)).toEqual([]);

      // Escape closes the list, the box keeps the query.
      await page.keyboard.press("Escape");
      await list.waitFor({ state: "hidden" });
      expect(await box.inputValue()).toBe("kubernetes");

      // Arrow down opens it again on the first result, another moves to the second; Enter opens it.
      await page.keyboard.press("ArrowDown");
      await list.waitFor({ state: "visible" });
      expect(await options.nth(0).getAttribute("aria-selected")).toBe("true");
      await page.keyboard.press("ArrowDown");
      expect(await options.nth(1).getAttribute("aria-selected")).toBe("true");
      expect(await box.getAttribute("aria-activedescendant")).toBe(await options.nth(1).getAttribute("id"));
      await e2e.shot(page, "search-dropdown-chosen");
      const target = (await options.nth(1).getAttribute("href")) as string;
      expect(target).toContain("/events");
      await Promise.all([page.waitForURL((url) => url.href.endsWith(target)), page.keyboard.press("Enter")]);
      expect(await page.locator("h1.q-page-title").textContent()).toBe("Kubernetes events");

      // Enter without a result chosen submits to the full results page.
      await page.keyboard.press("Control+k");
      await page.keyboard.type("cluster");
      await list.waitFor({ state: "visible" });
      await Promise.all([page.waitForURL(/~quire\/search\?q=cluster/), page.keyboard.press("Enter")]);
      expect(await page.locator(".q-results li").count()).toBeGreaterThan(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
  it("finds the page of a misspelled word, the correction marked", async () => {
    const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      await page.goto(`${root}/overview`);
      const box = page.getByRole("combobox", { name: "Search this site" });
      const list = page.getByRole("listbox", { name: "Search results" });
      const options = list.getByRole("option");
      // A letter missing, then two letters swapped (which no stemming matches).
      for (const typed of ["kubernets", "kubrenetes"]) {
        await box.fill("");
        await box.pressSequentially(typed);
        await list.waitFor({ state: "visible" });
        await expect.poll(() => options.count(), { message: typed }).toBeGreaterThan(1);
        const texts = await options.allTextContents();
        expect(texts[0], typed).toContain("Kubernetes");
        expect(texts[0], typed).not.toContain("Kubernetes events");
        expect(texts.join(" "), typed).not.toContain("Secret plans");
      }
      expect(await list.locator("mark").first().textContent()).toMatch(/^kubernetes$/i);
      await e2e.shot(page, "search-dropdown-misspelled");
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
  it("fits the results on a phone's screen", async () => {
    const context = await e2e.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    try {
      await page.goto(`${root}/overview`);
      await page.getByRole("combobox", { name: "Search this site" }).fill("kubernetes");
      const list = page.getByRole("listbox", { name: "Search results" });
      await list.waitFor({ state: "visible" });
      const box = await list.boundingBox();
      expect(box?.x).toBeGreaterThanOrEqual(0);
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
      await e2e.shot(page, "search-dropdown-phone");
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });
  it("fetches the search script only when the reader comes to the box, and searches what was typed while it loaded", async () => {
    const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
    });
    // The search script is held until the reader has typed: the words come before it.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(/\/~quire\/assets\/search\.[0-9a-f]+\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.goto(`${root}/overview`, { waitUntil: "networkidle" });
      const box = page.getByRole("combobox", { name: "Search this site" });
      // The box is a combobox from the start (site.js), with no script of its own fetched yet.
      expect(await box.getAttribute("aria-controls")).toBe("q-search-results");
      expect(scripts.some((s) => s.includes("/site."))).toBe(true);
      expect(scripts.filter((s) => s.includes("/search."))).toEqual([]);

      await box.click();
      await page.keyboard.type("kubernetes");
      await expect.poll(() => scripts.filter((s) => s.includes("/search.")).length).toBe(1);
      const list = page.getByRole("listbox", { name: "Search results" });
      expect(await list.isVisible()).toBe(false);
      release();
      await list.waitFor({ state: "visible" });
      expect(await list.getByRole("option").first().textContent()).toContain("Kubernetes");

      // Leaving and coming back does not fetch it again.
      await page.keyboard.press("Escape");
      await page.locator("main").click();
      await page.keyboard.press("Control+k");
      await page.keyboard.press("ArrowDown");
      await list.waitFor({ state: "visible" });
      expect(scripts.filter((s) => s.includes("/search."))).toHaveLength(1);

      // The results page's box shows its query: focusing it fetches the script but opens no list.
      await page.goto(`${root}/~quire/search?q=cluster`, { waitUntil: "networkidle" });
      await box.focus();
      await page.waitForFunction(() => document.querySelector(".q-search[data-search-ready]") !== null);
      expect(await list.isVisible()).toBe(false);
      expect(await box.inputValue()).toBe("cluster");
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
