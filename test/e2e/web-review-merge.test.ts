/**
 * A whole review-and-merge in a real browser (Chromium via playwright-core): an editor signs in
 * with a one-time link, creates a change request, edits a page's Markdown with the live preview,
 * asks for a review and comments; a reviewer signs in, sees the block diff and the comment,
 * replies, reacts, approves and merges; the merged text is the space's primary content.
 * QUIRE_SCREENSHOTS_DIR=<dir> keeps a screenshot of each step.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext, TestUser } from "../helpers/app.js";
import { createChangeRequest, editContent, mergeChangeRequest } from "../helpers/change-requests.factories.js";
import { commitContent } from "../helpers/content.factories.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { createSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

let e2e: WebE2E;
let ctx: TestContext;
let base: string;
let orgId: string;
let spaceId: string;
let homeId: string;
let editor: TestUser;
let reviewer: TestUser;

beforeAll(async () => {
  e2e = await startWebE2E();
  ({ ctx, base } = e2e);
  const owner = await createUser(ctx, { displayName: "Owner" });
  orgId = (await createOrganization(ctx, owner, "Lighthouse Docs")).id;
  editor = await createUser(ctx, { displayName: "Eda Editor" });
  reviewer = await createUser(ctx, { displayName: "Rey Reviewer" });
  await addMemberToOrg(ctx, orgId, editor, "edit");
  await addMemberToOrg(ctx, orgId, reviewer, "review");
  spaceId = (await createSpace(ctx, owner, orgId, { title: "Handbook" })).id;
  const { content } = await commitContent(ctx, spaceId, {
    pages: [
      { title: "Welcome", slug: "welcome", paragraphs: ["Lighthouses guide ships at night.", "Keepers trim the wicks every evening."] },
      { title: "Maintenance", slug: "maintenance", paragraphs: ["Clean the lens weekly."] },
    ],
  });
  homeId = content.pages[0]!.id;
}, 120_000);

afterAll(async () => {
  await e2e?.close();
});

const shot = (...args: Parameters<WebE2E["shot"]>) => e2e.shot(...args);
const signIn = (user: TestUser) => e2e.signIn(user);

describe("review and merge in Chromium", () => {
  it("creates, edits with a live preview, reviews, comments, approves and merges a change request", async () => {
    const changes = `${base}/app/o/${orgId}/s/${spaceId}/~/changes`;

    // The editor: a new change request, a page edited with the live preview, a reviewer asked, a comment.
    const eda = await signIn(editor);
    const scriptErrors = watchProblems(eda.page);
    await eda.page.goto(changes);
    await shot(eda.page, "01-list-empty");
    await eda.page.getByLabel("New change request").fill("Night watch routine");
    await eda.page.getByRole("button", { name: "Create" }).click();
    await eda.page.waitForURL(/\/~\/changes\/1\?done=created$/);
    expect(await eda.page.locator("h1").textContent()).toContain("Night watch routine");
    await eda.page.getByRole("link", { name: "Welcome" }).click();
    await eda.page.waitForURL(/\/p\/[^/]+\/edit$/);
    // The block editor opens; this walk-through edits the Markdown (its link on the editor's page).
    await eda.page.getByRole("link", { name: "Markdown", exact: true }).click();
    await eda.page.waitForURL(/\/p\/[^/]+\/markdown$/);
    const area = eda.page.getByLabel("Markdown");
    expect(await area.inputValue()).toContain("Keepers trim the wicks every evening.");
    // The Preview button is for browsers without scripts: the script hides it and previews as one types.
    await eda.page.locator("#preview-button").waitFor({ state: "hidden", timeout: 10_000 });
    await area.fill(
      "# Welcome\n\nLighthouses guide ships at night.\n\nKeepers trim the wicks **twice** every evening.\n\nLog every passing ship.\n",
    );
    await eda.page.locator("#preview p", { hasText: "Log every passing ship." }).waitFor({ timeout: 10_000 });
    expect(await eda.page.locator("#preview").textContent()).toContain("Keepers trim the wicks twice every evening.");
    // Rendered by the published site's renderer: bold is bold.
    expect(await eda.page.locator("#preview strong").allTextContents()).toEqual(["twice"]);
    await shot(eda.page, "02-edit-preview");
    await eda.page.getByRole("button", { name: "Save to the change request" }).click();
    await eda.page.waitForURL(/\?done=saved#page-/);
    const section = eda.page.locator(`section[data-page="${homeId}"]`);
    await expect(section.locator('[data-kind="changed"]').count()).resolves.toBe(1);
    await expect(section.locator('[data-kind="added"]').count()).resolves.toBe(1);
    expect(await section.locator('[data-kind="changed"] ins').allTextContents()).toContain("twice ");
    await eda.page.locator("summary", { hasText: "Request reviewers" }).click();
    await eda.page.getByLabel("Rey Reviewer").check();
    await eda.page.getByRole("button", { name: "Request review" }).click();
    await eda.page.waitForURL(/done=reviewers/);
    await eda.page.getByLabel("Comment", { exact: true }).fill("Rey, does **twice** match the keepers' rota?");
    await eda.page.locator("#comment-form").getByRole("button", { name: "Comment" }).click();
    await eda.page.waitForURL(/done=commented/);
    await shot(eda.page, "03-change-request-editor");
    // The creator cannot approve their own change request: no review form for them.
    await expect(eda.page.locator("#review-form").count()).resolves.toBe(0);
    expect(scriptErrors).toEqual([]);

    // The reviewer: sees the diff and the comment, replies, reacts, approves, merges.
    const rey = await signIn(reviewer);
    await rey.page.goto(`${changes}?requestedReviewer=${reviewer.id}`);
    await shot(rey.page, "04-list-waiting-for-review");
    await rey.page.getByRole("link", { name: "Night watch routine" }).click();
    await rey.page.waitForURL(/\/~\/changes\/1$/);
    const comment = rey.page.locator("#comment-form").locator("xpath=..").locator(".comment").first();
    expect(await comment.textContent()).toContain("does twice match the keepers");
    await comment.locator("summary", { hasText: "Reply" }).click();
    await comment.getByLabel("Reply").fill("Yes, since the new rota.");
    await comment.getByRole("button", { name: "Reply" }).click();
    await rey.page.waitForURL(/done=replied/);
    await rey.page.locator(".comment").first().getByRole("button", { name: "🎉" }).first().click();
    await rey.page.waitForURL(/done=reacted/);
    await rey.page.getByLabel("Review comment").fill("Clear and short. Approved.");
    await rey.page.getByRole("button", { name: "Approve" }).click();
    await rey.page.waitForURL(/done=reviewed/);
    expect(await rey.page.locator("#reviews").textContent()).toContain("approved");
    expect(await rey.page.locator("#merge-box").textContent()).toContain("Ready to merge.");
    await shot(rey.page, "05-change-request-reviewer-approved");
    await rey.page.getByRole("button", { name: "Merge", exact: true }).click();
    await rey.page.waitForURL(/done=merged/);
    expect(await rey.page.locator(".notice").textContent()).toContain("Merged into the primary content.");
    expect(await rey.page.locator("h1").textContent()).toContain("merged");
    await shot(rey.page, "06-merged");

    // The space's primary content is the merged text.
    const primary = await ctx.as(reviewer).get(`/v1/spaces/${spaceId}/content/page/${homeId}?format=markdown`);
    expect(primary.body.markdown).toContain("Keepers trim the wicks **twice** every evening.");
    expect(primary.body.markdown).toContain("Log every passing ship.");
    const listed = await rey.page.goto(`${changes}?status=merged`);
    expect(listed?.status()).toBe(200);
    expect(await rey.page.locator("tbody").textContent()).toContain("Night watch routine");
    await shot(rey.page, "07-list-merged");
    await eda.context.close();
    await rey.context.close();
  }, 120_000);

  it("shows a reader the change request without actions, and conflicts side by side", async () => {
    const reader = await createUser(ctx, { displayName: "Rita Reader" });
    await addMemberToOrg(ctx, orgId, reader, "read");
    const cr = await createChangeRequest(ctx, editor, spaceId, { subject: "Cleaning schedule" });
    await editContent(ctx, editor, spaceId, cr.id, [
      { operation: "update_page", page: homeId, document: { markdown: "# Welcome\n\nLighthouses guide ships through the night.\n" } },
    ]);
    // Meanwhile the primary content changes the same paragraph.
    const other = await createChangeRequest(ctx, reviewer, spaceId, { subject: "Wording" });
    await editContent(ctx, reviewer, spaceId, other.id, [
      { operation: "update_page", page: homeId, document: { markdown: "# Welcome\n\nLighthouses guide ships at night and in fog.\n" } },
    ]);
    await mergeChangeRequest(ctx, reviewer, spaceId, other.id);
    const url = `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}`;

    const rita = await signIn(reader);
    await rita.page.goto(url);
    await shot(rita.page, "08-reader-view");
    await expect(rita.page.getByRole("button", { name: "Merge", exact: true }).count()).resolves.toBe(0);
    await expect(rita.page.locator("#comment-form").count()).resolves.toBe(0);
    expect(await rita.page.locator("#merge-box").textContent()).toContain("Merging needs the review level");
    await rita.page.setViewportSize({ width: 390, height: 844 });
    await shot(rita.page, "10-reader-phone");
    // On a phone the side panel follows the changes, and nothing is wider than the screen.
    expect(await rita.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    const rey = await signIn(reviewer);
    await rey.page.goto(url);
    await shot(rey.page, "09-conflicts");
    const conflict = rey.page.locator(".conflict-item").first();
    expect(await conflict.locator(".conflict > div").nth(1).textContent()).toContain("at night and in fog");
    expect(await conflict.locator(".conflict > div").nth(2).textContent()).toContain("through the night");
    await expect(rey.page.getByRole("button", { name: "Merge", exact: true }).isDisabled()).resolves.toBe(true);
    await rita.context.close();
    await rey.context.close();
  }, 60_000);
});
