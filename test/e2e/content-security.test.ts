/**
 * The content security policies and the cookies' scopes in Chromium, on one host as in production
 * (the web app and the sites under /s/): a published page with every block kind (math, mermaid,
 * code, tabs, embeds, images from files and from elsewhere) and a customization (a font of its
 * own, logos, an emoji favicon, an announcement), its sidebar's branches, theme toggle, search page
 * and 404 pages, and the web app's pages of the same content report no violation, while a script
 * put into a page is refused. The session cookie never reaches a site: a member signed in to the
 * web app reads an unpublished site by the pass signing in gave.
 * QUIRE_SCREENSHOTS_DIR=<dir> keeps a screenshot of each page.
 */
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveDocument } from "../../src/content/revision/storage.js";
import { DEFAULT_CUSTOMIZATION } from "../../src/modules/sites/customization.model.js";
import type { TestContext, TestUser } from "../helpers/app.js";
import { commitContent, testFile } from "../helpers/content.factories.js";
import { createOrganization, createUser } from "../helpers/factories.js";
import { block, doc, everyBlockDocument, everyBlockReusable, p, SVG_FILES, urlRef } from "../helpers/render-documents.js";
import { addSection, createSite } from "../helpers/sites.factories.js";
import { createSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E } from "../helpers/web-e2e.js";

let e2e: WebE2E;
let ctx: TestContext;
let base: string;
let owner: TestUser;
let orgId: string;
let spaceId: string;
let pageId: string;
let root: string;
let unpublishedRoot: string;

beforeAll(async () => {
  e2e = await startWebE2E();
  ({ ctx, base } = e2e);
  owner = await createUser(ctx, { displayName: "Owner" });
  orgId = (await createOrganization(ctx, owner, "Lighthouse Docs")).id;
  spaceId = (await createSpace(ctx, owner, orgId, { title: "Handbook" })).id;

  const svg = (name: string) => Buffer.from(SVG_FILES[`/files/${name}`] as string);
  const files = [
    await testFile(ctx, "light.svg", svg("light.svg"), "image/svg+xml", { id: "light" }),
    await testFile(ctx, "dark.svg", svg("dark.svg"), "image/svg+xml", { id: "dark" }),
    await testFile(ctx, "Quarterly report.pdf", Buffer.from("%PDF-1.4\n"), "application/pdf", { id: "report" }),
  ];
  const everyBlock = everyBlockDocument();
  // An image from another host, as content may show (the test stays offline: the request is aborted).
  everyBlock.nodes.push(
    block("images", {}, [
      block("image", { ref: urlRef("https://images.example.com/harbour.png"), alt: "A harbour" }, undefined, { isVoid: true }),
    ]),
  );
  pageId = "EveryBlockPage000001";
  const { content } = await commitContent(ctx, spaceId, {
    pages: [
      { id: pageId, title: "Every block", slug: "every-block", extra: { documentHash: await saveDocument(ctx.db, everyBlock) } },
      {
        title: "Guides",
        slug: "guides",
        paragraphs: ["Guides for every system."],
        children: [{ title: "Linux", slug: "linux", paragraphs: ["Search finds this lighthouse."] }],
      },
    ],
    files,
    variables: { version: "2.4" },
    reusableContents: [
      { id: "rc1", title: "Shared hint", documentHash: await saveDocument(ctx.db, everyBlockReusable().rc1 ?? doc(p(""))) },
    ],
  });
  expect(content.pages[0]?.id).toBe(pageId);
  await ctx.worker.drain();

  const site = await createSite(ctx, owner, orgId, { title: "Lighthouse Handbook" });
  const url = `/v1/orgs/${orgId}/sites/${site.id}`;
  await addSection(ctx, owner, orgId, site.id, { spaceId, title: "Handbook" });
  const customized = await ctx.as(owner).put(`${url}/customization`, {
    styling: {
      ...DEFAULT_CUSTOMIZATION.styling,
      theme: "gradient",
      primaryColor: { light: "#C2185B", dark: "#F48FB1" },
      font: {
        id: "brand",
        custom: true,
        fontFamily: "Brand",
        fontFaces: [{ weight: 400, sources: [{ url: "https://fonts.example.com/brand.woff2", format: "woff2" }] }],
      },
    },
    header: {
      preset: "default",
      logo: { light: "https://cdn.example.com/logo.svg", dark: "https://cdn.example.com/logo-dark.svg" },
      links: [{ title: "Company", to: { kind: "url", url: "https://example.com/" }, links: [] }],
    },
    announcement: { enabled: true, message: "Version 2 is out", style: "info" },
    favicon: { emoji: "🗼" },
  });
  expect(customized.status, JSON.stringify(customized.body)).toBe(200);
  expect((await ctx.as(owner).post(`${url}/publish`)).status).toBe(200);
  root = `${base}/s/${site.basename}`;

  const draft = await createSite(ctx, owner, orgId, { title: "Draft", spaces: [spaceId] });
  unpublishedRoot = `${base}/s/${draft.basename}`;
}, 120_000);

afterAll(async () => {
  await e2e?.close();
});

/** Violations a page reports, by its `securitypolicyviolation` events and by the console. */
async function watchViolations(context: BrowserContext): Promise<(page: Page) => Promise<string[]>> {
  // Nothing leaves the machine: requests to other hosts (embeds, remote images, fonts) are aborted,
  // after the policy allowed them (a refused one is a violation, an aborted one is not).
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener("securitypolicyviolation", (event) => seen.push(`${event.effectiveDirective} ${event.blockedURI}`));
  });
  const console = new Map<Page, string[]>();
  context.on("page", (page) => {
    const messages: string[] = [];
    console.set(page, messages);
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) messages.push(message.text());
    });
    // Each document has its own list, as `__violations` is.
    page.on("framenavigated", (frame) => {
      if (frame === page.mainFrame()) messages.length = 0;
    });
  });
  return async (page) => [
    ...(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)),
    ...(console.get(page) ?? []),
  ];
}

