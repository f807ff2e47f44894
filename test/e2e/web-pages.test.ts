/**
 * A change request's page structure in a real browser (Chromium via playwright-core): an editor
 * adds a page at the top level and one under another page, moves pages up and under another
 * parent, deletes one, and sees the change request list the pages as added and moved; the API
 * reads the same tree in the change request. QUIRE_SCREENSHOTS_DIR=<dir> keeps a screenshot of each step.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext, TestUser } from "../helpers/app.js";
import { createChangeRequest } from "../helpers/change-requests.factories.js";
import { commitContent } from "../helpers/content.factories.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { createSite } from "../helpers/sites.factories.js";
import { createSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

let e2e: WebE2E;
let ctx: TestContext;
let base: string;
let orgId: string;
let spaceId: string;
let owner: TestUser;
let editor: TestUser;

beforeAll(async () => {
  e2e = await startWebE2E();
  ({ ctx, base } = e2e);
  owner = await createUser(ctx, { displayName: "Owner" });
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
}, 120_000);

afterAll(async () => {
  await e2e?.close();
});

const shot = (...args: Parameters<WebE2E["shot"]>) => e2e.shot(...args);

type Tree = { title: string; pages?: Tree }[];
const outline = (pages: Tree): string[] => pages.map((p) => (p.pages?.length ? `${p.title} [${outline(p.pages).join(", ")}]` : p.title));

describe("a change request's pages in Chromium", () => {
  it("adds, moves and deletes pages, and the change request lists them", async () => {
    const cr = await createChangeRequest(ctx, editor, spaceId, { subject: "Reorganize the handbook" });
    const url = `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}`;
    const { context, page } = await e2e.signIn(editor);
    const problems = watchProblems(page);

    await page.goto(url);
    await page.getByRole("link", { name: "Add, rename, move or delete pages" }).click();
    await page.waitForURL(`${url}/pages`);
    await shot(page, "pages-01-start");
    const tree = page.locator(".page-tree");
    const titles = () => tree.locator(".tree-title").allTextContents();
    expect(await titles()).toEqual(["Welcome", "Maintenance"]);

    // A page at the top level, then one under Welcome.
    const add = page.locator("#add-page");
    await add.getByLabel("Title").fill("Safety");
    await add.getByRole("button", { name: "Add", exact: true }).click();
    await page.waitForURL(/done=page-added/);
    expect(await page.locator(".notice").textContent()).toContain("Page added to the change request.");
    await add.getByLabel("Title").fill("Ropes and harnesses");
    await add.getByLabel("Place").selectOption({ label: "Welcome" });
    await add.getByRole("button", { name: "Add", exact: true }).click();
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

  it("renames a page with its new address, sets its emoji, description and hidden, places pages before and after others; the API and the published site show it", async () => {
    const site = await createSite(ctx, owner, orgId, { title: "Keepers' handbook" });
    const siteApi = `/v1/orgs/${orgId}/sites/${site.id}`;
    expect((await ctx.as(owner).post(`${siteApi}/site-spaces`, { spaceId })).status).toBe(201);
    expect((await ctx.as(owner).post(`${siteApi}/publish`)).status).toBe(200);
    const siteRoot = `${base}/s/${site.basename}`;
    const cr = await createChangeRequest(ctx, editor, spaceId, { subject: "Lens care and storms" });
    const url = `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}`;
    const { context, page } = await e2e.signIn(editor);
    const problems = watchProblems(page);
    await page.goto(`${url}/pages`);
    const titles = () => page.locator(".page-tree .tree-title").allTextContents();
    const add = page.locator("#add-page");
    await add.getByLabel("Title").fill("Storm log");
    await add.getByRole("button", { name: "Add", exact: true }).click();
    await page.waitForURL(/done=page-added/);
    expect(await titles()).toEqual(["Welcome", "Maintenance", "Storm log"]);

    // Maintenance: renamed; a slug with spaces is refused in the form, the text kept; the address follows the slug as one types.
    await page.getByRole("link", { name: "Settings of “Maintenance”" }).click();
    await page.waitForURL(/\/settings$/);
    expect(await page.locator(".new-path").textContent()).toBe("/maintenance");
    expect(await page.locator(".new-url").textContent()).toBe(`${siteRoot}/maintenance`);
    await page.getByLabel("Title").fill("Lens care");
    await page.getByLabel("Slug").fill("Lens Care");
    await page.getByLabel("Emoji").fill("🔦");
    await page.getByLabel("Description").fill("Keep the lens clear, every week.");
    await page.getByRole("checkbox", { name: /Not for search engines/ }).check();
    await page.getByRole("button", { name: "Save to the change request" }).click();
    await page.waitForURL(/\/settings$/);
    expect(await page.locator(".field-error").textContent()).toContain("“lens-care” would do");
    await expect(page.getByLabel("Slug").getAttribute("aria-invalid")).resolves.toBe("true");
    expect(await page.getByLabel("Emoji").inputValue()).toBe("🔦");
    expect(await page.getByLabel("Description").inputValue()).toBe("Keep the lens clear, every week.");
    await shot(page, "settings-01-slug-refused");
    problems.length = 0; // the refused save answered 400, as it should
    await page.getByLabel("Slug").fill("lens-care");
    await expect(page.locator(".field-error").count()).resolves.toBe(0);
    await expect(page.getByLabel("Slug").getAttribute("aria-invalid")).resolves.toBeNull();
    expect(await page.locator(".new-path").textContent()).toBe("/lens-care");
    expect(await page.locator(".new-url").textContent()).toBe(`${siteRoot}/lens-care`);
    await shot(page, "settings-02-form");
    await page.getByRole("button", { name: "Save to the change request" }).click();
    await page.waitForURL(/done=page-saved/);
    expect(await page.locator(".notice").textContent()).toContain(
      `“Lens care” is at /lens-care; once merged, readers find it at ${siteRoot}/lens-care`,
    );
    expect(await titles()).toEqual(["Welcome", "Lens care", "Storm log"]);

    // Storm log: hidden from the site's navigation.
    await page.getByRole("link", { name: "Settings of “Storm log”" }).click();
    await page.waitForURL(/\/settings$/);
    await page.getByRole("checkbox", { name: /Hidden/ }).check();
    await page.getByRole("button", { name: "Save to the change request" }).click();
    await page.waitForURL(/done=page-saved/);
    const stormRow = page.locator(".tree-row", { has: page.locator(".tree-title", { hasText: "Storm log" }) });
    expect(await stormRow.locator(".badge").allTextContents()).toEqual(["hidden"]);

    // Storm log before Lens care at the top level, then under Welcome after Lens care, then up.
    await page.getByRole("link", { name: "Place “Storm log” before or after another page" }).click();
    await page.waitForURL(/\/place$/);
    expect(await page.locator(".slot.here").textContent()).toContain("“Storm log” is here now");
    await page.getByRole("button", { name: "Place “Storm log” before “Lens care”" }).click();
    await page.waitForURL(/done=page-moved/);
    expect(await titles()).toEqual(["Welcome", "Storm log", "Lens care"]);
    const lens = page.locator("li[data-page]", { has: page.locator(".tree-title", { hasText: /^Lens care$/ }) }).last();
    await lens.getByLabel("New place for “Lens care”").selectOption({ label: "Welcome" });
    await lens.getByRole("button", { name: "Move", exact: true }).click();
    await page.waitForURL(/done=page-moved/);
    await page.getByRole("link", { name: "Place “Storm log” before or after another page" }).click();
    await page.waitForURL(/\/place$/);
    // Choosing the parent shows its pages at once (the script submits the choice).
    await page.getByLabel("Under which page").selectOption({ label: "Welcome" });
    await page.waitForURL(/\/place\?parent=/);
    expect(await page.locator("h2").textContent()).toBe("Pages under “Welcome”");
    await shot(page, "settings-03-place");
    await page.getByRole("button", { name: "Place “Storm log” after “Lens care”" }).click();
    await page.waitForURL(/done=page-moved/);
    expect(await page.locator(".page-tree li li .tree-title").allTextContents()).toEqual(["Lens care", "Storm log"]);
    await page.getByRole("button", { name: "Move “Storm log” up" }).click();
    await page.waitForURL(/done=page-moved/);
    expect(await titles()).toEqual(["Welcome", "Storm log", "Lens care"]);
    expect(await page.locator(".page-tree li li .tree-title").allTextContents()).toEqual(["Storm log", "Lens care"]);
    expect(await page.locator(".tree-path").allTextContents()).toEqual(["/welcome", "/welcome/storm-log", "/welcome/lens-care"]);
    await shot(page, "settings-04-tree");
    // The change request lists the renamed, edited and moved page with what changed.
    await page.getByRole("link", { name: "Back to the change request" }).click();
    await page.waitForURL(url);
    const lensSection = page.locator("section[data-page]", { has: page.locator("h3", { hasText: "Lens care" }) });
    expect(await lensSection.locator("h3 .badge").allTextContents()).toEqual(["renamed", "edited", "moved"]);
    expect(await lensSection.locator("li").allTextContents()).toContain("description:  Keep the lens clear, every week.");
    await shot(page, "settings-04b-change-request");
    // On a phone, the settings form and the place page fit the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [link, name] of [
      ["Settings of “Lens care”", "settings-06-phone-settings"],
      ["Place “Lens care” before or after another page", "settings-07-phone-place"],
    ] as const) {
      await page.goto(`${url}/pages`);
      await page.getByRole("link", { name: link }).click();
      await page.waitForURL(/\/(settings|place)$/);
      await shot(page, name);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(390);
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // The API reads the same tree and fields in the change request.
    const api = await ctx.as(editor).get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/pages`);
    expect(outline(api.body.pages)).toEqual(["Welcome [Storm log, Lens care]"]);
    const [storm, lensCare] = api.body.pages[0].pages;
    expect(lensCare).toMatchObject({
      title: "Lens care",
      slug: "lens-care",
      path: "welcome/lens-care",
      emoji: "🔦",
      description: "Keep the lens clear, every week.",
    });
    expect(storm).toMatchObject({ title: "Storm log", path: "welcome/storm-log", hidden: true });
    expect(lensCare.hidden ?? false).toBe(false);
    expect(lensCare.noRobotsIndex).toBe(true);
    expect(problems).toEqual([]);

    // Merged and published: the site shows the emoji and the description, and leaves the hidden page out of its navigation.
    expect((await ctx.as(owner).post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`, {})).status).toBe(200);
    const reader = await e2e.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const published = await reader.newPage();
    expect((await published.goto(`${siteRoot}/welcome/lens-care`))?.status()).toBe(200);
    expect(await published.locator("h1.q-page-title").textContent()).toBe("Lens care");
    expect(await published.locator(".q-page-description").textContent()).toBe("Keep the lens clear, every week.");
    const nav = await published.locator(".q-sidebar").textContent();
    expect(nav).toContain("🔦 Lens care");
    expect(nav).not.toContain("Storm log");
    // Asked not to be indexed by search engines, unlike the page before it.
    await expect(published.locator('meta[name="robots"][content="noindex"]').count()).resolves.toBe(1);
    await shot(published, "settings-05-published");
    expect((await published.goto(`${siteRoot}/welcome`))?.status()).toBe(200);
    await expect(published.locator('meta[name="robots"]').count()).resolves.toBe(0);
    expect((await published.goto(`${siteRoot}/welcome/storm-log`))?.status()).toBe(200);
    await reader.close();
    await context.close();
  }, 120_000);
});
