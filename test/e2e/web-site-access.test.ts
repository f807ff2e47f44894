/**
 * A site's redirects and who has access, in Chromium: an admin pastes redirects and gives a member
 * a level from the site's page; axe finds no serious violation; screenshots at desktop and phone
 * width (QUIRE_SCREENSHOTS_DIR=<dir> keeps them).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext, TestUser } from "../helpers/app.js";
import { commitContent } from "../helpers/content.factories.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { createSite } from "../helpers/sites.factories.js";
import { createSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

let e2e: WebE2E;
let ctx: TestContext;
let base: string;
let owner: TestUser;
let writer: TestUser;
let sitePage: string;

beforeAll(async () => {
  e2e = await startWebE2E();
  ({ ctx, base } = e2e);
  owner = await createUser(ctx, { displayName: "Olive Owner" });
  const orgId = (await createOrganization(ctx, owner, "Moved Docs")).id;
  writer = await createUser(ctx, { displayName: "Wes Writer" });
  await addMemberToOrg(ctx, orgId, writer, "read");
  const space = await createSpace(ctx, owner, orgId, { title: "Guide" });
  await commitContent(ctx, space.id, { pages: [{ title: "Install", slug: "install", paragraphs: ["Steps."] }] });
  const site = await createSite(ctx, owner, orgId, { title: "Docs", spaces: [space.id] });
  sitePage = `${base}/app/o/${orgId}/sites/${site.id}`;
}, 120_000);

afterAll(async () => {
  await e2e?.close();
});

async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

describe("a site's redirects and access, in Chromium", () => {
  it("pastes redirects, gives a member a level, and passes axe at desktop and phone width", async () => {
    const { context, page } = await e2e.signIn(owner);
    const problems = watchProblems(page);
    await page.goto(sitePage);
    const redirects = page.locator("#redirects");
    await redirects.getByLabel(/One redirect a line/).fill("/old-install /install permanent\n/blog/* https://blog.example.com");
    await redirects.getByRole("button", { name: "Add these redirects" }).click();
    await page.waitForURL(/saved=redirects-pasted/);
    expect(await page.locator("#redirects").textContent()).toContain("Redirects saved.");
    expect(await page.locator("#redirects input[name=source]").first().inputValue()).toMatch(/^\/(blog\/\*|old-install)$/);

    const access = page.locator("#access");
    await access.getByLabel("Member's email address").fill(writer.email);
    await access.getByRole("combobox", { name: "Level" }).selectOption("edit");
    await access.getByRole("button", { name: "Give access" }).first().click();
    await page.waitForURL(/saved=access/);
    expect(await page.locator("#access").textContent()).toContain("Wes Writer");
    expect(await axeViolations(page)).toEqual([]);
    await page.locator("#redirects").scrollIntoViewIfNeeded();
    await e2e.shot(page, "site-access-01-redirects");
    await page.locator("#access").scrollIntoViewIfNeeded();
    await e2e.shot(page, "site-access-02-access");
    expect(problems).toEqual([]);
    await context.close();

    const phone = await e2e.signIn(owner, PHONE);
    await phone.page.goto(`${sitePage}#redirects`);
    expect(await axeViolations(phone.page)).toEqual([]);
    await e2e.shot(phone.page, "site-access-03-phone");
    await phone.context.close();
  });
});
