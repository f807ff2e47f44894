/**
 * The browsing half of the web app in Chromium: sign in with a one-time link, go from the
 * organization to a collection, a space, a page and its history, a revision, a site, an OpenAPI
 * spec and a topic by clicking links; request a Git import as an editor; look on a phone and in
 * dark mode. QUIRE_SCREENSHOTS_DIR=<dir> keeps a screenshot of each page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMarkdownPage } from "../../src/content/markdown/index.js";
import { saveDocument } from "../../src/content/revision/storage.js";
import type { TestContext } from "../helpers/app.js";
import { commitContent, paragraphDoc } from "../helpers/content.factories.js";
import { createOrgWithRoles } from "../helpers/factories.js";
import { createCollection, createSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E } from "../helpers/web-e2e.js";

let e2e: WebE2E;
let ctx: TestContext;
let base: string;
let seeded: Awaited<ReturnType<typeof seed>>;

const GUIDE = `Quire keeps your documentation next to your code.

## Before you start

You need:

* a Git repository with a \`SUMMARY.md\`
* an API token (create one under **API tokens**)

## Install

\`\`\`bash
npm install --save-exact @quire/cli
quire login
\`\`\`

1. Create a space.
2. Import the repository.
3. Review the change request.

> Changes are reviewed before they reach readers.
`;

async function seed() {
  const roles = await createOrgWithRoles(ctx);
  const { org, owner } = roles;
  const collection = await createCollection(ctx, owner, org.id, { title: "Handbooks", description: "How we work." });
  const space = await createSpace(ctx, owner, org.id, { title: "Engineering handbook", emoji: "1f4d8", parent: collection.id });
  await createSpace(ctx, owner, org.id, { title: "API reference" });
  const guideHash = await saveDocument(ctx.db, parseMarkdownPage(GUIDE).document);
  // Unchanged pages keep their document (same hash) and ids between the two revisions, as an edit through the app would.
  const doc = async (...texts: string[]) => ({ documentHash: await saveDocument(ctx.db, paragraphDoc(texts)) });
  const [practices, oncall, reviewsBefore, reviewsAfter] = await Promise.all([
    doc("How we review and ship."),
    doc("One week at a time."),
    doc("Every change has a reviewer."),
    doc("Every change has a reviewer.", "Small changes are reviewed within a day."),
  ]);
  const tree = (reviews: { documentHash: string }) => [
    { id: "gettingstarted", title: "Getting started", extra: { documentHash: guideHash, description: "Set up Quire in five minutes." } },
    {
      id: "practices",
      title: "Practices",
      extra: practices,
      children: [
        { id: "reviews", title: "Code reviews", extra: reviews },
        { id: "oncall", title: "On call", extra: oncall },
      ],
    },
    {
      id: "links",
      title: "Links",
      kind: "group" as const,
      children: [{ id: "status", title: "Status page", kind: "link" as const, href: "https://status.example.com" }],
    },
  ];
  const first = await commitContent(ctx, space.id, { pages: tree(reviewsBefore) });
  const second = await commitContent(ctx, space.id, { pages: tree(reviewsAfter) });
  const site = await ctx.as(owner).post(`/v1/orgs/${org.id}/sites`, { title: "Handbook site", spaces: [space.id] });
  expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.body.id}/publish`, {})).status).toBeLessThan(300);
  await ctx.as(owner).post(`/v1/orgs/${org.id}/openapi`, {
    slug: "public-api",
    source: { text: '{"openapi":"3.0.0","info":{"title":"Pets","version":"1"},"paths":{}}' },
  });
  const message = (body: string) => ({ type: "message", role: "user", body });
  const conversations = [1, 2, 3, 4].map((n) => ({
    id: `c-${n}`,
    subject: n <= 2 ? "Code review takes too long" : "On call handover",
    parts: [
      message(n <= 2 ? "How long does a code review take before my change is merged?" : "Who takes the on call pager after my week?"),
    ],
    metadata: { createdAt: `2026-11-0${n}T10:00:00Z` },
  }));
  await ctx.as(owner).post(`/v1/orgs/${org.id}/conversations`, conversations);
  await ctx.worker.drain();
  return { ...roles, collection, space, first, second, siteId: site.body.id as string };
}

beforeAll(async () => {
  e2e = await startWebE2E();
  ({ ctx, base } = e2e);
  seeded = await seed();
}, 120_000);

afterAll(async () => {
  await e2e?.close();
});

const shot = (...args: Parameters<WebE2E["shot"]>) => e2e.shot(...args);
const signIn = (...args: Parameters<WebE2E["signIn"]>) => e2e.signIn(...args);

describe("browsing the web app in Chromium", () => {
  it("goes from the organization to a page, its history and a revision, then a site, a spec and a topic", async () => {
    const { org, members, space, second } = seeded;
    const { context, page } = await signIn(members.read, { viewport: { width: 1280, height: 900 } });
    await shot(page, "01-home");
    await page
      .getByRole("link", { name: org.id === "" ? "" : "Test Org" })
      .first()
      .click();
    await page.waitForURL(`${base}/app/o/${org.id}`);
    await shot(page, "02-organization");

    await page.getByRole("link", { name: "Handbooks" }).first().click();
    await page.waitForURL(`${base}/app/o/${org.id}/c/${seeded.collection.id}`);
    await shot(page, "03-collection");

    await page
      .getByRole("link", { name: /Engineering handbook/ })
      .first()
      .click();
    await page.waitForURL(`${base}/app/o/${org.id}/s/${space.id}`);
    await expect.poll(() => page.locator("article").textContent()).toContain("Before you start");
    // A reader sees the sync state, not the buttons.
    expect(await page.getByRole("button", { name: "Import" }).count()).toBe(0);
    await shot(page, "04-space");

    await page.locator("aside").getByRole("link", { name: "Code reviews" }).click();
    await page.waitForURL(`${base}/app/o/${org.id}/s/${space.id}/p/reviews`);
    expect(await page.locator("article").textContent()).toContain("Small changes are reviewed within a day.");
    await shot(page, "05-page");

    await page.locator("#history a").first().click();
    await page.waitForURL(`${base}/app/o/${org.id}/s/${space.id}/revisions/${second.revisionId}`);
    expect(await page.locator("main").textContent()).toContain("Code reviews");
    await shot(page, "06-revision");

    await page.goto(`${base}/app/o/${org.id}`);
    await page.getByRole("link", { name: "Handbook site" }).click();
    await expect.poll(() => page.locator("main").textContent()).toContain("Published at");
    await shot(page, "07-site");

    await page.goto(`${base}/app/o/${org.id}`);
    await page.getByRole("link", { name: "public-api" }).click();
    await expect.poll(() => page.locator("main").textContent()).toContain("Versions");
    await shot(page, "08-openapi");

    await page.goto(`${base}/app/o/${org.id}`);
    await page.locator("#topics a").first().click();
    await expect.poll(() => page.locator("main").textContent()).toContain("Issues");
    await shot(page, "09-topic");
    await context.close();
  });

  it("lets an editor request a Git import from the space page", async () => {
    const { org, members, space } = seeded;
    const { context, page } = await signIn(members.edit);
    await page.goto(`${base}/app/o/${org.id}/s/${space.id}`);
    await page.locator("summary", { hasText: "Import from Git" }).click();
    const form = page.locator(`form[action$="/git/import"]`);
    await form.locator("input[name=url]").fill("https://git.example.test/acme/handbook.git");
    await shot(page, "10-git-form");
    await form.getByRole("button", { name: "Import" }).click();
    await page.waitForURL((url) => url.searchParams.get("git") === "import");
    expect(await page.locator("#git").textContent()).toContain("Import requested");
    expect(await page.locator("#git").textContent()).toContain("https://git.example.test/acme/handbook.git");
    await shot(page, "11-git-requested");
    await context.close();
  });

  it("names an icon in every page's head, which loads under the app's CSP, so no browser asks for /favicon.ico", async () => {
    const { org, members, space } = seeded;
    const { context, page } = await signIn(members.read);
    const asked: string[] = [];
    page.on("request", (request) => asked.push(new URL(request.url()).pathname));
    for (const path of ["/app/login", `/app/o/${org.id}`, `/app/o/${org.id}/s/${space.id}/p/gettingstarted`]) {
      await page.goto(`${base}${path}`);
      const href = await page.locator('head link[rel="icon"]').getAttribute("href");
      expect(href, path).toMatch(/^data:image\/svg\+xml,/);
      // Drawn in the page itself: the same CSP (img-src) governs it as the browser's tab icon.
      const size = await page.evaluate(
        (src) =>
          new Promise<number[]>((resolve) => {
            const img = new Image();
            img.onload = () => resolve([img.naturalWidth, img.naturalHeight]);
            img.onerror = () => resolve([0, 0]);
            img.src = src;
          }),
        href!,
      );
      expect(size[0], path).toBeGreaterThan(0);
      expect(size[1], path).toBeGreaterThan(0);
    }
    expect(asked).not.toContain("/favicon.ico");
    await context.close();
  });

  it("reads on a phone and in dark mode", async () => {
    const { org, members, space } = seeded;
    const phone = await signIn(members.read, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await phone.page.goto(`${base}/app/o/${org.id}/s/${space.id}/p/gettingstarted`);
    const width = await phone.page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await shot(phone.page, "12-phone-page");
    await phone.context.close();

    const dark = await signIn(members.read, { colorScheme: "dark", viewport: { width: 1280, height: 900 } });
    await dark.page.goto(`${base}/app/o/${org.id}/s/${space.id}/p/gettingstarted`);
    const background = await dark.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe("rgb(13, 17, 23)");
    await shot(dark.page, "13-dark-page");
    await dark.context.close();
  });
});
