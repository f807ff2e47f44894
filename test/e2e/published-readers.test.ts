/**
 * What a reader of a published page finds around its text, in Chromium against the real server:
 * the "On this page" outline of a page imported from Git (its `##` are heading-1), a code block
 * with its language and a Copy button that copies, and the page-actions menu (mouse, keyboard,
 * without JavaScript), with axe finding no serious accessibility violation with the menu open.
 * QUIRE_SCREENSHOTS_DIR=<dir> keeps screenshots: light, dark and phone.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { BrowserContextOptions, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveDocument } from "../../src/content/revision/storage.js";
import type { TestContext } from "../helpers/app.js";
import { commitContent } from "../helpers/content.factories.js";
import { code, doc, h, p } from "../helpers/render-documents.js";
import { createSite } from "../helpers/sites.factories.js";
import { createOrgWithSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const SOURCE = 'import { connect } from "acme";\n\nconst engine = await connect({ gears: 12 });\nengine.start();';

let e2e: WebE2E;
let ctx: TestContext;
let pageUrl: string;
let root: string;

beforeAll(async () => {
  e2e = await startWebE2E();
  ctx = e2e.ctx;
  const { org, owner, space } = await createOrgWithSpace(ctx, { title: "Guide" });
  const body = doc(
    p("The engine starts in three steps."),
    h(1, "Install the client"),
    p("Add the package to your project."),
    code("ts", SOURCE, { title: "start.ts" }),
    h(2, "On Linux"),
    p("Use the package manager."),
    h(1, "Configure"),
    p("Set the number of gears."),
    h(1, "Run"),
    p("Start the engine."),
  );
  await commitContent(ctx, space.id, {
    pages: [
      { title: "Overview", slug: "overview", paragraphs: ["Start here."] },
      {
        title: "Quickstart",
        slug: "quickstart",
        extra: { documentHash: await saveDocument(ctx.db, body), description: "From nothing to a running engine" },
      },
    ],
  });
  const site = await createSite(ctx, owner, org.id, { title: "Acme Docs", spaces: [space.id] });
  const url = `/v1/orgs/${org.id}/sites/${site.id}`;
  expect((await ctx.as(owner).put(`${url}/customization`, { pageActions: { externalAI: true, markdown: true, mcp: true } })).status).toBe(
    200,
  );
  expect((await ctx.as(owner).post(`${url}/publish`)).status).toBe(200);
  root = `${e2e.base}/s/${site.basename}`;
  pageUrl = `${root}/quickstart`;
}, 120_000);

afterAll(async () => {
  await e2e?.close();
});

/** Serious and critical axe violations of the page as it is now. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; nodes: { target: string[]; failureSummary?: string; html?: string }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id}: ${v.nodes.map((n) => `${n.target.join(" ")} ${process.env.AXE_DEBUG ? `${n.html} ${n.failureSummary}` : ""}`.trim()).join(", ")}`,
    );
}

async function open(options: BrowserContextOptions = {}) {
  const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  // The test stays offline.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(pageUrl);
  return { context, page, problems };
}

describe("a published page in Chromium", () => {
  it("shows the outline, a labelled code block whose Copy copies, and a page-actions menu", async () => {
    const { context, page, problems } = await open();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: e2e.base });
    expect(await page.locator(".q-outline li").allTextContents()).toEqual(["Install the client", "On Linux", "Configure", "Run"]);
    expect(await page.locator(".q-outline li.q-l2").allTextContents()).toEqual(["On Linux"]);
    await expect(page.title()).resolves.toBe("Quickstart | Acme Docs");

    const figure = page.locator("figure.q-code");
    expect(await figure.locator(".q-code-language").textContent()).toBe("TypeScript");
    expect(await figure.locator(".q-code-title").textContent()).toBe("start.ts");
    const copy = figure.getByRole("button", { name: "Copy" });
    expect(await copy.isVisible()).toBe(true);
    await copy.click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(SOURCE);
    await page.waitForFunction(() => document.querySelector("figure.q-code .q-copy")?.textContent === "Copied");

    // The menu opens from its button; every entry is a link or a button.
    const menu = page.locator("details.q-actions");
    await menu.locator("> summary").click();
    expect(await menu.getAttribute("open")).not.toBeNull();
    const items = menu.locator("ul > li");
    expect(await items.allTextContents()).toEqual([
      "Copy page as Markdown",
      "View as Markdown",
      "Open in ChatGPT",
      "Open in Claude",
      "Download as PDF",
      expect.stringContaining("Connect to MCP"),
    ]);
    const chatgpt = new URL((await menu.getByRole("link", { name: "Open in ChatGPT" }).getAttribute("href")) as string);
    expect(chatgpt.origin + chatgpt.pathname).toBe("https://chatgpt.com/");
    expect(chatgpt.searchParams.get("q")).toBe(`Read ${root}/quickstart.md so I can ask questions about it.`);
    await menu.getByText("Connect to MCP").click();
    expect(await menu.getByRole("textbox", { name: "MCP server address" }).inputValue()).toBe(`${root}/~quire/mcp`);
    expect(await axeViolations(page)).toEqual([]);
    await e2e.shot(page, "readers-01-menu-light");

    // "Copy page as Markdown" puts the page's Markdown in the clipboard.
    await menu.getByRole("button", { name: "Copy page as Markdown" }).click();
    await page.waitForFunction(() => document.querySelector(".q-action-copy")?.textContent === "Copied");
    const markdown = await page.evaluate(() => navigator.clipboard.readText());
    expect(markdown).toMatch(/^# Quickstart\n\nFrom nothing to a running engine\n/);
    expect(markdown).toContain("```ts");

    // Escape closes the menu and gives the focus back to its button; the keyboard opens it again.
    await page.keyboard.press("Escape");
    expect(await menu.getAttribute("open")).toBeNull();
    expect(await page.evaluate(() => document.activeElement?.className)).toBe("q-actions-button");
    await page.keyboard.press("Enter");
    expect(await menu.getAttribute("open")).not.toBeNull();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.className)).toBe("q-action-copy");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.waitForURL(/quickstart\.md$/);
    expect(await page.locator("body").textContent()).toContain("# Quickstart");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("reads well in the dark and on a phone, the menu open", async () => {
    const dark = await open({ colorScheme: "dark" });
    // A customized site starts in its default theme (light): the reader switches.
    await dark.page.locator(".q-theme").click();
    expect(await dark.page.evaluate(() => document.documentElement.getAttribute("data-theme"))).toBe("dark");
    await dark.page.locator("details.q-actions > summary").click();
    await dark.page.locator("details.q-action-mcp > summary").click();
    expect(await axeViolations(dark.page)).toEqual([]);
    await e2e.shot(dark.page, "readers-02-menu-dark");
    expect(dark.problems).toEqual([]);
    await dark.context.close();

    const phone = await open(PHONE);
    await phone.page.locator("details.q-actions > summary").click();
    expect(await phone.page.getByRole("link", { name: "View as Markdown" }).isVisible()).toBe(true);
    const box = await phone.page.locator("details.q-actions > ul").boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    expect(await axeViolations(phone.page)).toEqual([]);
    await e2e.shot(phone.page, "readers-03-menu-phone");
    await phone.context.close();
  });

  it("works without JavaScript: the menu opens and its entries are links", async () => {
    const { context, page } = await open({ javaScriptEnabled: false });
    await page.locator("details.q-actions > summary").click();
    // Copying needs script: without it the entry is not offered.
    expect(await page.getByRole("button", { name: "Copy page as Markdown" }).count()).toBe(0);
    await page.getByRole("link", { name: "View as Markdown" }).click();
    await page.waitForURL(/quickstart\.md$/);
    expect(await page.locator("body").textContent()).toContain("# Quickstart");
    await context.close();
  });
});
