/**
 * Git sync never loses a side: a real remote (a bare repository over file://, edited with the `git`
 * program) and the space both edit pages between syncs. Pages edited on both sides become conflicts
 * (reported by getSpaceGitInfo's import status and message), the rest is applied, and the web app's
 * resolution (keep Git's, keep Quire's, merge with a side per block) becomes a revision that the
 * next export writes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createChangeRequest, editContent, mergeChangeRequest, pageTexts } from "../../../test/helpers/change-requests.factories.js";
import { makePng } from "../../../test/helpers/generate-repo.js";
import { commitFiles, createBareRepo, readRepoFiles } from "../../../test/helpers/git.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../test/helpers/web.js";
import type { JSONDocument } from "../../content/document/types.js";
import { parseMarkdownPage } from "../../content/markdown/parse.js";
import { commitRevision } from "../../content/revision/commit.js";
import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import { loadContent, loadDocument, saveDocument } from "../../content/revision/storage.js";
import { readGitSyncState } from "./git-sync-state.service.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ config: { gitAllowFileUrls: true } });
});
afterAll(() => ctx.close());

type Page = { id: string; title: string; path?: string; pages?: Page[] };
const flatten = (pages: Page[]): Page[] => pages.flatMap((p) => [p, ...flatten(p.pages ?? [])]);
type Setup = Awaited<ReturnType<typeof createOrgWithSpace>>;
type User = Setup["owner"];

const SUMMARY = "# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n* [Other](other.md)\n";
const FILES = {
  "README.md": "# Home\n\nWelcome.\n",
  "SUMMARY.md": SUMMARY,
  "guide.md": "# Guide\n\nFirst paragraph.\n\nSecond paragraph.\n\nThird paragraph.\n",
  "other.md": "# Other\n\nUntouched.\n",
};

async function sync(user: User, spaceId: string, kind: "import" | "export", url: string) {
  const res = await ctx.as(user).post(`/v1/spaces/${spaceId}/git/${kind}`, {
    url,
    ref: "refs/heads/main",
    ...(kind === "export" ? { commitMessage: "From Quire" } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
  await ctx.worker.drain();
  const info = await ctx.as(user).get(`/v1/spaces/${spaceId}/git/info`);
  expect(info.status).toBe(200);
  return info.body;
}

async function pageId(user: User, spaceId: string, title: string): Promise<string> {
  const content = (await ctx.as(user).get(`/v1/spaces/${spaceId}/content`)).body as { pages: Page[] };
  const page = flatten(content.pages).find((p) => p.title === title);
  expect(page, `no page "${title}"`).toBeDefined();
  return page!.id;
}

/** Edits a page in Quire (a change request merged), as a person would. */
async function editInQuire(user: User, spaceId: string, id: string, markdown: string) {
  const cr = await createChangeRequest(ctx, user, spaceId);
  await editContent(ctx, user, spaceId, cr.id, [{ operation: "update_page", page: id, document: { markdown } }]);
  await mergeChangeRequest(ctx, user, spaceId, cr.id);
}

/** Git moves guide.md into a folder, unedited (SUMMARY.md follows). */
function moveGuideInGit(dir: string) {
  const { "guide.md": text, ...rest } = FILES;
  commitFiles(
    dir,
    { ...rest, "SUMMARY.md": SUMMARY.replace("(guide.md)", "(guides/guide.md)"), "guides/guide.md": text },
    { replace: true },
  );
}

/** A space imported from a fresh repository. */
async function synced() {
  const setup = await createOrgWithSpace(ctx, { title: "Conflicts" });
  const repo = createBareRepo(FILES);
  const info = await sync(setup.owner, setup.space.id, "import", repo.url);
  expect(info.lastImport.status).toBe("succeeded");
  return { ...setup, repo, guide: await pageId(setup.owner, setup.space.id, "Guide") };
}