describe("content security in Chromium", () => {
  it("a published page with every block kind, its branches, search and 404 pages report no violation; a script put in is refused", async () => {
    const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const violationsOf = await watchViolations(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    try {
      const response = await page.goto(`${root}/`);
      expect(response?.status()).toBe(200);
      const policy = (await response?.allHeaders())?.["content-security-policy"] ?? "";
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors 'self'");
      await expect(page.locator("h1.q-page-title").textContent()).resolves.toBe("Every block");

      // Everything the page has ran and loaded: mermaid drew its diagram, KaTeX's fonts loaded,
      // the file images decoded, the player and the remote image were asked for.
      await page.locator("pre.q-mermaid svg").first().waitFor({ timeout: 30_000 });
      expect(await page.locator(".katex").count()).toBeGreaterThan(0);
      await page.evaluate(() => document.fonts.ready);
      expect(await page.evaluate(() => document.fonts.check("16px KaTeX_Main"))).toBe(true);
      const fileImages = page.locator('img[src*="/files/"]');
      expect(await fileImages.count()).toBeGreaterThan(0);
      await page.waitForFunction(() =>
        Array.from(document.querySelectorAll('img[src*="/files/"]')).some((i) => (i as HTMLImageElement).naturalWidth > 0),
      );
      expect(await page.locator('iframe[src^="https://www.youtube-nocookie.com/embed/"]').count()).toBe(1);
      expect(await page.locator('img[src="https://images.example.com/harbour.png"]').count()).toBe(1);
      await page.locator(".q-tabs").first().locator("label.q-tab-label", { hasText: "Python" }).click();

      // The sidebar's branch, fetched by its toggle; the theme toggle.
      const fragment = page.waitForResponse((r) => r.url().includes("/~quire/nav/"));
      await page.getByRole("button", { name: "Pages under Guides" }).click();
      expect((await fragment).status()).toBe(200);
      await page.locator(".q-sidebar a", { hasText: "Linux" }).waitFor();
      await page.locator("button.q-theme").click();
      await e2e.shot(page, "csp-01-site-page");
      expect(await violationsOf(page)).toEqual([]);

      // A script that made its way into the page does not run, and says why.
      await page.evaluate(() => {
        const script = document.createElement("script");
        script.textContent = "window.__injected = true";
        document.head.append(script);
      });
      expect(await page.evaluate(() => (window as unknown as { __injected?: boolean }).__injected)).toBeUndefined();
      expect((await violationsOf(page)).some((v) => v.startsWith("script-src"))).toBe(true);

      await page.goto(`${root}/~quire/search?q=lighthouse`);
      await page.locator(".q-results a", { hasText: "Linux" }).first().waitFor();
      await e2e.shot(page, "csp-02-search");
      expect(await violationsOf(page)).toEqual([]);

      expect((await page.goto(`${root}/no-such-page`))?.status()).toBe(404);
      expect(await violationsOf(page)).toEqual([]);
      expect((await page.goto(`${base}/s/no-such-site/`))?.status()).toBe(404);
      expect(await violationsOf(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("the web app's pages of the same content report no violation", async () => {
    const { context, page } = await e2e.signIn(owner);
    const violationsOf = await watchViolations(context);
    try {
      for (const path of ["/app", `/app/o/${orgId}`, `/app/o/${orgId}/s/${spaceId}/p/${pageId}`]) {
        const response = await page.goto(`${base}${path}`);
        expect(response?.status(), path).toBe(200);
        expect((await response?.allHeaders())?.["content-security-policy"]).toContain("frame-ancestors 'none'");
        if (path.endsWith(pageId)) {
          await page.locator("pre.q-mermaid svg").first().waitFor({ timeout: 30_000 });
          await page.evaluate(() => document.fonts.ready);
          expect(await page.evaluate(() => document.fonts.check("16px KaTeX_Main"))).toBe(true);
          await e2e.shot(page, "csp-03-app-page");
        }
        expect(await violationsOf(page), path).toEqual([]);
      }
    } finally {
      await context.close();
    }
  });

  it("a signed-in member's browser sends the session to the web app only, and a pass to sites, by which it reads an unpublished site", async () => {
    const { context, page } = await e2e.signIn(owner);
    try {
      const cookies = await context.cookies();
      expect(cookies.map((c) => `${c.name} ${c.path}`).sort()).toEqual(["quire_app_session /app", "quire_site_member /s"]);
      for (const cookie of cookies) expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax" });

      const read = await page.goto(`${unpublishedRoot}/`);
      expect(read?.status()).toBe(200);
      const sent = (await read?.request().allHeaders())?.cookie ?? "";
      expect(sent).toMatch(/(^|; )quire_site_member=/);
      expect(sent).not.toContain("quire_app_session");
      const home = await page.goto(`${base}/app`);
      expect((await home?.request().allHeaders())?.cookie ?? "").not.toContain("quire_site_member");

      // Signed out, the pass is gone and the draft is not found.
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL(`${base}/app/login`);
      expect((await context.cookies()).map((c) => c.name)).toEqual([]);
      expect((await page.goto(`${unpublishedRoot}/`))?.status()).toBe(404);
    } finally {
      await context.close();
    }
    const stranger = await e2e.browser.newContext();
    try {
      expect((await (await stranger.newPage()).goto(`${unpublishedRoot}/`))?.status()).toBe(404);
    } finally {
      await stranger.close();
    }
  });
});
