/**
 * The organization's audit log page in Chromium: an admin reaches it from the organization page,
 * finds a role change made in the app by its action and by date, opens its details and downloads
 * the export; axe finds no serious accessibility violation. QUIRE_SCREENSHOTS_DIR=<dir> keeps the
 * screenshots, desktop and phone.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext, TestUser } from "../helpers/app.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

let e2e: WebE2E;
let ctx: TestContext;
let base: string;
let orgId: string;
let owner: TestUser;
let writer: TestUser;

beforeAll(async () => {
  e2e = await startWebE2E();
  ({ ctx, base } = e2e);
  owner = await createUser(ctx, { displayName: "Olive Owner" });
  orgId = (await createOrganization(ctx, owner, "Audited Docs")).id;
  writer = await createUser(ctx, { displayName: "Wes Writer" });
  await addMemberToOrg(ctx, orgId, writer, "read");
  // Something through the API too: a space.
  expect((await ctx.as(owner).post(`/v1/orgs/${orgId}/spaces`, { title: "Handbook" })).status).toBe(201);
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

describe("the audit log page, in Chromium", () => {
  it("lists the changes, filters them by action and date, shows details and exports them", async () => {
    const { context, page } = await e2e.signIn(owner);
    const problems = watchProblems(page);

    // A change made in the app, to find in the log.
    await page.goto(`${base}/app/o/${orgId}/members`);
    const row = page.locator("tr", { hasText: "Wes Writer" });
    await row.getByLabel(/Role of/).selectOption("edit");
    await row.getByRole("button", { name: "Change role" }).click();
    await page.waitForURL(/done=role/);

    await page.goto(`${base}/app/o/${orgId}`);
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.waitForURL(/\/settings\/audit$/);
    const main = page.locator("main");
    expect(await main.textContent()).toContain("createSpace");
    expect(await main.textContent()).toContain("sign_in");
    await e2e.shot(page, "audit-01-all");

    const filters = page.getByRole("search", { name: "Filter the audit log" });
    await filters.locator("select[name=action]").selectOption("app.members.role");
    const today = new Date().toISOString().slice(0, 10);
    await filters.locator("input[name=from]").fill(today);
    await filters.locator("input[name=to]").fill(today);
    await filters.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/action=app\.members\.role/);
    const events = page.locator("tbody tr");
    expect(await events.count()).toBe(1);
    expect(await events.first().textContent()).toContain(owner.email);
    expect(await events.first().textContent()).toContain(writer.id);
    await events.first().getByText("Details").click();
    expect(await events.first().locator("pre").textContent()).toContain('"role": "edit"');
    expect(await axeViolations(page)).toEqual([]);
    await e2e.shot(page, "audit-02-filtered");

    // A day before anything happened: nothing.
    await filters.locator("input[name=from]").fill("2020-01-01");
    await filters.locator("input[name=to]").fill("2020-01-02");
    await filters.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/to=2020-01-02/);
    expect(await page.getByText("No event matches.").isVisible()).toBe(true);

    // The export of what the filters select (today's role change), with the session's cookies.
    await filters.locator("input[name=from]").fill(today);
    await filters.locator("input[name=to]").fill(today);
    await filters.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(new RegExp(`from=${today}`));
    const href = await page.getByRole("link", { name: "Export as JSON lines" }).getAttribute("href");
    const exported = await page.request.get(`${base}${href}`);
    expect(exported.status()).toBe(200);
    expect(exported.headers()["content-type"]).toBe("application/jsonl; charset=utf-8");
    const lines = (await exported.text())
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((e) => [e.action, e.target.id])).toEqual([["app.members.role", writer.id]]);
    expect(problems).toEqual([]);
    await context.close();

    const phone = await e2e.signIn(owner, PHONE);
    await phone.page.goto(`${base}/app/o/${orgId}/settings/audit`);
    await e2e.shot(phone.page, "audit-03-phone");
    await phone.context.close();
  });

  it("is refused to members who are not admins, and the link is not shown to them", async () => {
    const { context, page } = await e2e.signIn(writer);
    await page.goto(`${base}/app/o/${orgId}`);
    expect(await page.getByRole("link", { name: "Audit log" }).count()).toBe(0);
    const answer = await page.goto(`${base}/app/o/${orgId}/settings/audit`);
    expect(answer?.status()).toBe(403);
    expect(await page.locator("main").textContent()).toContain("Only organization admins can read the audit log.");
    await context.close();
  });
});
