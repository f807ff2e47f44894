/**
 * A published site read in a real browser (Debian's chromium, driven by playwright-core): a site
 * over repositories imported through Git (the gitbook-docs fixture and a generated 60-page one),
 * opened at its root; follow the sidebar (through a collapsed branch, by its toggle and, without
 * JavaScript, by its link), switch section and variant, search and open a result,
 * see a merge show on the next load; on a phone-sized screen the sidebar opens from the menu.
 * Screenshots go to QUIRE_SCREENSHOTS (a directory) when it is set.
 */
import fs from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../helpers/app.js";
import { connectChromium } from "../helpers/browser.js";
import { commitContent } from "../helpers/content.factories.js";
import { generateRepo } from "../helpers/generate-repo.js";
import { type BareRepo, createBareRepo, loadFixture } from "../helpers/git.js";
import { addSection, createSite } from "../helpers/sites.factories.js";
import { createOrgWithSpace, createSpace } from "../helpers/spaces.factories.js";

const SCREENSHOTS = process.env.QUIRE_SCREENSHOTS;

let ctx: TestContext;
let browser: Browser;
let base: string;
let root: string;
let v1SpaceId: string;
const repos: BareRepo[] = [];

async function importInto(spaceId: string, token: string, files: Parameters<typeof createBareRepo>[0]) {
  const repo = createBareRepo(files);
  repos.push(repo);
  const res = await ctx.as(token).post(`/v1/spaces/${spaceId}/git/import`, { url: repo.url, ref: "refs/heads/main" });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  await ctx.worker.drain();
}

beforeAll(async () => {
  if (SCREENSHOTS) fs.mkdirSync(SCREENSHOTS, { recursive: true });
  ctx = await createTestContext({ config: { gitAllowFileUrls: true } });
  const { org, owner, space } = await createOrgWithSpace(ctx, { title: "Handbook" });
  const v1 = await createSpace(ctx, owner, org.id, { title: "Handbook 1.x" });
  const reference = await createSpace(ctx, owner, org.id, { title: "Reference" });
  v1SpaceId = v1.id;
  await importInto(space.id, owner.token, loadFixture("gitbook-docs"));
  await commitContent(ctx, v1.id, {
    pages: [{ title: "Legacy overview", slug: "legacy", paragraphs: ["This is the old handbook, kept for version 1 users."] }],
  });
  await importInto(reference.id, owner.token, generateRepo({ pages: 60, images: 3 }));
  await ctx.worker.drain();

  const site = await createSite(ctx, owner, org.id, { title: "Analytical Engines Docs" });
  const url = `/v1/orgs/${org.id}/sites/${site.id}`;
  const guide = await addSection(ctx, owner, org.id, site.id, { spaceId: space.id, title: "Handbook" });
  const added = await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: v1.id, sectionId: guide.id });
  await ctx.as(owner).patch(`${url}/site-spaces/${added.body.id}`, { path: "v1" });
  await addSection(ctx, owner, org.id, site.id, { spaceId: reference.id, title: "Reference" });
  expect((await ctx.as(owner).post(`${url}/publish`)).status).toBe(200);

  base = await ctx.listen();
  root = `${base}/s/${site.basename}`;
  browser = await connectChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  for (const repo of repos) repo.cleanup();
  await ctx?.close();
});

async function shot(page: import("playwright-core").Page, name: string) {
  if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: false });
}

