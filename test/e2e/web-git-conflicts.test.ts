/**
 * Git sync conflicts in a real browser (Chromium via playwright-core): a space imported from a bare
 * repository, the same page edited in Quire and in Git, the import that finds it, and the space's
 * conflict page: what each side changed block by block, the blocks both changed side by side, and
 * a merge with Git's side chosen for one block, after which the page holds both sides' edits.
 * QUIRE_SCREENSHOTS_DIR=<dir> keeps a screenshot of each step.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext, TestUser } from "../helpers/app.js";
import { createChangeRequest, editContent, mergeChangeRequest, pageTexts } from "../helpers/change-requests.factories.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { type BareRepo, commitFiles, createBareRepo } from "../helpers/git.js";
import { createSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

let e2e: WebE2E;
let ctx: TestContext;
let base: string;
let orgId: string;
let spaceId: string;
let editor: TestUser;
let repo: BareRepo;

beforeAll(async () => {
  e2e = await startWebE2E({ gitAllowFileUrls: true });
  ({ ctx, base } = e2e);
  const owner = await createUser(ctx, { displayName: "Owner" });
  orgId = (await createOrganization(ctx, owner, "Lighthouse Docs")).id;
  editor = await createUser(ctx, { displayName: "Rey Reviewer" });
  await addMemberToOrg(ctx, orgId, editor, "review");
  spaceId = (await createSpace(ctx, owner, orgId, { title: "Handbook" })).id;
  repo = createBareRepo({
    "README.md": "# Welcome\n\nLighthouses guide ships at night.\n",
    "SUMMARY.md": "# Table of contents\n\n* [Welcome](README.md)\n* [Keeping](keeping.md)\n",
    "keeping.md": "# Keeping\n\nTrim the wicks every evening.\n\nClean the lens weekly.\n\nLog every passing ship.\n",
  });
}, 120_000);

afterAll(async () => {
  repo?.cleanup();
  await e2e?.close();
});

async function importNow(user: TestUser) {
  const res = await ctx.as(user).post(`/v1/spaces/${spaceId}/git/import`, { url: repo.url, ref: "refs/heads/main" });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
  await ctx.worker.drain();
  return (await ctx.as(user).get(`/v1/spaces/${spaceId}/git/info`)).body;
}

describe("Git conflicts in Chromium", () => {
  it("shows a page edited on both sides block by block and merges it with a side chosen per block", async () => {
    await importNow(editor);
    const content = (await ctx.as(editor).get(`/v1/spaces/${spaceId}/content`)).body as { pages: { id: string; title: string }[] };
    const keeping = content.pages.find((p) => p.title === "Keeping")!.id;
    const cr = await createChangeRequest(ctx, editor, spaceId);
    await editContent(ctx, editor, spaceId, cr.id, [
      {
        operation: "update_page",
        page: keeping,
        document: {
          markdown: "# Keeping\n\nTrim the wicks **twice** every evening.\n\nClean the lens daily.\n\nLog every passing ship.\n",
        },
      },
    ]);
    await mergeChangeRequest(ctx, editor, spaceId, cr.id);
    commitFiles(repo.dir, {
      "keeping.md": "# Keeping\n\nTrim the wicks every evening.\n\nClean the lens with vinegar.\n\nLog every passing ship and its flag.\n",
    });
    const info = await importNow(editor);
    expect(info.lastImport.message).toMatch(/"Keeping" \(keeping\.md\)/);

    const { page } = await e2e.signIn(editor);
    const problems = watchProblems(page);
    await page.goto(`${base}/app/o/${orgId}/s/${spaceId}#git`);
    await page.getByRole("link", { name: "Resolve conflicts" }).click();
    await page.waitForURL(/\/git\/conflicts$/);
    const card = page.locator("section.git-conflict");
    await expect(card.locator("h3").textContent()).resolves.toContain("Keeping");
    // What each side changed, block by block, with the words that changed marked.
    expect(await card.locator('[data-side="quire"] .block.changed').count()).toBe(2);
    expect(await card.locator('[data-side="git"] .block.changed').count()).toBe(2);
    expect(await card.locator('[data-side="git"] ins').allTextContents()).toEqual(["with vinegar", " and its flag"]);
    // The one block both changed, its three versions side by side.
    const both = card.locator(".conflict-item");
    expect(await both.count()).toBe(1);
    expect(await both.locator(".conflict > div").allTextContents()).toEqual([
      expect.stringContaining("Clean the lens weekly."),
      expect.stringContaining("Clean the lens daily."),
      expect.stringContaining("Clean the lens with vinegar."),
    ]);
    await e2e.shot(page, "git-conflicts-01-page");

    await both.getByLabel("Git's").check();
    await card.getByRole("button", { name: "Merge" }).click();
    await page.waitForURL(/\/git\/conflicts\?kept=merge$/);
    expect(await page.locator("p.notice").textContent()).toContain("The two versions were merged.");
    expect(await page.textContent("body")).toContain("No page is in conflict");
    await e2e.shot(page, "git-conflicts-02-merged");
    expect(await pageTexts(ctx, editor, `/v1/spaces/${spaceId}`, keeping)).toEqual([
      "Trim the wicks twice every evening.",
      "Clean the lens with vinegar.",
      "Log every passing ship and its flag.",
    ]);
    expect(problems).toEqual([]);
  });
});
