/**
 * The rendered HTML in a real browser (Chromium via playwright-core): every block type with
 * content.css and content.js, light and dark, with and without script. Screenshots go to
 * QUIRE_SCREENSHOTS_DIR when it is set.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectChromium } from "../../../test/helpers/browser.js";
import { everyBlockDocument, everyBlockReusable, SVG_FILES, testEnv } from "../../../test/helpers/render-documents.js";
import { contentAssets, html, raw, renderDocument } from "./index.js";

const SCREENSHOTS = process.env.QUIRE_SCREENSHOTS_DIR;

let server: Server;
let base: string;
let browser: Browser;
const pageErrors: string[] = [];

function pageHtml(origin: string): string {
  const rendered = renderDocument(
    everyBlockDocument(),
    testEnv({ reusable: everyBlockReusable(), fileOrigin: origin }, { version: "2.4" }),
  );
  const math = rendered.features.has("math") ? raw(`<link rel="stylesheet" href="/assets/katex/katex.min.css">`) : raw("");
  const mermaid = rendered.features.has("mermaid") ? raw(`<script defer src="/assets/mermaid.min.js"></script>`) : raw("");
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Every block</title><link rel="stylesheet" href="/assets/content.css">${math}${mermaid}<script defer src="/assets/content.js"></script>
<style>body { margin: 0; background: var(--q-bg); font: 16px/1.5 system-ui, sans-serif; } main { max-width: 46rem; margin: 0 auto; padding: 1.5rem 1rem; }</style>
</head><body><main class="q-content">${raw(rendered.html)}</main></body></html>`.value;
}

beforeAll(async () => {
  const assets = new Map(contentAssets().map((asset) => [`/assets/${asset.name}`, asset]));
  server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const asset = assets.get(path);
    if (path === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(pageHtml(base));
    } else if (asset) {
      response.writeHead(200, { "content-type": asset.contentType }).end(readFileSync(asset.path));
    } else if (SVG_FILES[path]) {
      response.writeHead(200, { "content-type": "image/svg+xml" }).end(SVG_FILES[path]);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await connectChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

async function open(options: { colorScheme: "light" | "dark"; javaScriptEnabled?: boolean; width?: number }) {
  const context = await browser.newContext({
    colorScheme: options.colorScheme,
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    viewport: { width: options.width ?? 900, height: 900 },
  });
  // The YouTube iframe would reach the network: the test stays offline.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await page.goto(`${base}/`);
  return { context, page };
}

async function shot(page: import("playwright-core").Page, name: string) {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  // The full page is too tall to look at in one image: also in viewport-sized parts.
  const { width, height } = await page.evaluate(() => ({
    width: document.documentElement.clientWidth,
    height: document.documentElement.scrollHeight,
  }));
  for (let y = 0, part = 1; y < height; y += 1000, part++) {
    await page.screenshot({
      path: join(SCREENSHOTS, `${name}-${part}.png`),
      fullPage: true,
      clip: { x: 0, y, width, height: Math.min(1000, height - y) },
    });
  }
}

describe("rendered document in Chromium", () => {
  for (const colorScheme of ["light", "dark"] as const) {
    it(`renders every block type (${colorScheme})`, async () => {
      const { context, page } = await open({ colorScheme });
      // mermaid replaces the source with an SVG; KaTeX's fonts and CSS lay the formula out.
      await page.waitForSelector("pre.q-mermaid svg", { timeout: 20_000 });
      expect(await page.locator(".q-math .katex-display").count()).toBe(1);
      expect(await page.locator(".q-copy:visible").count()).toBeGreaterThan(0);
      // Body text follows the theme through the CSS variables.
      const color = await page.evaluate(() => getComputedStyle(document.querySelector(".q-content")!).color);
      expect(color).toBe(colorScheme === "dark" ? "rgb(230, 237, 243)" : "rgb(31, 35, 40)");
      // The image with a dark variant shows the variant for the scheme.
      const src = await page.evaluate(() => (document.querySelector(".q-image img") as HTMLImageElement).currentSrc);
      expect(src).toMatch(colorScheme === "dark" ? /dark\.svg$/ : /light\.svg$/);
      await shot(page, `every-block-${colorScheme}`);
      await context.close();
      expect(pageErrors).toEqual([]);
    });
  }

  it("follows <html data-theme> over the system setting, images included", async () => {
    const { context, page } = await open({ colorScheme: "light" });
    await page.evaluate(() => document.documentElement.setAttribute("data-theme", "dark"));
    await page.waitForFunction(() => /dark\.svg$/.test((document.querySelector(".q-image img") as HTMLImageElement).currentSrc));
    const color = await page.evaluate(() => getComputedStyle(document.querySelector(".q-content")!).color);
    expect(color).toBe("rgb(230, 237, 243)");
    await context.close();
  });

  it("switches tabs and opens expandables without script", async () => {
    const noScript = await open({ colorScheme: "light", javaScriptEnabled: false });
    const panels = noScript.page.locator(".q-tab-panel");
    expect(await panels.nth(0).isVisible()).toBe(true);
    expect(await panels.nth(1).isVisible()).toBe(false);
    await noScript.page.locator(".q-tabs").first().locator(".q-tab-label", { hasText: "Python" }).click();
    expect(await panels.nth(0).isVisible()).toBe(false);
    expect(await panels.nth(1).isVisible()).toBe(true);
    // The expandable opens as a <details>, script or not.
    await noScript.page.locator(".q-expandable > summary").click();
    expect(await noScript.page.locator(".q-expandable-body").isVisible()).toBe(true);
    await noScript.context.close();
  });

  it("with script: copies code, syncs tabs, reveals linked headings in tabs, collapses code, pops notes up", async () => {
    const { context, page } = await open({ colorScheme: "light" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    // Copy gives the exact source.
    const first = page.locator("figure.q-code").first();
    await first.hover();
    await first.locator(".q-copy").click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      'const greeting: string = "hello"; // say it\n/* a comment\n   over lines */\nexport function hi() {\n  return greeting;\n}',
    );
    // Choosing Python in one group chooses it in the other.
    await page.locator(".q-tabs").first().locator(".q-tab-label", { hasText: "Python" }).click();
    expect(await page.locator(".q-tab-panel", { hasText: "Second group, Python." }).isVisible()).toBe(true);
    // Collapsible code starts collapsed and opens.
    const collapsible = page.locator("figure.q-code-collapsible");
    expect(await collapsible.getAttribute("class")).toContain("q-code-collapsed");
    await collapsible.locator(".q-code-toggle").click();
    expect(await collapsible.getAttribute("class")).not.toContain("q-code-collapsed");
    // An annotation opens its note as a popover.
    await page.locator("a.q-annotated").click();
    expect(await page.locator(".q-popover").textContent()).toContain("The note explains the words.");
    await page.keyboard.press("Escape");
    expect(await page.locator(".q-popover").count()).toBe(0);
    await context.close();

    // A link to a heading inside a hidden tab opens that tab.
    const fresh = await open({ colorScheme: "light" });
    await fresh.page.goto(`${base}/#in-the-python-tab`);
    await fresh.page.waitForFunction(() => document.getElementById("in-the-python-tab")?.checkVisibility());
    await fresh.context.close();
    expect(pageErrors).toEqual([]);
  });

  it("stays readable on a phone: wide tables and code scroll inside themselves, not the page", async () => {
    const { context, page } = await open({ colorScheme: "light", width: 360 });
    await page.waitForSelector("pre.q-mermaid svg", { timeout: 20_000 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const table = await page.evaluate(() => {
      const wrap = document.querySelector(".q-table-wrap")!;
      return { scroll: wrap.scrollWidth, client: wrap.clientWidth };
    });
    expect(table.scroll).toBeGreaterThan(table.client);
    await shot(page, "every-block-phone");
    await context.close();
  });
});