describe("a published site in Chromium", () => {
  it("opens, follows the sidebar, switches section and variant, searches and opens a result", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    try {
      const first = await page.goto(`${root}/`);
      expect(first?.status()).toBe(200);
      await shot(page, "01-home");
      await expect(page.locator("h1.q-page-title").textContent()).resolves.toBeTruthy();
      expect(await page.locator(".q-site-tabs a").allTextContents()).toEqual(["Handbook", "Reference"]);

      // Follow the sidebar to a nested page, through a collapsed branch opened by its toggle.
      const sidebarLinks = page.locator(".q-sidebar a:not(.q-nav-ext)");
      expect(await sidebarLinks.count()).toBeGreaterThan(5);
      expect(await page.locator(".q-sidebar a", { hasText: "Linux" }).count()).toBe(0);
      const toggle = page.getByRole("button", { name: "Pages under Installation" });
      expect(await toggle.getAttribute("aria-expanded")).toBe("false");
      const fragment = page.waitForResponse((r) => r.url().includes("/~quire/nav/"));
      await toggle.click();
      expect((await fragment).status()).toBe(200);
      // The script marks the branch open once the fragment is in the page, a moment after the response.
      await expect.poll(() => toggle.getAttribute("aria-expanded")).toBe("true");
      const controlled = await toggle.getAttribute("aria-controls");
      expect(await page.locator(`#${controlled} a`).allTextContents()).toEqual(["Linux", "Mac"]);
      await shot(page, "02a-branch-opened");
      // The keyboard closes and opens it again (from the fetched list, without another request).
      await toggle.focus();
      await page.keyboard.press("Enter");
      expect(await toggle.getAttribute("aria-expanded")).toBe("false");
      expect(await page.locator(".q-sidebar a", { hasText: "Linux" }).isVisible()).toBe(false);
      await page.keyboard.press("Space");
      expect(await toggle.getAttribute("aria-expanded")).toBe("true");
      await page.locator(".q-sidebar a", { hasText: "Linux" }).click();
      await page.waitForURL(/installation\/linux$/);
      await expect(page.locator("h1.q-page-title").textContent()).resolves.toBe("Linux");
      expect(await page.locator('.q-sidebar a[aria-current="page"]').textContent()).toBe("Linux");
      // The new page has the way to it expanded, the other branches collapsed.
      expect(await page.getByRole("button", { name: "Pages under Installation" }).getAttribute("aria-expanded")).toBe("true");
      expect(await page.getByRole("button", { name: "Pages under Guides" }).getAttribute("aria-expanded")).toBe("false");
      await shot(page, "02-nested-page");

      // A page with a file download, an image and reusable content (an include) from the imported
      // repository, reached through a collapsed branch by following its link.
      expect(await page.locator(".q-sidebar a", { hasText: "Writing" }).count()).toBe(0);
      await page.locator(".q-sidebar").getByRole("link", { name: "Guides", exact: true }).click();
      await page.waitForURL(/\/guides$/);
      await page.locator(".q-sidebar a", { hasText: "Writing" }).click();
      await expect(page.locator("h1.q-page-title").textContent()).resolves.toMatch(/Writing/);
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/02b-rich-page.png`, fullPage: true });
      const download = await page.locator(".q-body a.q-file").getAttribute("href");
      expect(download).toMatch(/^\/files\/[0-9a-f]+\/manual\.pdf\?/);
      const pdf = await page.request.get(`${base}${download}`);
      expect(pdf.status()).toBe(200);
      await expect(page.locator(".q-body .q-hint").textContent()).resolves.toContain("Enterprise");
      expect(await page.locator(".q-body img").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
      await page.goBack();

      // Previous/next.
      await page.locator(".q-pagination a[rel=next]").click();
      await expect(page.locator('.q-sidebar a[aria-current="page"]').count()).resolves.toBe(1);

      // Switch section.
      await page.locator(".q-site-tabs a", { hasText: "Reference" }).click();
      await page.waitForURL(/\/reference$/);
      expect(await page.locator('.q-site-tabs a[aria-current="page"]').textContent()).toBe("Reference");
      await shot(page, "03-section");

      // Switch variant (back in the Handbook section).
      await page.locator(".q-site-tabs a", { hasText: "Handbook" }).click();
      await page.locator("details[data-picker=variant] > summary").click();
      await page.locator("details[data-picker=variant] a", { hasText: "Handbook 1.x" }).click();
      await page.waitForURL(/\/v1$/);
      await expect(page.locator(".q-body").textContent()).resolves.toContain("old handbook");
      await shot(page, "04-variant");

      // Search and open a result.
      await page.locator(".q-search input").fill("quickstart");
      await page.locator(".q-search input").press("Enter");
      await page.waitForURL(/~quire\/search\?q=quickstart/);
      await shot(page, "05-search");
      const result = page.locator(".q-results li a").first();
      expect(await page.locator(".q-results li").count()).toBeGreaterThan(0);
      await result.click();
      await expect(page.locator("h1.q-page-title").textContent()).resolves.toMatch(/quick/i);

      // A merge shows on the next load.
      await commitContent(ctx, v1SpaceId, {
        pages: [{ title: "Legacy overview", slug: "legacy", paragraphs: ["Merged just now: version 1 is retired."] }],
      });
      await page.goto(`${root}/v1`);
      await expect(page.locator(".q-body").textContent()).resolves.toContain("Merged just now");

      // Dark theme by the toggle.
      await page.goto(`${root}/`);
      await page.locator(".q-sidebar a", { hasText: "Quickstart" }).click();
      await expect(page.locator("h1.q-page-title").textContent()).resolves.toBe("Quickstart");
      await page.locator(".q-theme").click();
      expect(await page.evaluate(() => document.documentElement.getAttribute("data-theme"))).toBe("dark");
      await shot(page, "06-dark");
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("is readable on a phone: the sidebar opens from the menu", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 800 }, isMobile: true });
    const page = await context.newPage();
    try {
      await page.goto(`${root}/`);
      expect(await page.locator(".q-sidebar").isVisible()).toBe(false);
      await shot(page, "07-phone");
      await page.locator("label.q-nav-button").click();
      expect(await page.locator(".q-sidebar").isVisible()).toBe(true);
      await shot(page, "08-phone-menu");
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(1);
    } finally {
      await context.close();
    }
  });

  it('wraps a title without spaces in the sidebar rather than letting it run out (HackTricks\' "Smali - Decompiling/[Modifying]/Compiling")', async () => {
    await commitContent(ctx, v1SpaceId, {
      pages: [
        { title: "Legacy overview", slug: "legacy", paragraphs: ["Merged just now: version 1 is retired."] },
        { title: "Smali - Decompiling/[Modifying]/Compiling/Recompiling/Signing", slug: "smali", paragraphs: ["Smali."] },
      ],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    try {
      await page.goto(`${root}/v1/smali`);
      const link = page.locator(".q-sidebar a", { hasText: "Smali" });
      expect(await link.count()).toBe(1);
      const fit = await link.evaluate((a) => ({ scroll: a.scrollWidth, client: a.clientWidth }));
      expect(fit.scroll).toBeLessThanOrEqual(fit.client);
      await shot(page, "09-long-title");
    } finally {
      await context.close();
    }
  });

  it("works without JavaScript: navigation, pickers and search are links and forms", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await page.goto(`${root}/`);
      // A collapsed branch has no toggle without JavaScript; its link opens it.
      expect(await page.locator(".q-nav-expand").count()).toBe(0);
      expect(await page.locator(".q-sidebar a", { hasText: "Linux" }).count()).toBe(0);
      await page.locator(".q-sidebar a", { hasText: "Installation" }).click();
      await page.waitForURL(/\/installation$/);
      await page.locator(".q-sidebar a", { hasText: "Linux" }).click();
      await page.waitForURL(/installation\/linux$/);
      expect(await page.locator('.q-sidebar a[aria-current="page"]').textContent()).toBe("Linux");
      await page.locator(".q-site-tabs a", { hasText: "Reference" }).click();
      await page.waitForURL(/\/reference$/);
      await page.locator(".q-search input").fill("quickstart");
      await page.locator(".q-search input").press("Enter");
      await page.waitForURL(/~quire\/search/);
      expect(await page.locator(".q-results li").count()).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
  });
});