describe("Git sync conflicts", () => {
  it("an import keeps Quire's edit of a page Git did not change, and the next export writes it", async () => {
    const { owner, space, repo, guide } = await synced();
    try {
      await editInQuire(owner, space.id, guide, "# Guide\n\nFirst paragraph.\n\nSecond paragraph, edited in Quire.\n\nThird paragraph.\n");
      commitFiles(repo.dir, { "other.md": "# Other\n\nChanged in Git.\n" });
      const info = await sync(owner, space.id, "import", repo.url);
      expect(info.lastImport.status).toBe("succeeded");
      expect(info.lastImport.message).toBeUndefined();
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, guide)).toEqual([
        "First paragraph.",
        "Second paragraph, edited in Quire.",
        "Third paragraph.",
      ]);
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, await pageId(owner, space.id, "Other"))).toEqual(["Changed in Git."]);

      const exported = await sync(owner, space.id, "export", repo.url);
      expect(exported.lastExport.status).toBe("succeeded");
      const files = readRepoFiles(repo.dir);
      expect(String(files.get("guide.md"))).toContain("Second paragraph, edited in Quire.");
      expect(String(files.get("other.md"))).toBe("# Other\n\nChanged in Git.\n");
    } finally {
      repo.cleanup();
    }
  });

  it("a page edited on both sides is not imported: the import says so, applies the rest, and the export leaves Git's file", async () => {
    const { owner, space, repo, guide } = await synced();
    try {
      await editInQuire(owner, space.id, guide, "# Guide\n\nFirst paragraph.\n\nSecond paragraph, Quire's words.\n\nThird paragraph.\n");
      const gitGuide = "# Guide\n\nFirst paragraph.\n\nSecond paragraph, Git's words.\n\nThird paragraph.\n";
      commitFiles(repo.dir, { "guide.md": gitGuide, "other.md": "# Other\n\nChanged in Git.\n" });
      const info = await sync(owner, space.id, "import", repo.url);
      expect(info.lastImport.status).toBe("succeeded");
      expect(info.lastImport.message).toMatch(
        /^1 page\(s\) were edited both in Git and in Quire since the last sync, and were not synced: "Guide" \(guide\.md\)\./,
      );
      expect(info.lastImport.message).toMatch(/Resolve conflicts/);
      // The API keeps 0.146's shape: the base and the conflicts are the sync's own.
      expect(info).not.toHaveProperty("conflicts");
      expect(info).not.toHaveProperty("base");
      const space1 = (await ctx.as(owner).get(`/v1/spaces/${space.id}`)).body;
      expect(space1.gitSync).not.toHaveProperty("conflicts");

      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, guide)).toContain("Second paragraph, Quire's words.");
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, await pageId(owner, space.id, "Other"))).toEqual(["Changed in Git."]);

      // Importing again (the same commit, then a later one) finds the same conflict: Git's side is
      // not applied behind the person's back.
      const again = await sync(owner, space.id, "import", repo.url);
      expect(again.lastImport.status).toBe("succeeded");
      expect(again.lastImport.message).toMatch(/"Guide" \(guide\.md\)/);
      commitFiles(repo.dir, { "README.md": "# Home\n\nWelcome again.\n" });
      const third = await sync(owner, space.id, "import", repo.url);
      expect(third.lastImport.message).toMatch(/"Guide" \(guide\.md\)/);
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, guide)).toContain("Second paragraph, Quire's words.");

      // An export writes everything else but leaves the page in conflict as Git has it.
      await editInQuire(owner, space.id, await pageId(owner, space.id, "Other"), "# Other\n\nChanged in Git, then in Quire.\n");
      const exported = await sync(owner, space.id, "export", repo.url);
      expect(exported.lastExport.status).toBe("succeeded");
      expect(exported.lastExport.message).toMatch(/"Guide" \(guide\.md\)/);
      const files = readRepoFiles(repo.dir);
      expect(String(files.get("guide.md"))).toBe(gitGuide);
      expect(String(files.get("other.md"))).toContain("Changed in Git, then in Quire.");
    } finally {
      repo.cleanup();
    }
  });

  it("an export to a branch that moved since the last sync keeps what Git changed, and records pages edited on both sides", async () => {
    const { owner, org, space, repo, guide } = await synced();
    try {
      const home = await pageId(owner, space.id, "Home");
      await editInQuire(owner, space.id, guide, "# Guide\n\nFirst paragraph.\n\nSecond, by Quire.\n\nThird paragraph.\n");
      await editInQuire(owner, space.id, home, "# Home\n\nWelcome, from Quire.\n");
      const gitGuide = "# Guide\n\nFirst paragraph.\n\nSecond, by Git.\n\nThird paragraph.\n";
      const added = "# Added\n\nA page added in Git.\n\n![Pic](.gitbook/assets/pic.png)\n";
      commitFiles(repo.dir, {
        "guide.md": gitGuide,
        "other.md": "# Other\n\nChanged in Git.\n",
        "added.md": added,
        ".gitbook/assets/pic.png": makePng(4, 4),
        "SUMMARY.md": `${SUMMARY}* [Added](added.md)\n`,
      });

      const exported = await sync(owner, space.id, "export", repo.url);
      expect(exported.lastExport.status).toBe("succeeded");
      expect(exported.lastExport.message).toMatch(
        /^1 page\(s\) were edited both in Git and in Quire .*"Guide" \(guide\.md\)\. Git's file is left as it is in the branch/,
      );
      let files = readRepoFiles(repo.dir);
      expect(String(files.get("guide.md"))).toBe(gitGuide);
      expect(String(files.get("other.md"))).toBe("# Other\n\nChanged in Git.\n");
      expect(String(files.get("README.md"))).toContain("Welcome, from Quire.");
      // A page Git added since (and the image it uses) stays, listed where Git put it.
      expect(String(files.get("added.md"))).toBe(added);
      expect(files.has(".gitbook/assets/pic.png")).toBe(true);
      expect(String(files.get("SUMMARY.md"))).toMatch(/\* \[Other\]\(other\.md\)\n\* \[Added\]\(added\.md\)/);

      // The next import brings Git's change of the other page, and the conflict stays open.
      const imported = await sync(owner, space.id, "import", repo.url);
      expect(imported.lastImport.message).toMatch(/"Guide" \(guide\.md\)/);
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, await pageId(owner, space.id, "Other"))).toEqual(["Changed in Git."]);
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, home)).toEqual(["Welcome, from Quire."]);
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, await pageId(owner, space.id, "Added"))).toEqual([
        "A page added in Git.",
        "",
      ]);

      // Keeping Quire's version: the export then writes it.
      const browser = await WebClient.signedIn(ctx, owner);
      const page = await conflictPage(org.id, space.id, browser);
      const res = await browser.post(`/app/o/${org.id}/s/${space.id}/git/conflicts/${guide}`, {
        _csrf: WebClient.csrfOf(page),
        keep: "quire",
      });
      expect(res.status).toBe(303);
      await sync(owner, space.id, "export", repo.url);
      files = readRepoFiles(repo.dir);
      expect(String(files.get("guide.md"))).toContain("Second, by Quire.");
      expect(String(files.get("other.md"))).toBe("# Other\n\nChanged in Git.\n");
    } finally {
      repo.cleanup();
    }
  });

  it("a page Git moved (or deleted) and Quire edited is kept as a conflict; keeping Quire's puts its text where Git moved the file", async () => {
    const { owner, org, space, repo, guide } = await synced();
    try {
      await editInQuire(owner, space.id, guide, "# Guide\n\nFirst paragraph.\n\nSecond, by Quire.\n\nThird paragraph.\n");
      moveGuideInGit(repo.dir);
      const info = await sync(owner, space.id, "import", repo.url);
      expect(info.lastImport.status).toBe("succeeded");
      expect(info.lastImport.message).toMatch(/"Guide" \(guide\.md\)/);
      const state = await readGitSyncState(ctx.db, space.id);
      const movedId = flatten((await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body.pages).find(
        (p: Page) => p.title === "Guide" && p.id !== guide,
      )?.id;
      expect(state?.conflicts).toMatchObject([
        { pageId: guide, kind: "deleted-in-git", movedTo: { pageId: movedId, path: "guides/guide.md" } },
      ]);
      // Quire's edit is still in the space, beside Git's moved page.
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, guide)).toContain("Second, by Quire.");

      const browser = await WebClient.signedIn(ctx, owner);
      const page = await conflictPage(org.id, space.id, browser);
      expect(page).toMatch(/data-kind="moved-in-git">Git moved this page.{1,6}s file to <code>guides\/guide\.md<\/code>/);
      const res = await browser.post(`/app/o/${org.id}/s/${space.id}/git/conflicts/${guide}`, {
        _csrf: WebClient.csrfOf(page),
        keep: "quire",
      });
      expect(res.status).toBe(303);
      const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body as { pages: Page[] };
      expect(flatten(content.pages).map((p) => p.id)).not.toContain(guide);
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, movedId!)).toContain("Second, by Quire.");
      await sync(owner, space.id, "export", repo.url);
      const files = readRepoFiles(repo.dir);
      expect(String(files.get("guides/guide.md"))).toContain("Second, by Quire.");
      expect(files.has("guide.md")).toBe(false);
    } finally {
      repo.cleanup();
    }
  });

  async function conflictPage(org: string, spaceId: string, browser: WebClient) {
    const res = await browser.get(`/app/o/${org}/s/${spaceId}/git/conflicts`);
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    return res.text;
  }

  it("keeping Git's version in the web app makes it a revision, closes the conflict, and the next export writes it", async () => {
    const { owner, org, space, repo, guide } = await synced();
    try {
      await editInQuire(owner, space.id, guide, "# Guide\n\nFirst paragraph.\n\nQuire's second.\n\nThird paragraph.\n");
      commitFiles(repo.dir, { "guide.md": "# Guide\n\nFirst paragraph.\n\nGit's second.\n\nThird paragraph.\n" });
      await sync(owner, space.id, "import", repo.url);
      const browser = await WebClient.signedIn(ctx, owner);
      const page = await conflictPage(org.id, space.id, browser);
      expect(page).toContain("Git conflicts");
      expect(page).toContain("guide.md");
      expect(page).toContain("Quire&#39;s second.");
      expect(page).toContain("Git&#39;s second.");
      const revision = /name="revision" value="([^"]+)"/.exec(page)?.[1] ?? "";
      const res = await browser.post(`/app/o/${org.id}/s/${space.id}/git/conflicts/${guide}`, {
        _csrf: WebClient.csrfOf(page),
        keep: "git",
        revision,
      });
      expect(res.status, res.text.slice(0, 300)).toBe(303);
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, guide)).toEqual([
        "First paragraph.",
        "Git's second.",
        "Third paragraph.",
      ]);
      const info = (await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body;
      expect(info.lastImport.message).toMatch(/Every Git conflict is resolved/);
      expect((await readGitSyncState(ctx.db, space.id))?.conflicts).toEqual([]);
      expect(await conflictPage(org.id, space.id, browser)).toContain("No page is in conflict");

      // Resolving again: nothing to resolve (404), the revision the page showed is stale (no second revision).
      const twice = await browser.post(`/app/o/${org.id}/s/${space.id}/git/conflicts/${guide}`, {
        _csrf: WebClient.csrfOf(page),
        keep: "quire",
      });
      expect(twice.status).toBe(404);

      await sync(owner, space.id, "export", repo.url);
      expect(String(readRepoFiles(repo.dir).get("guide.md"))).toContain("Git's second.");
      // Git's side and Quire's now agree: the next import changes nothing and finds no conflict.
      commitFiles(repo.dir, { "other.md": "# Other\n\nLater.\n" });
      const later = await sync(owner, space.id, "import", repo.url);
      expect(later.lastImport.message).toBeUndefined();
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, guide)).toEqual([
        "First paragraph.",
        "Git's second.",
        "Third paragraph.",
      ]);
    } finally {
      repo.cleanup();
    }
  });

  it("a merge takes each side's own edits and, for a block both changed, the side chosen", async () => {
    const { owner, org, space, repo, guide } = await synced();
    try {
      await editInQuire(owner, space.id, guide, "# Guide\n\nFirst, by Quire.\n\nSecond, by Quire.\n\nThird paragraph.\n");
      commitFiles(repo.dir, { "guide.md": "# Guide\n\nFirst paragraph.\n\nSecond, by Git.\n\nThird, by Git.\n" });
      await sync(owner, space.id, "import", repo.url);
      const browser = await WebClient.signedIn(ctx, owner);
      const page = await conflictPage(org.id, space.id, browser);
      const blocks = [...page.matchAll(/name="block\.([^"]+)" value="git"/g)].map((m) => m[1] as string);
      expect(blocks).toHaveLength(1);
      const res = await browser.post(`/app/o/${org.id}/s/${space.id}/git/conflicts/${guide}`, {
        _csrf: WebClient.csrfOf(page),
        keep: "merge",
        [`block.${blocks[0]}`]: "git",
      });
      expect(res.status, res.text.slice(0, 300)).toBe(303);
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, guide)).toEqual([
        "First, by Quire.",
        "Second, by Git.",
        "Third, by Git.",
      ]);
      await sync(owner, space.id, "export", repo.url);
      expect(String(readRepoFiles(repo.dir).get("guide.md"))).toBe("# Guide\n\nFirst, by Quire.\n\nSecond, by Git.\n\nThird, by Git.\n");
    } finally {
      repo.cleanup();
    }
  });

  // trunk-io/docs: `.gitbook/includes/slack-callout.md`, included by its pages as below.
  const CALLOUT = `---\ntitle: Slack callout\n---\n\n\n\n{% hint style="success" %}\nWant to chat with Trunk's engineers? Join us and 1500+ fellow engineers [on Slack](https://slack.trunk.io/).\n{% endhint %}\n`;

  /** The space's primary content now. */
  async function primaryContent(spaceId: string) {
    const space = await ctx.db.selectFrom("spaces").select(["revisionId"]).where("id", "=", spaceId).executeTakeFirstOrThrow();
    const revision = await getSpaceRevision(ctx.db, spaceId, space.revisionId);
    return { revisionId: space.revisionId, content: await loadContent(ctx.db, revision?.treeHash ?? null) };
  }

  /** The texts of a reusable content's document as the space holds it. */
  async function includeText(spaceId: string): Promise<string> {
    const { content } = await primaryContent(spaceId);
    const document = await loadDocument(ctx.db, content.reusableContents[0]?.documentHash ?? "");
    return JSON.stringify(document);
  }

  /** Edits the space's reusable content in Quire: a new primary revision whose include holds `markdown`. */
  async function editIncludeInQuire(spaceId: string, markdown: string) {
    const { revisionId, content } = await primaryContent(spaceId);
    // Edited in place, as the editor does: the blocks keep their keys.
    const previous = await loadDocument<JSONDocument>(ctx.db, content.reusableContents[0]!.documentHash!);
    const hash = await saveDocument(ctx.db, parseMarkdownPage(markdown, { previous }).document);
    await ctx.db.transaction().execute((trx) =>
      commitRevision(trx, {
        spaceId,
        parents: [revisionId],
        type: "edits",
        content: { ...content, reusableContents: content.reusableContents.map((r) => ({ ...r, documentHash: hash })) },
        createdBy: null,
        movePrimaryFrom: revisionId,
      }),
    );
  }

  it("an include edited in Git and in Quire is a conflict, like a page: the import keeps Quire's, the export Git's file, until a person chooses", async () => {
    const setup = await createOrgWithSpace(ctx, { title: "Includes" });
    const { owner, org, space } = setup;
    const repo = createBareRepo({
      ...FILES,
      "guide.md": `# Guide\n\nFirst paragraph.\n\n{% include ".gitbook/includes/slack-callout.md" %}\n`,
      ".gitbook/includes/slack-callout.md": CALLOUT,
    });
    try {
      expect((await sync(owner, space.id, "import", repo.url)).lastImport.status).toBe("succeeded");
      const includeId = (await primaryContent(space.id)).content.reusableContents[0]!.id;
      await editIncludeInQuire(space.id, CALLOUT.replace("Want to chat", "Want to talk"));
      const gitCallout = CALLOUT.replace("1500+", "2000+");
      commitFiles(repo.dir, { ".gitbook/includes/slack-callout.md": gitCallout, "other.md": "# Other\n\nChanged in Git.\n" });

      const info = await sync(owner, space.id, "import", repo.url);
      expect(info.lastImport.message).toMatch(/^1 page\(s\) were edited both .*"Slack callout" \(\.gitbook\/includes\/slack-callout\.md\)/);
      // Quire's version is kept (not overwritten by Git's), the rest of the import applied.
      expect(await includeText(space.id)).toContain("Want to talk");
      expect(await includeText(space.id)).not.toContain("2000+");
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, await pageId(owner, space.id, "Other"))).toEqual(["Changed in Git."]);
      expect((await readGitSyncState(ctx.db, space.id))?.conflicts).toMatchObject([
        { pageId: includeId, target: "include", path: ".gitbook/includes/slack-callout.md", direction: "import" },
      ]);

      // The export leaves Git's file in the branch (not overwritten by Quire's either).
      await sync(owner, space.id, "export", repo.url);
      expect(String(readRepoFiles(repo.dir).get(".gitbook/includes/slack-callout.md"))).toBe(gitCallout);

      const browser = await WebClient.signedIn(ctx, owner);
      const page = await conflictPage(org.id, space.id, browser);
      expect(page).toContain('data-target="include"');
      expect(page).toMatch(/data-kind="include">This reusable content/);
      expect(page).toContain("2000+");
      expect(page).toContain("Want to talk");
      const res = await browser.post(`/app/o/${org.id}/s/${space.id}/git/conflicts/${includeId}`, {
        _csrf: WebClient.csrfOf(page),
        keep: "merge",
      });
      expect(res.status, res.text.slice(0, 300)).toBe(303);
      // The merge holds both sides' edits of the one hint... or Quire's for the block both changed.
      expect(await includeText(space.id)).toContain("Want to talk");
      expect((await readGitSyncState(ctx.db, space.id))?.conflicts).toEqual([]);
      await sync(owner, space.id, "export", repo.url);
      expect(String(readRepoFiles(repo.dir).get(".gitbook/includes/slack-callout.md"))).toContain("Want to talk");
    } finally {
      repo.cleanup();
    }
  });

  it("an export keeps a page Quire deleted that Git edited (deleted-in-quire), and Git's edit of a page Quire moved", async () => {
    const { owner, org, space, repo, guide } = await synced();
    try {
      const other = await pageId(owner, space.id, "Other");
      const home = await pageId(owner, space.id, "Home");
      const cr = await createChangeRequest(ctx, owner, space.id);
      await editContent(ctx, owner, space.id, cr.id, [
        { operation: "delete_page", page: other },
        { operation: "update_page", page: guide, into: home },
      ]);
      await mergeChangeRequest(ctx, owner, space.id, cr.id);
      const gitOther = "# Other\n\nEdited in Git.\n";
      const gitGuide = "# Guide\n\nFirst paragraph, edited in Git.\n\nSecond paragraph.\n\nThird paragraph.\n";
      commitFiles(repo.dir, { "other.md": gitOther, "guide.md": gitGuide });

      const exported = await sync(owner, space.id, "export", repo.url);
      expect(exported.lastExport.status).toBe("succeeded");
      expect(exported.lastExport.message).toMatch(/"Other" \(other\.md\)\. Git's file is left as it is in the branch/);
      let files = readRepoFiles(repo.dir);
      // Git's edit of the page Quire deleted stays, listed where Git has it.
      expect(String(files.get("other.md"))).toBe(gitOther);
      expect(String(files.get("SUMMARY.md"))).toContain("* [Other](other.md)");
      // The page Quire moved is listed where Quire put it, its file Git's.
      expect(String(files.get("guide.md"))).toBe(gitGuide);
      expect(String(files.get("SUMMARY.md"))).toMatch(/\* \[Home\]\(README\.md\)\n {2}\* \[Guide\]\(guide\.md\)/);
      expect((await readGitSyncState(ctx.db, space.id))?.conflicts).toMatchObject([
        { pageId: other, kind: "deleted-in-quire", direction: "export", quire: "" },
      ]);

      // The conflicts page says Quire deleted it; nothing is lost by a second export either.
      const browser = await WebClient.signedIn(ctx, owner);
      const page = await conflictPage(org.id, space.id, browser);
      expect(page).toMatch(/data-kind="deleted-in-quire">Quire deleted this page and Git edited its file/);
      expect(page).toContain("found by an export");
      await sync(owner, space.id, "export", repo.url);
      files = readRepoFiles(repo.dir);
      expect(String(files.get("other.md"))).toBe(gitOther);

      // Keeping Git's version brings the page back into the space; the next export keeps its file.
      const res = await browser.post(`/app/o/${org.id}/s/${space.id}/git/conflicts/${other}`, {
        _csrf: WebClient.csrfOf(page),
        keep: "git",
      });
      expect(res.status, res.text.replace(/<style[\s\S]*?<\/style>/g, "").slice(0, 3000)).toBe(303);
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, other)).toEqual(["Edited in Git."]);
      await sync(owner, space.id, "export", repo.url);
      files = readRepoFiles(repo.dir);
      expect(String(files.get("other.md"))).toBe(gitOther);
      expect(String(files.get("SUMMARY.md"))).toContain("* [Other](other.md)");
      // The next import brings Git's edit of the page Quire moved, where Quire moved it.
      expect((await sync(owner, space.id, "import", repo.url)).lastImport.message).toBeUndefined();
      const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body as { pages: Page[] };
      expect(content.pages.find((p) => p.id === home)?.pages?.map((p) => p.id)).toEqual([guide]);
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, guide)).toContain("First paragraph, edited in Git.");
    } finally {
      repo.cleanup();
    }
  });

  it("an export to a branch where Git deleted a page Quire edited leaves it deleted there (deleted-in-git) and keeps Quire's page", async () => {
    const { owner, org, space, repo, guide } = await synced();
    try {
      await editInQuire(owner, space.id, guide, "# Guide\n\nFirst paragraph.\n\nSecond, by Quire.\n\nThird paragraph.\n");
      // Git deletes guide.md (edited in Quire) and other.md (not edited in Quire).
      commitFiles(
        repo.dir,
        { "README.md": FILES["README.md"], "SUMMARY.md": "# Table of contents\n\n* [Home](README.md)\n" },
        { replace: true },
      );
      const exported = await sync(owner, space.id, "export", repo.url);
      expect(exported.lastExport.message).toMatch(/"Guide" \(guide\.md\)/);
      let files = readRepoFiles(repo.dir);
      expect(files.has("guide.md")).toBe(false);
      expect(files.has("other.md")).toBe(false);
      expect(String(files.get("SUMMARY.md"))).toBe("# Table of contents\n\n* [Home](README.md)\n");
      expect((await readGitSyncState(ctx.db, space.id))?.conflicts).toMatchObject([
        { pageId: guide, kind: "deleted-in-git", direction: "export", git: "" },
      ]);
      // Quire's edit is still in the space.
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, guide)).toContain("Second, by Quire.");

      // The next import keeps the conflict (and Quire's page), and deletes the page Quire did not edit.
      const imported = await sync(owner, space.id, "import", repo.url);
      expect(imported.lastImport.message).toMatch(/"Guide" \(guide\.md\)/);
      const titles = flatten((await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body.pages).map((p: Page) => p.title);
      expect(titles).toEqual(["Home", "Guide"]);

      // Keeping Quire's version: the export then writes the page back.
      const browser = await WebClient.signedIn(ctx, owner);
      const page = await conflictPage(org.id, space.id, browser);
      expect(page).toMatch(/data-kind="deleted-in-git">Git deleted this page/);
      const res = await browser.post(`/app/o/${org.id}/s/${space.id}/git/conflicts/${guide}`, {
        _csrf: WebClient.csrfOf(page),
        keep: "quire",
      });
      expect(res.status).toBe(303);
      await sync(owner, space.id, "export", repo.url);
      files = readRepoFiles(repo.dir);
      expect(String(files.get("guide.md"))).toContain("Second, by Quire.");
    } finally {
      repo.cleanup();
    }
  });

  it("an export that finds Git moved a page Quire edited shows Git's moved text; keeping Quire's writes it to the new file, one page after the next import", async () => {
    const { owner, org, space, repo, guide } = await synced();
    try {
      await editInQuire(owner, space.id, guide, "# Guide\n\nFirst paragraph.\n\nSecond, by Quire.\n\nThird paragraph.\n");
      moveGuideInGit(repo.dir);
      await sync(owner, space.id, "export", repo.url);
      let files = readRepoFiles(repo.dir);
      expect(files.has("guide.md")).toBe(false);
      expect(String(files.get("guides/guide.md"))).toBe(FILES["guide.md"]);
      const [conflict] = (await readGitSyncState(ctx.db, space.id))?.conflicts ?? [];
      expect(conflict).toMatchObject({ pageId: guide, kind: "deleted-in-git", direction: "export", movedTo: { path: "guides/guide.md" } });
      expect(conflict?.git).not.toBe("");

      // Git's side is the moved file's text: Git changed nothing of it (not "every block removed").
      const browser = await WebClient.signedIn(ctx, owner);
      const page = await conflictPage(org.id, space.id, browser);
      expect(page).toMatch(/data-kind="moved-in-git">Git moved this page.{1,6}s file to <code>guides\/guide\.md<\/code>/);
      const at = page.indexOf('data-side="git"');
      const gitSide = page.slice(at, page.indexOf("</div>", at));
      expect(gitSide).toContain("Nothing.");
      expect(gitSide).not.toContain('data-kind="removed"');

      const res = await browser.post(`/app/o/${org.id}/s/${space.id}/git/conflicts/${guide}`, {
        _csrf: WebClient.csrfOf(page),
        keep: "quire",
      });
      expect(res.status, res.text.replace(/<style[\s\S]*?<\/style>/g, "").slice(0, 2000)).toBe(303);
      expect((await readGitSyncState(ctx.db, space.id))?.conflicts ?? []).toEqual([]);
      await sync(owner, space.id, "export", repo.url);
      files = readRepoFiles(repo.dir);
      expect(files.has("guide.md")).toBe(false);
      expect(String(files.get("guides/guide.md"))).toContain("Second, by Quire.");
      expect(String(files.get("SUMMARY.md"))).toContain("(guides/guide.md)");
      // Git then edits another page; the import finds the moved file as this same page.
      commitFiles(repo.dir, { "other.md": "# Other\n\nEdited in Git.\n" });
      const imported = await sync(owner, space.id, "import", repo.url);
      expect(imported.lastImport.status).toBe("succeeded");
      expect(imported.lastImport.message).toBeUndefined();
      const pages = flatten((await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body.pages);
      expect(pages.filter((p: Page) => p.title === "Guide").map((p: Page) => p.id)).toEqual([guide]);
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, guide)).toContain("Second, by Quire.");
    } finally {
      repo.cleanup();
    }
  });

  it("refuses what may not resolve: other organizations (404), readers (403), bad choices (400), a stale view (409)", async () => {
    const { owner, org, space, repo, guide, members, outsider } = await synced();
    try {
      await editInQuire(owner, space.id, guide, "# Guide\n\nQuire.\n");
      commitFiles(repo.dir, { "guide.md": "# Guide\n\nGit.\n" });
      await sync(owner, space.id, "import", repo.url);
      const url = `/app/o/${org.id}/s/${space.id}/git/conflicts/${guide}`;

      const reader = await WebClient.signedIn(ctx, members.read);
      const readerPage = await conflictPage(org.id, space.id, reader);
      expect(readerPage).toContain("Only members who can edit this space can resolve");
      expect((await reader.post(url, { _csrf: WebClient.csrfOf(readerPage), keep: "git" })).status).toBe(403);

      // A member of another organization, with a valid form token of their own.
      const other = await createOrgWithSpace(ctx, { title: "Theirs" });
      const stranger = await WebClient.signedIn(ctx, other.owner);
      const theirs = await stranger.get(`/app/o/${other.org.id}/s/${other.space.id}/git/conflicts`);
      expect(theirs.status).toBe(200);
      expect((await stranger.post(url, { _csrf: WebClient.csrfOf(theirs.text), keep: "git" })).status).toBe(404);
      expect((await stranger.get(`/app/o/${org.id}/s/${space.id}/git/conflicts`)).status).toBe(404);
      // Their own space's address with this page's id: no conflict of theirs has it.
      const cross = `/app/o/${other.org.id}/s/${other.space.id}/git/conflicts/${guide}`;
      expect((await stranger.post(cross, { _csrf: WebClient.csrfOf(theirs.text), keep: "git" })).status).toBe(404);
      void outsider;

      const browser = await WebClient.signedIn(ctx, owner);
      const page = await conflictPage(org.id, space.id, browser);
      const csrf = WebClient.csrfOf(page);
      expect((await browser.post(url, { _csrf: csrf, keep: "theirs" })).status).toBe(400);
      expect((await browser.post(url, { _csrf: csrf, keep: "merge", "block.x": "both" })).status).toBe(400);
      expect((await browser.post(`/app/o/${org.id}/s/${space.id}/git/conflicts/nosuchpage`, { _csrf: csrf, keep: "git" })).status).toBe(
        404,
      );
      await editInQuire(owner, space.id, await pageId(owner, space.id, "Other"), "# Other\n\nMeanwhile.\n");
      const revision = /name="revision" value="([^"]+)"/.exec(page)?.[1] ?? "";
      expect((await browser.post(url, { _csrf: csrf, keep: "git", revision })).status).toBe(409);
      expect(await pageTexts(ctx, owner, `/v1/spaces/${space.id}`, guide)).toEqual(["Quire."]);
    } finally {
      repo.cleanup();
    }
  });
});
