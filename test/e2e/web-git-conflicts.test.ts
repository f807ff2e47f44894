/**
 * Git sync conflicts in a real browser (Chromium via playwright-core): a space imported from a bare
 * repository, the same page edited in Quire and in Git, the import that finds it, and the space's
 * conflict page: what each side changed block by block, the blocks both changed side by side, and
 * a merge with Git's side chosen for one block, after which the page holds both sides' edits. Then
 * an export to a branch Git changed finds the other kinds: an include edited on both sides, a page
 * Quire deleted that Git edited, and a page Git moved that Quire edited, each with its notice.
 * QUIRE_SCREENSHOTS_DIR=<dir> keeps a screenshot of each step.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JSONDocument } from "../../src/content/document/types.js";
import { parseMarkdownPage } from "../../src/content/markdown/parse.js";
import { commitRevision } from "../../src/content/revision/commit.js";
import { getSpaceRevision } from "../../src/content/revision/revisions.queries.js";
import { loadContent, loadDocument, saveDocument } from "../../src/content/revision/storage.js";
import type { TestContext, TestUser } from "../helpers/app.js";
import { createChangeRequest, editContent, mergeChangeRequest, pageTexts } from "../helpers/change-requests.factories.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { type BareRepo, commitFiles, createBareRepo, readRepoFiles } from "../helpers/git.js";
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

  it("shows the include, deleted and moved conflicts an export finds, and brings back a page Quire deleted", async () => {
    // trunk-io/docs' `.gitbook/includes/slack-callout.md`, as GitBook writes an include.
    const callout = `---\ntitle: Slack callout\n---\n\n\n\n{% hint style="success" %}\nWant to chat with Trunk's engineers? Join us and 1500+ fellow engineers [on Slack](https://slack.trunk.io/).\n{% endhint %}\n`;
    const summary = "# Table of contents\n\n* [Welcome](README.md)\n* [Keeping](keeping.md)\n* [Beacon](beacon.md)\n* [Lamps](lamps.md)\n";
    const files = {
      "README.md": "# Welcome\n\nLighthouses guide ships at night.\n",
      "keeping.md": "# Keeping\n\nTrim the wicks every evening.\n\nClean the lens with vinegar.\n\nLog every passing ship and its flag.\n",
      "beacon.md": '# Beacon\n\nThe beacon turns once a minute.\n\n{% include ".gitbook/includes/slack-callout.md" %}\n',
      "lamps.md": "# Lamps\n\nOil lamps burn whale oil.\n",
      ".gitbook/includes/slack-callout.md": callout,
    };
    commitFiles(repo.dir, { ...files, "SUMMARY.md": summary });
    await importNow(editor);
    const content = (await ctx.as(editor).get(`/v1/spaces/${spaceId}/content`)).body as { pages: { id: string; title: string }[] };
    const id = (title: string) => content.pages.find((p) => p.title === title)!.id;
    const beacon = id("Beacon");

    // Quire: the include edited (a revision of the space), Beacon deleted, Lamps edited.
    const space = await ctx.db.selectFrom("spaces").select(["revisionId"]).where("id", "=", spaceId).executeTakeFirstOrThrow();
    const primary = await loadContent(ctx.db, (await getSpaceRevision(ctx.db, spaceId, space.revisionId))?.treeHash ?? null);
    // Edited in place, as the editor does: the blocks keep their keys.
    const before = await loadDocument<JSONDocument>(ctx.db, primary.reusableContents[0]!.documentHash!);
    const edited = await saveDocument(
      ctx.db,
      parseMarkdownPage(callout.replace("Want to chat", "Want to talk"), { previous: before }).document,
    );
    await ctx.db.transaction().execute((trx) =>
      commitRevision(trx, {
        spaceId,
        parents: [space.revisionId],
        type: "edits",
        content: { ...primary, reusableContents: primary.reusableContents.map((r) => ({ ...r, documentHash: edited })) },
        createdBy: null,
        movePrimaryFrom: space.revisionId,
      }),
    );
    const cr = await createChangeRequest(ctx, editor, spaceId);
    await editContent(ctx, editor, spaceId, cr.id, [
      { operation: "delete_page", page: beacon },
      { operation: "update_page", page: id("Lamps"), document: { markdown: "# Lamps\n\nOil lamps burn colza oil.\n" } },
    ]);
    await mergeChangeRequest(ctx, editor, spaceId, cr.id);
    // Git: the include and Beacon edited, lamps.md moved to a folder.
    const { "lamps.md": lamps, ...others } = files;
    commitFiles(
      repo.dir,
      {
        ...others,
        "beacon.md": files["beacon.md"].replace("once a minute", "twice a minute"),
        ".gitbook/includes/slack-callout.md": callout.replace("1500+", "2000+"),
        "guides/lamps.md": lamps,
        "SUMMARY.md": summary.replace("(lamps.md)", "(guides/lamps.md)"),
      },
      { replace: true },
    );
    const res = await ctx
      .as(editor)
      .post(`/v1/spaces/${spaceId}/git/export`, { url: repo.url, ref: "refs/heads/main", commitMessage: "Quire" });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    await ctx.worker.drain();
    const info = (await ctx.as(editor).get(`/v1/spaces/${spaceId}/git/info`)).body;
    expect(info.lastExport.message).toMatch(/^3 page\(s\) were edited both/);
    // Nothing of Git's is overwritten: its include, its Beacon, and no lamps.md written back.
    const branch = readRepoFiles(repo.dir);
    expect(String(branch.get(".gitbook/includes/slack-callout.md"))).toContain("2000+");
    expect(String(branch.get("beacon.md"))).toContain("twice a minute");
    expect(branch.has("lamps.md")).toBe(false);

    const { page } = await e2e.signIn(editor);
    const problems = watchProblems(page);
    await page.goto(`${base}/app/o/${orgId}/s/${spaceId}#git`);
    await page.getByRole("link", { name: "Resolve conflicts" }).click();
    await page.waitForURL(/\/git\/conflicts$/);
    const cards = page.locator("section.git-conflict");
    expect(await cards.count()).toBe(3);
    const include = page.locator('section.git-conflict[data-target="include"]');
    expect(await include.locator("h3").textContent()).toBe("Slack callout");
    expect(await include.locator('[data-kind="include"]').textContent()).toContain("This reusable content");
    expect(await include.locator('[data-side="git"]').textContent()).toContain("2000+");
    expect(await include.locator('[data-side="quire"]').textContent()).toContain("Want to talk");
    const deleted = page.locator(`section.git-conflict[data-page="${beacon}"]`);
    expect(await deleted.locator('[data-kind="deleted-in-quire"]').textContent()).toContain(
      "Quire deleted this page and Git edited its file",
    );
    expect(await deleted.textContent()).toContain("found by an export");
    const moved = page.locator("section.git-conflict", { has: page.locator('[data-kind="moved-in-git"]') });
    expect(await moved.locator('[data-kind="moved-in-git"]').textContent()).toContain("guides/lamps.md");
    expect(await moved.getByRole("button").allTextContents()).toEqual([
      "Keep Git's version (delete this copy)",
      "Keep Quire's version (at guides/lamps.md)",
      "Merge",
    ]);
    await e2e.shot(page, "git-conflicts-03-export-kinds");

    // Keeping Git's version of the page Quire deleted brings it back.
    await deleted.getByRole("button", { name: "Keep Git's version" }).click();
    await page.waitForURL(/\/git\/conflicts\?kept=git$/);
    expect(await page.locator("section.git-conflict").count()).toBe(2);
    await e2e.shot(page, "git-conflicts-04-kept-git");
    expect(await pageTexts(ctx, editor, `/v1/spaces/${spaceId}`, beacon)).toContain("The beacon turns twice a minute.");
    expect(problems).toEqual([]);
  });
});
