/**
 * A customized published site in a real browser (Debian's chromium, driven by playwright-core): the
 * customization is set through the API, then the page shows it: the primary color on links, the
 * header logo (light and dark, served by a small loopback server), the announcement (dismissed and
 * remembered), the dark theme by default and the toggle switching it (remembered across loads),
 * the footer's copyright and the previous/next links. Screenshots go to QUIRE_SCREENSHOTS (a
 * directory) when it is set.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLoginLink } from "../../src/apps/web/web.queries.js";
import { DEFAULT_CUSTOMIZATION } from "../../src/modules/sites/customization.model.js";
import { createTestContext, type TestContext, type TestUser } from "../helpers/app.js";
import { connectChromium } from "../helpers/browser.js";
import { commitContent } from "../helpers/content.factories.js";
import { createSite } from "../helpers/sites.factories.js";
import { createOrgWithSpace } from "../helpers/spaces.factories.js";

const SCREENSHOTS = process.env.QUIRE_SCREENSHOTS;

const logo = (fill: string, text: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="32" viewBox="0 0 160 32"><rect width="32" height="32" rx="8" fill="${fill}"/><text x="42" y="23" font-family="sans-serif" font-size="20" font-weight="700" fill="${fill}">${text}</text></svg>`;

let ctx: TestContext;
let browser: Browser;
let images: http.Server;
let imagesBase: string;
let root: string;
let base: string;
let sitePage: string;
let editor: TestUser;
let apiUrl: string;
let owner: TestUser;

beforeAll(async () => {
  if (SCREENSHOTS) fs.mkdirSync(SCREENSHOTS, { recursive: true });
  images = http.createServer((request, response) => {
    const body = request.url === "/logo-dark.svg" ? logo("#F48FB1", "Acme dark") : logo("#C2185B", "Acme light");
    response.writeHead(200, { "content-type": "image/svg+xml" }).end(body);
  });
  await new Promise<void>((resolve) => images.listen(0, "127.0.0.1", resolve));
  imagesBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;

  ctx = await createTestContext();
  const { org, owner: siteOwner, space, members } = await createOrgWithSpace(ctx, { title: "Handbook" });
  editor = members.create;
  owner = siteOwner;
  await commitContent(ctx, space.id, {
    pages: [
      { title: "Welcome", slug: "welcome", paragraphs: ["Everything about the Analytical Engine.", "Read on."] },
      { title: "Installation", slug: "installation", paragraphs: ["Unpack the cards and load them."] },
      { title: "Operating", slug: "operating", paragraphs: ["Turn the crank."] },
    ],
  });
  const site = await createSite(ctx, siteOwner, org.id, { title: "Engine Docs", spaces: [space.id] });
  const url = `/v1/orgs/${org.id}/sites/${site.id}`;
  apiUrl = url;
  const put = await ctx.as(siteOwner).put(`${url}/customization`, {
    title: "Acme Engine Docs",
    styling: { ...DEFAULT_CUSTOMIZATION.styling, primaryColor: { light: "#C2185B", dark: "#F48FB1" } },
    header: {
      preset: "default",
      logo: { light: `${imagesBase}/logo.svg`, dark: `${imagesBase}/logo-dark.svg` },
      links: [{ title: "Get started", style: "button-primary", to: { kind: "url", url: "https://example.com/start" }, links: [] }],
    },
    footer: { groups: [], copyright: "© 2026 Acme Engines Ltd." },
    announcement: { enabled: true, message: "Version 2 of the Engine is out.", style: "info" },
    themes: { default: "dark", toggeable: true },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  expect((await ctx.as(siteOwner).post(`${url}/publish`)).status).toBe(200);
  base = (await ctx.listen()).replace(/\/$/, "");
  root = `${base}/s/${site.basename}`;
  sitePage = `${base}/app/o/${org.id}/sites/${site.id}`;
  browser = await connectChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await ctx?.close();
  await new Promise((resolve) => images?.close(resolve));
});

async function shot(page: Page, name: string) {
  if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: false });
}

const colorOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => getComputedStyle(el).color);
const visibleLogo = (page: Page) =>
  page
    .locator(".q-header img.q-logo")
    .evaluateAll((imgs) =>
      (imgs as HTMLImageElement[])
        .filter((img) => getComputedStyle(img).display !== "none")
        .map((img) => ({ src: img.getAttribute("src"), loaded: img.complete && img.naturalWidth > 0, alt: img.alt })),
    );

describe("a customized published site in Chromium", () => {
  it("shows the colors, logo, announcement, footer and pagination, dark by default, and the toggle switches the theme", async () => {
    // The reader's system asks for light: dark comes from the site's customization.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light" });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    try {
      expect((await page.goto(`${root}/`))?.status()).toBe(200);
      await expect(page.title()).resolves.toBe("Welcome | Acme Engine Docs");
      expect(await page.locator("html").getAttribute("data-theme")).toBe("dark");
      // Links take the primary color of the theme shown: the active sidebar item, the Next link's hover border aside.
      expect(await colorOf(page, '.q-sidebar a[aria-current="page"]')).toBe("rgb(244, 143, 177)");
      expect(await page.locator(".q-button-primary").evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(244, 143, 177)");
      expect(await visibleLogo(page)).toEqual([{ src: `${imagesBase}/logo-dark.svg`, loaded: true, alt: "Acme Engine Docs" }]);
      await expect(page.locator(".q-announcement").textContent()).resolves.toContain("Version 2 of the Engine is out.");
      await expect(page.locator(".q-footer .q-copyright").textContent()).resolves.toBe("© 2026 Acme Engines Ltd.");
      expect(await page.locator(".q-pagination a.q-next").textContent()).toBe("NextInstallation");
      expect(await page.locator(".q-pagination a.q-previous").count()).toBe(0);
      await shot(page, "custom-01-dark");

      // The toggle switches to light: colors and logo follow, and the choice is remembered.
      await page.locator("button.q-theme").click();
      expect(await page.locator("html").getAttribute("data-theme")).toBe("light");
      expect(await colorOf(page, '.q-sidebar a[aria-current="page"]')).toBe("rgb(194, 24, 91)");
      expect(await visibleLogo(page)).toEqual([{ src: `${imagesBase}/logo.svg`, loaded: true, alt: "Acme Engine Docs" }]);
      await shot(page, "custom-02-light");

      // Next page: previous and next links, still light after the load.
      await page.locator(".q-pagination a.q-next").click();
      await page.waitForURL(/\/installation$/);
      expect(await page.locator("html").getAttribute("data-theme")).toBe("light");
      expect(await page.locator(".q-pagination a.q-previous").textContent()).toBe("PreviousWelcome");
      expect(await page.locator(".q-pagination a.q-next").textContent()).toBe("NextOperating");
      expect(await colorOf(page, ".q-pagination a.q-next small")).not.toBe("rgb(194, 24, 91)");

      // The announcement is dismissed, and stays dismissed on the next page.
      await page.getByRole("button", { name: "Dismiss the announcement" }).click();
      expect(await page.locator(".q-announcement").isVisible()).toBe(false);
      await page.reload();
      expect(await page.locator(".q-announcement").isVisible()).toBe(false);
      await shot(page, "custom-03-light-dismissed");

      // Back to dark by the toggle.
      await page.locator("button.q-theme").click();
      expect(await colorOf(page, '.q-sidebar a[aria-current="page"]')).toBe("rgb(244, 143, 177)");
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("changes the common fields in the web app's site page, and readers see them", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, colorScheme: "light" });
    const page = await context.newPage();
    try {
      const { token } = await createLoginLink(ctx.db, editor.id);
      await page.goto(`${base}/app/login/link/${token}`);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${base}/app`);
      await page.goto(sitePage);
      const form = page.locator("#customization form");
      expect(await form.locator('input[name="title"]').inputValue()).toBe("Acme Engine Docs");
      expect(await form.locator('input[name="primaryLight"]').inputValue()).toBe("#c2185b");
      expect(await form.locator('select[name="themeDefault"]').inputValue()).toBe("dark");
      await form.locator('input[name="title"]').fill("Green Engine Docs");
      await form.locator('input[name="primaryLight"]').fill("#2e7d32");
      await form.locator('select[name="themeDefault"]').selectOption("light");
      await form.locator('input[name="copyright"]').fill("© 2026 Green Engines");
      await form.locator('input[name="announcementEnabled"]').uncheck();
      await shot(page, "custom-04-web-form");
      await form.getByRole("button", { name: "Save customization" }).click();
      await page.waitForURL(/saved=customization/);
      await expect(page.locator("#customization .badge").textContent()).resolves.toContain("Saved");

      await page.goto(`${root}/`);
      await expect(page.title()).resolves.toBe("Welcome | Green Engine Docs");
      expect(await page.locator("html").getAttribute("data-theme")).toBe("light");
      expect(await colorOf(page, '.q-sidebar a[aria-current="page"]')).toBe("rgb(46, 125, 50)");
      expect(await page.locator(".q-announcement").count()).toBe(0);
      await expect(page.locator(".q-footer .q-copyright").textContent()).resolves.toBe("© 2026 Green Engines");
      await shot(page, "custom-05-after-form");
    } finally {
      await context.close();
    }
  });

  it("draws the styling choices: straight corners, a line beside the sidebar, a filled sidebar, accent links", async () => {
    const current = (await ctx.as(owner).get(`${apiUrl}/customization`)).body;
    const put = await ctx.as(owner).put(`${apiUrl}/customization`, {
      ...current,
      styling: {
        ...current.styling,
        corners: "straight",
        links: "accent",
        sidebar: { background: "filled", list: "line" },
        search: "prominent",
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light" });
    const page = await context.newPage();
    try {
      await page.goto(`${root}/`);
      const current = page.locator('.q-sidebar a[aria-current="page"]');
      const accent = await colorOf(page, '.q-sidebar a[aria-current="page"]');
      expect(await current.evaluate((el) => getComputedStyle(el).borderLeftColor)).toBe(accent);
      expect(await page.locator(".q-search input").evaluate((el) => getComputedStyle(el).borderTopLeftRadius)).toBe("0px");
      expect(await page.locator(".q-sidebar").evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe("rgba(0, 0, 0, 0)");
      await shot(page, "custom-06-styling");
    } finally {
      await context.close();
    }
  });

  it("fits a phone's screen with the logo, header links and announcement", async () => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      colorScheme: "dark",
    });
    const page = await context.newPage();
    try {
      await page.goto(`${root}/`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      expect(await page.locator(".q-header img.q-logo:visible").count()).toBe(1);
      await shot(page, "custom-07-phone");
    } finally {
      await context.close();
    }
  });

  it("draws each theme preset on the header and sidebar, and the header's own colors over them", async () => {
    const current = (await ctx.as(owner).get(`${apiUrl}/customization`)).body;
    const putStyling = async (theme: string, header: Record<string, unknown> = {}) => {
      const put = await ctx.as(owner).put(`${apiUrl}/customization`, {
        ...current,
        styling: {
          ...DEFAULT_CUSTOMIZATION.styling,
          theme,
          primaryColor: { light: "#5E35B1", dark: "#B39DDB" },
          tint: { color: { light: "#00897B", dark: "#4DB6AC" } },
        },
        header: { ...current.header, links: current.header.links, ...header },
        announcement: { ...current.announcement, enabled: false },
        themes: { default: "light", toggeable: true },
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    };
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light" });
    const page = await context.newPage();
    const headerStyle = () =>
      page.locator(".q-header").evaluate((el) => {
        const style = getComputedStyle(el);
        return { color: style.backgroundColor, image: style.backgroundImage, filter: style.backdropFilter };
      });
    const sidebarCurrent = () =>
      page.locator('.q-sidebar a[aria-current="page"]').evaluate((el) => {
        const style = getComputedStyle(el);
        return { color: style.color, background: style.backgroundColor, image: style.backgroundImage };
      });
    try {
      const seen: Record<string, string> = {};
      for (const theme of ["clean", "muted", "bold", "gradient"]) {
        await putStyling(theme);
        await page.goto(`${root}/`);
        expect(await page.locator("html").getAttribute("data-style-theme")).toBe(theme);
        const header = await headerStyle();
        const current = await sidebarCurrent();
        seen[theme] = JSON.stringify([header, current]);
        if (theme === "clean") {
          expect(header.filter).toContain("blur");
          // Translucent: the header's background lets what scrolls under it show.
          expect(header.color).toMatch(/^(rgba|color)\(/);
        }
        if (theme === "muted") expect(header.color).not.toBe("rgb(255, 255, 255)");
        if (theme === "bold") {
          expect(header.color).toBe("rgb(94, 53, 177)");
          // White text on the deep violet, a solid pill for the current page.
          expect(await colorOf(page, ".q-header .q-site-title")).toBe("rgb(255, 255, 255)");
          expect(current).toMatchObject({ background: "rgb(94, 53, 177)", color: "rgb(255, 255, 255)" });
        }
        if (theme === "gradient") {
          expect(header.image).toContain("linear-gradient");
          expect(await page.locator("body").evaluate((el) => getComputedStyle(el).backgroundImage)).toContain("radial-gradient");
        }
        await shot(page, `custom-08-theme-${theme}`);
        // The same preset in the dark theme: the header keeps reading.
        await page.locator("button.q-theme").click();
        expect(await page.locator("html").getAttribute("data-theme")).toBe("dark");
        expect(await headerStyle()).not.toEqual(header);
        await shot(page, `custom-08-theme-${theme}-dark`);
        await page.locator("button.q-theme").click();
      }
      expect(new Set(Object.values(seen)).size).toBe(4);

      // header.backgroundColor and linkColor win over the preset.
      await putStyling("bold", {
        backgroundColor: { light: "#FFF8E1", dark: "#3E2723" },
        linkColor: { light: "#BF360C", dark: "#FFCCBC" },
      });
      await page.goto(`${root}/`);
      expect((await headerStyle()).color).toBe("rgb(255, 248, 225)");
      expect(await colorOf(page, ".q-header .q-site-title")).toBe("rgb(191, 54, 12)");
      await shot(page, "custom-09-header-colors");
    } finally {
      await context.close();
    }
  });

  it("downloads the page as a PDF from its page action", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    const page = await context.newPage();
    try {
      await page.goto(`${root}/installation`);
      // The page's actions are in the menu by its title.
      await page.locator("details.q-actions > summary").click();
      const action = page.getByRole("link", { name: "Download as PDF" });
      expect(await action.isVisible()).toBe(true);
      await shot(page, "custom-10-page-actions");
      const [download] = await Promise.all([page.waitForEvent("download"), action.click()]);
      expect(download.suggestedFilename()).toBe("Installation.pdf");
      // The run's Chromium is reached over a connection: the download is streamed here.
      const chunks: Buffer[] = [];
      for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).subarray(0, 5).toString()).toBe("%PDF-");
    } finally {
      await context.close();
    }
  });

  it("asks whether a page helped, thanks the reader without JavaScript, and the site's editors see the count", async () => {
    const current = (await ctx.as(owner).get(`${apiUrl}/customization`)).body;
    expect((await ctx.as(owner).put(`${apiUrl}/customization`, { ...current, feedback: { enabled: true } })).status).toBe(200);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await page.goto(`${root}/operating`);
      const question = page.locator(".q-feedback");
      expect(await question.isVisible()).toBe(true);
      expect(await page.locator(".q-feedback-thanks").isVisible()).toBe(false);
      await question.scrollIntoViewIfNeeded();
      await shot(page, "custom-11-feedback");
      await page.getByRole("button", { name: "Yes" }).click();
      await page.waitForURL(/\/operating#q-feedback-thanks$/);
      expect(await page.locator(".q-feedback-thanks").isVisible()).toBe(true);
      expect(await question.isVisible()).toBe(false);
      await shot(page, "custom-12-feedback-thanks");
    } finally {
      await context.close();
    }
    const appContext = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const app = await appContext.newPage();
    try {
      const { token } = await createLoginLink(ctx.db, editor.id);
      await app.goto(`${base}/app/login/link/${token}`);
      await app.getByRole("button", { name: "Sign in" }).click();
      await app.waitForURL(`${base}/app`);
      await app.goto(`${sitePage}#feedback`);
      const row = app.locator("#feedback tbody tr");
      expect(await row.count()).toBe(1);
      expect((await row.textContent())?.replace(/\s+/g, " ")).toContain("Operating Handbook100100%");
      await app.locator("#feedback").scrollIntoViewIfNeeded();
      await shot(app, "custom-13-feedback-counts");
    } finally {
      await appContext.close();
    }
  });
});
