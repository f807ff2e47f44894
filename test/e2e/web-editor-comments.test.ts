/**
 * Inline comments in Chromium, two editors live on one page (collaboration on): words selected by
 * one and commented on (the selection bubble, or Ctrl-Alt-M) are highlighted for both with the
 * thread in the side panel; text typed before them by the other keeps the highlight on the same
 * words; replies to it and to a block comment, written in the panel, reach both; resolving hides
 * it for both. QUIRE_SCREENSHOTS_DIR=<dir> keeps screenshots, light and dark.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext, TestUser } from "../helpers/app.js";
import { createChangeRequest } from "../helpers/change-requests.factories.js";
import { commitContent } from "../helpers/content.factories.js";
import { openEditor, selectText } from "../helpers/editor-e2e.js";
import { lighthouseDocs, startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

let e2e: WebE2E;
let ctx: TestContext;
let base: string;
let orgId: string;
let spaceId: string;
let owner: TestUser;
let writer: TestUser;

beforeAll(async () => {
  e2e = await startWebE2E();
  ({ ctx, base } = e2e);
  ({ owner, writer, orgId, spaceId } = await lighthouseDocs(ctx));
}, 120_000);

afterAll(async () => {
  await e2e?.close();
});

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

const highlighted = (page: Page) => page.locator(".qe-editor .qe-commented");

/** The words each highlight covers (a highlight split by other marks is one comment's several pieces). */
async function highlightedWords(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const words: Record<string, string> = {};
    for (const element of Array.from(document.querySelectorAll<HTMLElement>(".qe-editor .qe-commented"))) {
      const id = element.dataset.comment ?? "";
      words[id] = (words[id] ?? "") + element.textContent;
    }
    return words;
  });
}

/** The text of the document's paragraphs, from the editor's state (the DOM also shows the others' named cursors). */
const hasParagraph = (page: Page, text: string) =>
  expect
    .poll(
      () =>
        page.evaluate((wanted) => {
          const texts: string[] = [];
          (window as any).quireEditor.editor.state.doc.descendants((node: { isTextblock: boolean; textContent: string }) => {
            if (node.isTextblock) texts.push(node.textContent);
            return !node.isTextblock;
          });
          return texts.includes(wanted);
        }, text),
      { timeout: 30_000 },
    )
    .toBe(true);

/** Puts the caret at the start of the paragraph holding `text`, checked in the editor's state. */
async function caretAtStartOf(page: Page, text: string): Promise<void> {
  await expect
    .poll(
      async () => {
        await page.locator(".qe-editor p", { hasText: text }).click();
        await page.keyboard.press("Home");
        return page.evaluate(() => {
          const { selection } = (window as any).quireEditor.editor.state;
          return selection.empty && selection.$from.parentOffset === 0 ? selection.$from.parent.textContent : "";
        });
      },
      { timeout: 20_000 },
    )
    .toContain(text);
}

