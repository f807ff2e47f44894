/**
 * The block editor's tools in Chromium against the real server: the link dialog (web address,
 * page, heading; editing and removing a link; refused addresses), code highlighted as the writer
 * types, KaTeX previews of math (and its errors), the emoji picker. Each saves, and the saved
 * document holds what the GitBook document model says. And a new space from the "Getting started" template. QUIRE_SCREENSHOTS_DIR=<dir> keeps screenshots.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import type { JSONDocument } from "../../src/content/document/types.js";
import { saveDocument } from "../../src/content/revision/storage.js";
import type { TestContext, TestUser } from "../helpers/app.js";
import { createChangeRequest } from "../helpers/change-requests.factories.js";
import { commitContent } from "../helpers/content.factories.js";
import { caretAtEndOf, insertBlock, openEditor, selectText } from "../helpers/editor-e2e.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { createSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

let e2e: WebE2E;
let ctx: TestContext;
let base: string;
let orgId: string;
let spaceId: string;
let owner: TestUser;
let writer: TestUser;
const ids: Record<string, string> = {};

const text = (value: string) => ({ object: "text", leaves: [{ object: "leaf", text: value, marks: [] }] });
const block = (type: string, value: string) => ({ object: "block", type, data: {}, nodes: [text(value)] });

beforeAll(async () => {
  e2e = await startWebE2E({ collab: { ...loadConfig({}).collab, enabled: false } });
  ({ ctx, base } = e2e);
  owner = await createUser(ctx, { displayName: "Owner" });
  orgId = (await createOrganization(ctx, owner, "Lighthouse Docs")).id;
  writer = await createUser(ctx, { displayName: "Wren Writer" });
  await addMemberToOrg(ctx, orgId, writer, "edit");
  spaceId = (await createSpace(ctx, owner, orgId, { title: "Handbook" })).id;
  const guide = {
    object: "document",
    data: {},
    nodes: [
      block("heading-1", "Install the lamp"),
      block("paragraph", "Bolt it down."),
      block("heading-2", "Trim the wick"),
      block("paragraph", "Every evening."),
    ],
  } as unknown as JSONDocument;
  const { content } = await commitContent(ctx, spaceId, {
    pages: [
      { title: "Welcome", slug: "welcome", paragraphs: ["Lighthouses guide ships at night.", "Keepers trim the wicks every evening."] },
      { title: "Guide", slug: "guide", extra: { documentHash: await saveDocument(ctx.db, guide) } },
      { title: "Setup", slug: "setup", paragraphs: ["The first setup."] },
      {
        title: "Boats",
        slug: "boats",
        paragraphs: ["Boats."],
        children: [{ title: "Setup", slug: "setup", paragraphs: ["The boats' setup."] }],
      },
    ],
  });
  const [welcome, guidePage, setup, boats] = content.pages;
  ids.welcome = welcome!.id;
  ids.guide = guidePage!.id;
  ids.setup = setup!.id;
  ids.boatSetup = boats!.children[0]!.id;
}, 120_000);

afterAll(async () => {
  await e2e?.close();
});

const waitSaved = (page: Page) => page.locator('#qe-status[data-state="saved"]').waitFor({ timeout: 20_000 });

async function savedDocument(crId: string, pageId: string): Promise<JSONDocument> {
  const res = await ctx.as(owner).get(`/v1/spaces/${spaceId}/change-requests/${crId}/content/page/${pageId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.document as JSONDocument;
}

/** Every inline node of `type` in the document, in reading order. */
function inlines(document: unknown, type: string): Array<{ data: Record<string, unknown>; text: string }> {
  const out: Array<{ data: Record<string, unknown>; text: string }> = [];
  const textOf = (node: unknown): string =>
    JSON.stringify(node)
      .match(/"text":"[^"]*"/g)
      ?.map((t) => JSON.parse(`{${t}}`).text)
      .join("") ?? "";
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== "object") return;
    const n = node as { object?: string; type?: string; data?: Record<string, unknown>; nodes?: unknown };
    if (n.object === "inline" && n.type === type) out.push({ data: n.data ?? {}, text: textOf(n.nodes ?? []) });
    walk(n.nodes);
  };
  walk((document as { nodes: unknown }).nodes);
  return out;
}

const editUrl = (crNumber: number, pageId: string) => `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${crNumber}/p/${pageId}/edit`;

