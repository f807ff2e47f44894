/**
 * The app a writer lives in, in Chromium against the real server: creating and renaming a space
 * from the organization page, inviting a member and changing their role, the page tree (a group,
 * rename, duplicate, drag and drop), and the header's search (Ctrl+K and /, arrows, Enter), with
 * axe finding no serious accessibility violation. QUIRE_SCREENSHOTS_DIR=<dir> keeps screenshots,
 * desktop and phone.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext, TestUser } from "../helpers/app.js";
import { createChangeRequest } from "../helpers/change-requests.factories.js";
import { commitContent } from "../helpers/content.factories.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { createSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

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
  owner = await createUser(ctx, { displayName: "Olive Owner" });
  orgId = (await createOrganization(ctx, owner, "Lighthouse Docs")).id;
  editor = await createUser(ctx, { displayName: "Eda Editor" });
  await addMemberToOrg(ctx, orgId, editor, "edit");
  spaceId = (await createSpace(ctx, owner, orgId, { title: "Platform" })).id;
  await commitContent(ctx, spaceId, {
    pages: [
      {
        title: "Cloud",
        slug: "cloud",
        paragraphs: ["Where we run."],
        children: [{ title: "Kubernetes", paragraphs: ["Clusters in the cloud."] }],
      },
      {
        title: "On premises",
        slug: "on-prem",
        paragraphs: ["Racks."],
        children: [{ title: "Kubernetes", paragraphs: ["Clusters at home."] }],
      },
      { title: "Safety", slug: "safety", paragraphs: ["Wear a harness."] },
    ],
  });
  await ctx.worker.drain();
}, 120_000);

afterAll(async () => {
  await e2e?.close();
});

/** Serious and critical axe violations of the page as it is now. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

type Tree = { title: string; kind: string; pages?: Tree }[];
const outline = (pages: Tree): string[] =>
  pages.map((p) => `${p.kind === "group" ? "§" : ""}${p.title}${p.pages?.length ? ` [${outline(p.pages).join(", ")}]` : ""}`);

describe("the app around the editor, in Chromium", () => {
  it("creates and renames a space, invites a member and changes their role", async () => {
    const { context, page } = await e2e.signIn(owner);
    const problems = watchProblems(page);
    await page.goto(`${base}/app/o/${orgId}`);
    await page.getByText("New space").click();
    const form = page.locator("#new-space");
    await form.getByLabel("Title").fill("Runbooks");
    await form.getByLabel("Start from").selectOption({ label: "A copy of Platform’s pages" });
    await e2e.shot(page, "around-01-new-space");
    await form.getByRole("button", { name: "Create space" }).click();
    await page.waitForURL(/\/s\/[^/]+$/);
    expect(await page.locator("h1").first().textContent()).toContain("Runbooks");
    expect(await page.locator("main").textContent()).toContain("Kubernetes");
    await page.getByText("Rename", { exact: true }).click();
    await page.getByLabel("New title of the space").fill("Run books");
    await page.getByRole("button", { name: "Save title" }).click();
    await page.waitForLoadState();
    expect(await page.locator("h1").first().textContent()).toContain("Run books");

    await page.goto(`${base}/app/o/${orgId}/members`);
    const invite = page.locator("#invite-form");
    if (!(await invite.isVisible())) await page.getByText("Invite people").click();
    await invite.getByLabel("Email addresses").fill("ada@example.com, grace@example.com");
    await invite.getByLabel("Role").selectOption("comment");
    await invite.getByRole("button", { name: "Invite" }).click();
    await page.waitForURL(/done=invited/);
    expect(await page.locator(".notice").textContent()).toContain("Invitations sent");
    const row = page.locator("tr", { hasText: "ada@example.com" });
    expect(await row.getByLabel(/Role of/).inputValue()).toBe("comment");
    await row.getByLabel(/Role of/).selectOption("review");
    await row.getByRole("button", { name: "Change role" }).click();
    await page.waitForURL(/done=role/);
    expect(
      await page
        .locator("tr", { hasText: "ada@example.com" })
        .getByLabel(/Role of/)
        .inputValue(),
    ).toBe("review");
    expect(await axeViolations(page)).toEqual([]);
    await e2e.shot(page, "around-02-members");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("adds a group, renames, duplicates and drags pages in a change request's tree", async () => {
    const cr = await createChangeRequest(ctx, editor, spaceId, { subject: "Reorganize" });
    const crApi = `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/pages`;
    const crPages = async () => outline((await ctx.as(owner).get(crApi)).body.pages);
    const { context, page } = await e2e.signIn(editor);
    const problems = watchProblems(page);
    await page.goto(`${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/pages`);
    // Same-titled pages are told apart in the pickers.
    expect(await page.locator("#add-page select[name=parent]").textContent()).toContain("Kubernetes — Cloud / Kubernetes");

    const add = page.locator("#add-page");
    await add.getByLabel("Title").fill("Reference");
    await add.getByLabel("Kind").selectOption("group");
    await add.getByRole("button", { name: "Add", exact: true }).click();
    await page.waitForURL(/done=group-added/);

    await page.getByText("Rename", { exact: true }).nth(2).click(); // the third row: On premises
    await page.getByLabel("New title of “On premises”").fill("Self-hosted");
    await page.getByRole("button", { name: "Save title" }).filter({ visible: true }).click();
    await page.waitForURL(/done=page-renamed/);

    await page.getByRole("button", { name: "Duplicate “Safety”" }).click();
    await page.waitForURL(/done=page-duplicated/);
    expect(await crPages()).toEqual(["Cloud [Kubernetes]", "Self-hosted [Kubernetes]", "Safety", "Safety (copy)", "§Reference"]);

    // A move posts the form and comes back to the tree (the address may already read done=page-moved).
    const moved = async (act: () => Promise<void>) => {
      const answered = page.waitForResponse((r) => r.url().endsWith("/move") && r.request().method() === "POST");
      await act();
      await answered;
      await page.waitForLoadState();
    };
    const row = (title: string) => page.locator(".tree-row", { has: page.locator(".tree-title", { hasText: new RegExp(`^${title}$`) }) });
    // Drag "Safety (copy)" onto the middle of the group: it goes under it.
    await moved(() => row("Safety \\(copy\\)").locator(".drag-handle").dragTo(row("Reference")));
    expect(await crPages()).toEqual(["Cloud [Kubernetes]", "Self-hosted [Kubernetes]", "Safety", "§Reference [Safety (copy)]"]);
    // Drag "Safety" onto the upper edge of "Cloud": it goes first.
    const cloud = row("Cloud");
    const box = (await cloud.boundingBox())!;
    await moved(() =>
      row("Safety")
        .locator(".drag-handle")
        .dragTo(cloud, { targetPosition: { x: box.width / 2, y: 2 } }),
    );
    expect(await crPages()).toEqual(["Safety", "Cloud [Kubernetes]", "Self-hosted [Kubernetes]", "§Reference [Safety (copy)]"]);
    // The keyboard's way still works.
    await moved(() => page.getByRole("button", { name: "Move “Safety” down" }).click());
    expect((await crPages())[0]).toBe("Cloud [Kubernetes]");
    expect(await axeViolations(page)).toEqual([]);
    await e2e.shot(page, "around-03-tree");
    expect(problems).toEqual([]);
    await context.close();

    const phone = await e2e.signIn(editor, PHONE);
    await phone.page.goto(`${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/pages`);
    await e2e.shot(phone.page, "around-04-tree-phone");
    await phone.context.close();
  });

  it("finds a page from the header with Ctrl+K and /, arrows and Enter, telling same-titled pages apart", async () => {
    for (const [name, options] of [
      ["desktop", {}],
      ["phone", PHONE],
    ] as const) {
      const { context, page } = await e2e.signIn(editor, options);
      const problems = watchProblems(page);
      await page.goto(`${base}/app/o/${orgId}`);
      const input = page.locator("#search-input");
      await page.keyboard.press("Control+k");
      expect(await input.evaluate((el) => el === document.activeElement)).toBe(true);
      await input.pressSequentially("clusters");
      const options_ = page.locator("#search-results [role=option]");
      await options_.first().waitFor();
      expect((await options_.locator(".search-label").allTextContents()).sort()).toEqual([
        "Kubernetes — Platform / Cloud / Kubernetes",
        "Kubernetes — Platform / On premises / Kubernetes",
      ]);
      expect(await input.getAttribute("aria-expanded")).toBe("true");
      expect(await axeViolations(page)).toEqual([]);
      await e2e.shot(page, `around-05-search-${name}`);
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("ArrowDown");
      const chosen = await page.locator("#search-results [aria-selected=true] .search-label").textContent();
      expect(await input.getAttribute("aria-activedescendant")).toBe("search-option-1");
      await page.keyboard.press("Enter");
      await page.waitForURL(/\/p\/[^/]+$/);
      expect(chosen).toContain(await page.locator("main h1").first().textContent());
      expect(await page.locator("main").textContent()).toContain("Clusters");

      // "/" opens it too, from anywhere but a field; Escape closes the results.
      await page.locator("main h1").first().click();
      await page.keyboard.press("/");
      expect(await input.evaluate((el) => el === document.activeElement)).toBe(true);
      await input.fill("");
      await input.pressSequentially("harness");
      await options_.first().waitFor();
      await page.keyboard.press("Escape");
      expect(await page.locator("#search-results").isHidden()).toBe(true);
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it("asks the docs from the search page: an answer with its sources, which open", async () => {
    const { context, page } = await e2e.signIn(editor);
    const problems = watchProblems(page);
    await page.goto(`${base}/app/o/${orgId}/search?q=${encodeURIComponent("Where do the clusters run at home?")}`);
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page.waitForURL(/\/ask\?q=/);
    expect(await page.locator("main h1").textContent()).toBe("Ask");
    const sources = page.locator("ol.ask-sources a");
    expect(await sources.count()).toBeGreaterThan(0);
    expect(await page.locator("section.ask-answer p").count()).toBeGreaterThan(0);
    expect(await axeViolations(page)).toEqual([]);
    await e2e.shot(page, "around-06-ask");
    await sources.first().click();
    await page.waitForURL(/\/p\/[^/#]+(#.*)?$/);
    expect(await page.locator("main").textContent()).toContain("Clusters");
    expect(problems).toEqual([]);
    await context.close();
  });
});
