/**
 * A change request's page structure in a real browser (Chromium via playwright-core): an editor
 * adds a page at the top level and one under another page, moves pages up and under another
 * parent, deletes one, and sees the change request list the pages as added and moved; the API
 * reads the same tree in the change request. QUIRE_SCREENSHOTS_DIR=<dir> keeps a screenshot of each step.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLoginLink } from "../../src/modules/web/web.queries.js";
import { createTestContext, type TestContext, type TestUser } from "../helpers/app.js";
import { launchChromium } from "../helpers/browser.js";
import { createChangeRequest } from "../helpers/change-requests.factories.js";
import { commitContent } from "../helpers/content.factories.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { freePort } from "../helpers/simplesamlphp.js";
import { createSpace } from "../helpers/spaces.factories.js";

const SCREENSHOTS = process.env.QUIRE_SCREENSHOTS_DIR;

let ctx: TestContext;
let base: string;
let browser: Browser;
let orgId: string;
let spaceId: string;
let editor: TestUser;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  ctx = await createTestContext({ config: { publicUrl: base } });
  await ctx.app.listen({ port, host: "127.0.0.1" });
  const owner = await createUser(ctx, { displayName: "Owner" });
  orgId = (await createOrganization(ctx, owner, "Lighthouse Docs")).id;
  editor = await createUser(ctx, { displayName: "Eda Editor" });
  await addMemberToOrg(ctx, orgId, editor, "edit");
  spaceId = (await createSpace(ctx, owner, orgId, { title: "Handbook" })).id;
  await commitContent(ctx, spaceId, {
    pages: [
      { title: "Welcome", slug: "welcome", paragraphs: ["Lighthouses guide ships at night."] },
      { title: "Maintenance", slug: "maintenance", paragraphs: ["Clean the lens weekly."] },
    ],
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await ctx?.close();
});

async function shot(page: Page, name: string) {
  if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
}

type Tree = { title: string; pages?: Tree }[];
const outline = (pages: Tree): string[] => pages.map((p) => (p.pages?.length ? `${p.title} [${outline(p.pages).join(", ")}]` : p.title));

describe("a change request's pages in Chromium", () => {
  it("adds, moves and deletes pages, and the change request lists them", async () => {
    const cr = await createChangeRequest(ctx, editor, spaceId, { subject: "Reorganize the handbook" });
    const url = `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}`;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("response", (response) => {
      if (response.status() >= 400 && new URL(response.url()).pathname !== "/favicon.ico")
        problems.push(`${response.status()} ${response.url()}`);
    });
    const { token } = await createLoginLink(ctx.db, editor.id);
    await page.goto(`${base}/app/login/link/${token}`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/app`);

    await page.goto(url);
    await page.getByRole("link", { name: "Add, move or delete pages" }).click();
    await page.waitForURL(`${url}/pages`);
    await shot(page, "pages-01-start");
    const tree = page.locator(".page-tree");
    const titles = () => tree.locator(".tree-title").allTextContents();
    expect(await titles()).toEqual(["Welcome", "Maintenance"]);

    // A page at the top level, then one under Welcome.
    const add = page.locator("#add-page");
    await add.getByLabel("Title").fill("Safety");
    await add.getByRole("button", { name: "Add page" }).click();
    await page.waitForURL(/done=page-added/);
    expect(await page.locator(".notice").textContent()).toContain("Page added to the change request.");
    await add.getByLabel("Title").fill("Ropes and harnesses");
    await add.getByLabel("Place").selectOption({ label: "Welcome" });
    await add.getByRole("button", { name: "Add page" }).click();
    await page.waitForURL(/done=page-added/);
    expect(await titles()).toEqual(["Welcome", "Ropes and harnesses", "Maintenance", "Safety"]);
    await shot(page, "pages-02-added");

    // Safety up twice (to the top); Maintenance under Welcome.
    await page.getByRole("button", { name: "Move “Safety” up" }).click();
    await page.waitForURL(/done=page-moved/);
    await page.getByRole("button", { name: "Move “Safety” up" }).click();
    await page.waitForURL(/done=page-moved/);
    await expect(page.getByRole("button", { name: "Already the first at its level" }).first().isDisabled()).resolves.toBe(true);
    const maintenance = page.locator("li[data-page]", { has: page.locator(".tree-title", { hasText: /^Maintenance$/ }) }).last();
    await maintenance.getByLabel("New place for “Maintenance”").selectOption({ label: "Welcome" });
    await maintenance.getByRole("button", { name: "Move", exact: true }).click();
    await page.waitForURL(/done=page-moved/);
    expect(await titles()).toEqual(["Safety", "Welcome", "Ropes and harnesses", "Maintenance"]);
    await shot(page, "pages-03-moved");

    // Ropes and harnesses deleted again.
    await page.getByRole("button", { name: "Delete “Ropes and harnesses” in this change request" }).click();
    await page.waitForURL(/done=page-deleted/);
    expect(await titles()).toEqual(["Safety", "Welcome", "Maintenance"]);
    // Nested: Maintenance is inside Welcome's list.
    await expect(tree.locator("li li .tree-title").allTextContents()).resolves.toEqual(["Maintenance"]);
    await shot(page, "pages-04-deleted");

    // The change request lists Safety as added and Maintenance as moved; the API reads the same tree.
    await page.getByRole("link", { name: "Back to the change request" }).click();
    await page.waitForURL(url);
    const badges = async (title: string) => page.locator("section[data-page] h3", { hasText: title }).locator(".badge").allTextContents();
    expect(await badges("Safety")).toEqual(["added"]);
    expect(await badges("Maintenance")).toEqual(["moved"]);
    await expect(page.locator("section[data-page] h3", { hasText: "Ropes" }).count()).resolves.toBe(0);
    await shot(page, "pages-05-change-request");
    const api = await ctx.as(editor).get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/pages`);
    expect(outline(api.body.pages)).toEqual(["Safety", "Welcome [Maintenance]"]);

    // On a phone the tree's actions wrap; nothing is wider than the screen.
    await page.goto(`${url}/pages`);
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, "pages-06-phone");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