describe("inline comments in the block editor", () => {
  it("a comment on selected words is seen by the other editor, stays on its words while text is typed before them, and resolving hides it", async () => {
    const { content } = await commitContent(ctx, spaceId, {
      pages: [{ title: "Keeping", slug: "keeping", paragraphs: ["The keeper lights the lamp at dusk.", "Oil is kept in the shed."] }],
    });
    const pageId = content.pages[0]!.id;
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Comments" });
    const editUrl = `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/p/${pageId}/edit`;
    const open = async (user: TestUser) => {
      const { page } = await e2e.signIn(user);
      await openEditor(page, editUrl);
      await page.locator(".qe-editor p", { hasText: "The keeper lights the lamp" }).waitFor({ timeout: 30_000 });
      // Editable once the server's document is in: then the panel has loaded the (no) threads.
      await page.locator('.qe-editor[contenteditable="true"]').waitFor({ timeout: 30_000 });
      await page.locator(".qe-comments h2", { hasText: "Comments" }).waitFor();
      return page;
    };
    const a = await open(writer);
    const b = await open(owner);
    const problemsA = watchProblems(a);
    const problemsB = watchProblems(b);

    // A selects words: the bubble offers a comment; the composer quotes them.
    await selectText(a, "lights the lamp");
    const bubble = a.locator(".qe-comment-bubble");
    await bubble.waitFor({ state: "visible" });
    await e2e.shot(a, "editor-comment-bubble");
    await bubble.click();
    const composer = a.locator(".qe-comment-composer");
    await expect.poll(() => composer.locator(".qe-thread-quote").textContent()).toBe("lights the lamp");
    await composer.getByLabel("Comment", { exact: true }).fill("Trim the wick first.");
    await e2e.shot(a, "editor-comment-composer");
    await composer.getByRole("button", { name: "Comment" }).click();
    await composer.waitFor({ state: "detached" });

    // Both see the highlight on the same words, and the thread in the panel.
    for (const page of [a, b]) {
      await highlighted(page).first().waitFor({ timeout: 30_000 });
      await expect.poll(() => highlightedWords(page).then((w) => Object.values(w))).toEqual(["lights the lamp"]);
      const thread = page.locator(".qe-comments .qe-thread-open");
      await thread.waitFor({ timeout: 30_000 });
      await expect.poll(() => thread.locator(".qe-thread-body").textContent()).toBe("Trim the wick first.\n");
      expect(await thread.locator(".qe-thread-quote").textContent()).toBe("lights the lamp");
      expect(await thread.locator(".qe-thread-meta strong").textContent()).toBe("Wren Writer");
    }
    await e2e.shot(b, "editor-comment-seen-light");
    const { page: dark } = await e2e.signIn(owner, { colorScheme: "dark" });
    await openEditor(dark, editUrl);
    await highlighted(dark).first().waitFor({ timeout: 30_000 });
    await dark.locator(".qe-comments .qe-thread-open").waitFor();
    await e2e.shot(dark, "editor-comment-seen-dark");
    await dark.context().close();

    // Stored as a comment on the paragraph, as the API shows it.
    const listed = await ctx.as(owner).get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/comments`);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0].target.page).toEqual({ id: pageId });

    // B replies from the panel (Ctrl-Enter); A sees the reply under the thread, as does the API.
    const threadB = b.locator(".qe-comments .qe-thread-open");
    await threadB.getByLabel("Reply to Wren Writer").fill("Done, and the lens polished.");
    await threadB.getByLabel("Reply to Wren Writer").press("Control+Enter");
    for (const page of [a, b]) {
      await expect
        .poll(() => page.locator(".qe-comments .qe-thread-open .qe-thread-reply .qe-thread-body").allTextContents(), { timeout: 30_000 })
        .toEqual(["Done, and the lens polished.\n"]);
    }
    expect(await threadB.getByLabel("Reply to Wren Writer").inputValue()).toBe("");
    const replies = await ctx.as(owner).get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/comments/${listed.body.items[0].id}/replies`);
    expect(replies.body.items.map((r: { postedBy: { displayName: string } }) => r.postedBy.displayName)).toEqual(["Olive Owner"]);

    // A comment on the block (made through the API) is listed with its replies box: A replies with the button.
    const paragraphKey = listed.body.items[0].target.node.id as string;
    const onBlock = await ctx.as(owner).post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/comments`, {
      body: { markdown: "Is oil kept dry?" },
      page: pageId,
      node: paragraphKey,
    });
    expect(onBlock.status, JSON.stringify(onBlock.body)).toBe(200);
    // The API does not tell the editors: A's panel shows it once it fetches the threads (on the reply's signal, or a reload).
    await a.reload();
    await a.locator('.qe-editor[contenteditable="true"]').waitFor({ timeout: 30_000 });
    const blockThread = a.locator(".qe-comments .qe-thread", { hasText: "Is oil kept dry?" });
    await blockThread.waitFor({ timeout: 30_000 });
    expect(await blockThread.locator(".qe-thread-on").textContent()).toBe("On a block of this page");
    // An empty reply is refused in place, without a request.
    await blockThread.getByRole("button", { name: "Reply" }).click();
    await expect.poll(() => blockThread.locator(".qe-comment-error").textContent()).toBe("Write a reply first.");
    await blockThread.getByLabel("Reply to Olive Owner").fill("Yes, in sealed tins.");
    await e2e.shot(a, "editor-comment-reply");
    await blockThread.getByRole("button", { name: "Reply" }).click();
    for (const page of [a, b]) {
      await expect
        .poll(
          () =>
            page
              .locator(".qe-comments .qe-thread", { hasText: "Is oil kept dry?" })
              .locator(".qe-thread-reply .qe-thread-body")
              .allTextContents(),
          { timeout: 30_000 },
        )
        .toEqual(["Yes, in sealed tins.\n"]);
    }
    await e2e.shot(b, "editor-comment-replies-seen");
    expect(await axeViolations(b)).toEqual([]);

    // B types before the words (and A after them): the highlight stays on the same words in both.
    await caretAtStartOf(b, "The keeper lights");
    await b.keyboard.type("At night, ");
    await hasParagraph(a, "At night, The keeper lights the lamp at dusk.");
    for (const page of [a, b]) {
      await expect.poll(() => highlightedWords(page).then((w) => Object.values(w)), { timeout: 30_000 }).toEqual(["lights the lamp"]);
    }
    await selectText(a, "at dusk");
    await a.keyboard.press("ArrowRight");
    await a.keyboard.type(" and dawn");
    await hasParagraph(b, "At night, The keeper lights the lamp at dusk and dawn.");
    await selectText(b, "keeper");
    await b.keyboard.press("ArrowLeft");
    await b.keyboard.type("old ");
    for (const page of [a, b]) {
      await hasParagraph(page, "At night, The old keeper lights the lamp at dusk and dawn.");
      await expect.poll(() => highlightedWords(page).then((w) => Object.values(w)), { timeout: 30_000 }).toEqual(["lights the lamp"]);
    }

    // Ctrl-Alt-M opens the composer on a selection too; Escape closes it without a comment.
    await selectText(b, "the shed");
    await b.keyboard.press("Control+Alt+m");
    const composerB = b.locator(".qe-comment-composer");
    await expect.poll(() => composerB.locator(".qe-thread-quote").textContent()).toBe("the shed");
    await b.keyboard.press("Escape");
    await composerB.waitFor({ state: "detached" });

    // B resolves the inline thread: the highlight goes in both, the thread is listed as resolved.
    await b.locator(".qe-comments .qe-thread-open", { hasText: "Trim the wick first." }).getByRole("button", { name: "Resolve" }).click();
    for (const page of [a, b]) {
      await highlighted(page).first().waitFor({ state: "detached", timeout: 30_000 });
      await page.locator(".qe-comments .qe-resolved summary", { hasText: "Resolved (1)" }).waitFor({ timeout: 30_000 });
    }
    const stored = await ctx.as(owner).get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/comments/${listed.body.items[0].id}`);
    expect(stored.body.status).toBe("resolved");
    await e2e.shot(a, "editor-comment-resolved");
    expect(problemsA).toEqual([]);
    expect(problemsB).toEqual([]);
  }, 240_000);
});