describe("the block editor's tools in Chromium", () => {
  it("links text to a web address, a page and a heading (Mod-K and the / menu), edits and removes links, refuses javascript: addresses", async () => {
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Links" });
    const { page } = await e2e.signIn(writer);
    const problems = watchProblems(page);
    await openEditor(page, editUrl(cr.number, ids.welcome!));
    const editor = page.locator(".qe-editor");
    const dialog = page.locator(".qe-link-dialog");

    // A web address; a javascript: one is refused with the reason.
    await selectText(page, "Lighthouses");
    await page.keyboard.press("Control+k");
    await dialog.waitFor();
    // The dialog has the focus (not the page's search, which Ctrl-K opens elsewhere).
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Web address");
    const address = dialog.getByLabel("Web address");
    await address.fill("javascript:alert(1)");
    await address.press("Enter");
    const error = dialog.locator(".qe-link-error");
    await error.waitFor();
    expect(await error.textContent()).toContain('Links to "javascript:" addresses are not allowed');
    await e2e.shot(page, "editor-link-refused");
    await address.fill("https://example.com/lamps");
    await address.press("Enter");
    await dialog.waitFor({ state: "detached" });
    expect(await editor.locator("a.q-link", { hasText: "Lighthouses" }).getAttribute("href")).toBe("https://example.com/lamps");

    // A page: two pages share the title "Setup", their paths tell them apart.
    await selectText(page, "guide");
    await page.keyboard.press("Control+k");
    await dialog.getByRole("tab", { name: "Page" }).click();
    await dialog.getByLabel("Search pages").fill("setup");
    const options = dialog.locator(".qe-link-list .qe-menu-item");
    await expect.poll(() => options.count()).toBe(2);
    expect(await options.locator(".qe-menu-hint").allTextContents()).toEqual(["/setup", "/boats/setup"]);
    await e2e.shot(page, "editor-link-pages");
    await options.nth(1).dispatchEvent("mousedown");
    await dialog.waitFor({ state: "detached" });

    // A heading of another page (its headings come from the server), and one of this page.
    await selectText(page, "Keepers");
    await page.keyboard.press("Control+k");
    await dialog.getByRole("tab", { name: "Heading" }).click();
    await dialog.getByLabel("Page of the heading").selectOption(ids.guide!);
    const headings = dialog.locator(".qe-link-list .qe-menu-item");
    await expect.poll(() => headings.allTextContents()).toEqual(["Install the lamp# #install-the-lamp", "Trim the wick## #trim-the-wick"]);
    await dialog.getByLabel("Search headings").fill("wick");
    await expect.poll(() => headings.count()).toBe(1);
    await e2e.shot(page, "editor-link-headings");
    await dialog.getByLabel("Search headings").press("Enter");
    await dialog.waitFor({ state: "detached" });

    // The / menu's Link with nothing selected: the link's text is typed in the dialog.
    await caretAtEndOf(page, "every evening.");
    await page.keyboard.press("Enter");
    await page.keyboard.type("See ");
    await insertBlock(page, "link", "Link");
    await dialog.getByLabel("Text of the link").fill("the keepers' mail");
    await dialog.getByLabel("Web address").fill("mailto:keepers@example.com");
    await dialog.getByLabel("Web address").press("Enter");
    await editor.locator("a.q-link", { hasText: "the keepers' mail" }).waitFor();

    // Editing a link: the caret in it, Mod-K shows its address; removing one.
    await selectText(page, "ighthouse");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("Control+k");
    expect(await dialog.getByLabel("Web address").inputValue()).toBe("https://example.com/lamps");
    await dialog.getByLabel("Web address").fill("https://example.org/lamps");
    await dialog.getByLabel("Web address").press("Enter");
    await dialog.waitFor({ state: "detached" });
    await selectText(page, "uid");
    await page.keyboard.press("Control+k");
    await dialog.getByRole("button", { name: "Remove link" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await editor.locator("a.q-link", { hasText: "guide" }).count()).toBe(0);

    await waitSaved(page);
    const links = inlines(await savedDocument(cr.id, ids.welcome!), "link");
    expect(links).toEqual([
      { data: { ref: { kind: "url", url: "https://example.org/lamps" } }, text: "Lighthouses" },
      { data: { ref: { kind: "anchor", anchor: "trim-the-wick", page: ids.guide } }, text: "Keepers" },
      { data: { ref: { kind: "url", url: "mailto:keepers@example.com" } }, text: "the keepers' mail" },
    ]);
    expect(problems).toEqual([]);
  }, 180_000);

  it("links to a page and to a heading of the page being edited", async () => {
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Page links" });
    const { page } = await e2e.signIn(writer);
    const problems = watchProblems(page);
    await openEditor(page, editUrl(cr.number, ids.guide!));
    const dialog = page.locator(".qe-link-dialog");
    await selectText(page, "Bolt");
    await page.keyboard.press("Control+k");
    await dialog.getByRole("tab", { name: "Page" }).click();
    await dialog.getByLabel("Search pages").fill("boats setup");
    await dialog.getByLabel("Search pages").press("Enter");
    await dialog.waitFor({ state: "detached" });
    await selectText(page, "evening");
    await page.keyboard.press("Control+k");
    await dialog.getByRole("tab", { name: "Heading" }).click();
    await dialog.getByLabel("Search headings").fill("install");
    await e2e.shot(page, "editor-link-own-headings");
    await dialog.getByLabel("Search headings").press("Enter");
    await dialog.waitFor({ state: "detached" });
    await waitSaved(page);
    expect(inlines(await savedDocument(cr.id, ids.guide!), "link")).toEqual([
      { data: { ref: { kind: "page", page: ids.boatSetup } }, text: "Bolt" },
      { data: { ref: { kind: "anchor", anchor: "install-the-lamp" } }, text: "evening" },
    ]);
    expect(problems).toEqual([]);
  }, 120_000);

  it("highlights a code block as the writer types, as the site does, without moving the caret", async () => {
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Code" });
    const { page } = await e2e.signIn(writer);
    const problems = watchProblems(page);
    await openEditor(page, editUrl(cr.number, ids.welcome!));
    const editor = page.locator(".qe-editor");
    await caretAtEndOf(page, "Keepers trim");
    await page.keyboard.press("Enter");
    await insertBlock(page, "code", "Code block");
    await editor.getByLabel("Language").fill("js");
    await editor.getByLabel("Language").press("Tab");
    // Into the code line (a click right after other input may leave the focus where it was: clicked until the caret is there).
    await expect
      .poll(
        async () => {
          await editor.locator(".q-code .q-line").click();
          return page.evaluate(() => (window as any).quireEditor.editor.state.selection.$from.parent.type.name);
        },
        { timeout: 20_000 },
      )
      .toBe("codeLine");
    await page.keyboard.type('const beam = "bright"; // lit');
    await page.keyboard.press("Enter");
    await page.keyboard.type("let turns = 3 * 2;");
    const lines = editor.locator(".q-code .q-line");
    expect(await lines.allTextContents()).toEqual(['const beam = "bright"; // lit', "let turns = 3 * 2;"]);
    await expect.poll(() => editor.locator(".q-code .hljs-keyword").allTextContents()).toEqual(["const", "let"]);
    expect(await editor.locator(".q-code .hljs-string").allTextContents()).toEqual(['"bright"']);
    expect(await editor.locator(".q-code .hljs-comment").allTextContents()).toEqual(["// lit"]);
    expect(await editor.locator(".q-code .hljs-number").allTextContents()).toEqual(["3", "2"]);
    // Coloured by the site's stylesheet.
    const keywordColor = await editor
      .locator(".q-code .hljs-keyword")
      .first()
      .evaluate((e) => getComputedStyle(e).color);
    const plainColor = await lines.first().evaluate((e) => getComputedStyle(e).color);
    expect(keywordColor).not.toBe(plainColor);
    // Typing inside a highlighted word: the caret stays where it is.
    // The caret after "let", set through the editor: native Home and arrow moves were seen undone on a
    // loaded machine before the editor read them, which is not what this test is about.
    await page.evaluate(() => {
      const { editor } = (window as any).quireEditor;
      let at = -1;
      editor.state.doc.descendants((node: any, pos: number) => {
        if (at < 0 && node.isTextblock && node.textContent === "let turns = 3 * 2;") at = pos + 1 + 3;
        return at < 0;
      });
      editor.chain().focus().setTextSelection(at).run();
    });
    await page.keyboard.type("xyz");
    await expect.poll(() => lines.allTextContents()).toEqual(['const beam = "bright"; // lit', "letxyz turns = 3 * 2;"]);
    await expect.poll(() => editor.locator(".q-code .hljs-keyword").allTextContents()).toEqual(["const"]);
    await e2e.shot(page, "editor-code-highlighted");
    await waitSaved(page);
    const saved = JSON.stringify(await savedDocument(cr.id, ids.welcome!));
    expect(saved).toContain("letxyz turns = 3 * 2;");
    expect(saved).not.toContain("hljs");
    expect(problems).toEqual([]);
  }, 120_000);

  it("previews block and inline math with KaTeX, and shows KaTeX's message for a formula it cannot read", async () => {
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Math" });
    const { page } = await e2e.signIn(writer);
    const problems = watchProblems(page);
    await openEditor(page, editUrl(cr.number, ids.welcome!));
    const editor = page.locator(".qe-editor");
    await caretAtEndOf(page, "Keepers trim");
    await page.keyboard.press("Enter");
    await insertBlock(page, "math", "Math");
    const formula = editor.getByLabel("Formula (TeX)");
    const preview = editor.locator(".qe-math-preview");
    await formula.click();
    await page.keyboard.type("\\frac{a}{b");
    await preview.locator(".qe-math-error").waitFor();
    expect(await preview.textContent()).toMatch(/expected '}'/);
    await e2e.shot(page, "editor-math-error");
    await page.keyboard.type("} + \\sqrt{2}");
    await preview.locator(".katex-display").waitFor();
    expect(await preview.locator(".qe-math-error").count()).toBe(0);
    expect(await preview.locator("annotation").textContent()).toBe("\\frac{a}{b} + \\sqrt{2}");
    await formula.press("Tab");

    // Inline math from the / menu: its source and preview in a small editor, then shown rendered.
    await caretAtEndOf(page, "Lighthouses guide");
    await page.keyboard.type(" at ");
    await insertBlock(page, "inline", "Inline math");
    const source = page.locator(".qe-math-popover input");
    await source.waitFor();
    await source.pressSequentially("x^{2");
    await page.locator(".qe-math-popover .qe-math-error").waitFor();
    await source.pressSequentially("}");
    await page.locator(".qe-math-popover .katex").waitFor();
    await e2e.shot(page, "editor-math-inline");
    await source.press("Enter");
    await page.locator(".qe-math-popover").waitFor({ state: "detached" });
    await editor.locator(".qe-inline-math .katex").waitFor();
    await waitSaved(page);
    const saved = await savedDocument(cr.id, ids.welcome!);
    expect(inlines(saved, "inline-math").map((n) => n.data)).toEqual([{ formula: "x^{2}" }]);
    expect(JSON.stringify(saved)).toContain('"formula":"\\\\frac{a}{b} + \\\\sqrt{2}"');
    expect(problems).toEqual([]);
  }, 120_000);

  it("inserts an emoji picked from the / menu's searchable picker", async () => {
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Emoji" });
    const { page } = await e2e.signIn(writer);
    const problems = watchProblems(page);
    await openEditor(page, editUrl(cr.number, ids.welcome!));
    const editor = page.locator(".qe-editor");
    await caretAtEndOf(page, "Lighthouses guide");
    await page.keyboard.type(" Lift off ");
    await insertBlock(page, "emoji", "Emoji");
    const picker = page.locator(".qe-emoji-picker");
    await picker.waitFor();
    expect(await picker.locator(".qe-emoji").count()).toBeGreaterThan(100);
    await page.keyboard.type("rock");
    await expect.poll(() => picker.locator(".qe-emoji").allTextContents()).toEqual(["🚀"]);
    await e2e.shot(page, "editor-emoji-picker");
    await page.keyboard.press("Enter");
    await picker.waitFor({ state: "detached" });
    await page.keyboard.type(" now");
    expect(await editor.locator("p", { hasText: "Lift off" }).textContent()).toBe("Lighthouses guide ships at night. Lift off 🚀 now");
    await waitSaved(page);
    expect(inlines(await savedDocument(cr.id, ids.welcome!), "emoji").map((n) => n.data)).toEqual([{ code: "1f680" }]);
    expect(problems).toEqual([]);
  }, 120_000);

  it("creates a space from the Getting started template: the sample pages, ready to edit", async () => {
    const { page } = await e2e.signIn(owner);
    const problems = watchProblems(page);
    await page.goto(`${base}/app/o/${orgId}`);
    await page.getByText("New space").click();
    const form = page.locator("#new-space");
    await form.getByLabel("Title").fill("Keeper's manual");
    await form.getByLabel("Start from").selectOption({ label: "Getting started (sample pages)" });
    await e2e.shot(page, "editor-new-space-template");
    await form.getByRole("button", { name: "Create space" }).click();
    await page.waitForURL(/\/s\/[^/]+$/);
    expect(await page.locator("h1").first().textContent()).toContain("Keeper's manual");
    const main = page.locator("main");
    for (const title of ["Welcome", "Writing pages", "Every kind of block", "The API"]) expect(await main.textContent()).toContain(title);
    await e2e.shot(page, "editor-new-space-from-template");
    expect(problems).toEqual([]);
  }, 120_000);
});
