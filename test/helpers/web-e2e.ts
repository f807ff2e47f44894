/**
 * What the web app's Chromium tests share: a Quire listening on a free port (its `urls.*` on that
 * address), Chromium, sign-in with a one-time link, the problems a page runs into, and screenshots
 * kept when QUIRE_SCREENSHOTS_DIR=<dir> is set.
 */

import { mkdirSync } from "node:fs";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { createLoginLink } from "../../src/apps/web/web.queries.js";
import type { Config } from "../../src/config.js";
import { createTestContext, type TestContext, type TestUser } from "./app.js";
import { connectChromium } from "./browser.js";
import { addMemberToOrg, createOrganization, createUser } from "./factories.js";
import { freePort } from "./ports.js";
import { createSpace } from "./spaces.factories.js";

export interface WebE2E {
  ctx: TestContext;
  /** The server's address, e.g. http://127.0.0.1:41234 */
  base: string;
  browser: Browser;
  /** A new browser window (1280×900 unless `options` say otherwise) signed in as the user, on /app. */
  signIn(user: { id: string }, options?: BrowserContextOptions): Promise<{ context: BrowserContext; page: Page }>;
  /** A full-page screenshot named `name`, when QUIRE_SCREENSHOTS_DIR is set. */
  shot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/** `config`: settings over the test defaults (e.g. live collaboration off, for the editor's HTTP saves). */
export async function startWebE2E(config: Partial<Config> = {}): Promise<WebE2E> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const ctx = await createTestContext({ config: { ...config, publicUrl: base } });
  let browser: Browser | undefined;
  try {
    await ctx.app.listen({ port, host: "127.0.0.1" });
    browser = await connectChromium();
  } catch (error) {
    await ctx.close();
    throw error;
  }
  const screenshots = process.env.QUIRE_SCREENSHOTS_DIR;
  if (screenshots) mkdirSync(screenshots, { recursive: true });
  const connected = browser;
  return {
    ctx,
    base,
    browser: connected,
    async signIn(user, options = {}) {
      const context = await connected.newContext({ viewport: { width: 1280, height: 900 }, ...options });
      const page = await context.newPage();
      const { token } = await createLoginLink(ctx.db, user.id);
      await page.goto(`${base}/app/login/link/${token}`);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${base}/app`);
      return { context, page };
    },
    async shot(page, name) {
      if (screenshots) await page.screenshot({ path: `${screenshots}/${name}.png`, fullPage: true });
    },
    async close() {
      await connected.close();
      await ctx.close();
    },
  };
}

/**
 * Collects what goes wrong on a page from now on: script errors, console errors, and responses of
 * 400 or more (the browser's own /favicon.ico aside). A test that expects a 4xx answer clears it.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    // A missing resource is reported with its address by the response handler.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) problems.push(message.text());
  });
  page.on("response", (response) => {
    if (response.status() >= 400 && new URL(response.url()).pathname !== "/favicon.ico")
      problems.push(`${response.status()} ${response.url()}`);
  });
  return problems;
}

/**
 * The editor tests' organization: Olive Owner's "Lighthouse Docs", Wren Writer a member who may
 * edit, and its space "Handbook".
 */
export async function lighthouseDocs(ctx: TestContext): Promise<{ owner: TestUser; writer: TestUser; orgId: string; spaceId: string }> {
  const owner = await createUser(ctx, { displayName: "Olive Owner" });
  const orgId = (await createOrganization(ctx, owner, "Lighthouse Docs")).id;
  const writer = await createUser(ctx, { displayName: "Wren Writer" });
  await addMemberToOrg(ctx, orgId, writer, "edit");
  const spaceId = (await createSpace(ctx, owner, orgId, { title: "Handbook" })).id;
  return { owner, writer, orgId, spaceId };
}
