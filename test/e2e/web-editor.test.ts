/**
 * The block editor in Chromium against the real server: opening a page, typing, the "/" menu,
 * Markdown shortcuts, pasted HTML that must not run, uploads, autosave and reload, a refused save,
 * and "open and save without a change gives the identical document" on the editor model's test
 * documents. QUIRE_SCREENSHOTS_DIR=<dir> keeps screenshots (light and dark, desktop and phone).
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { withHeadingAnchors } from "../../src/content/document/anchor.js";
import type { JSONDocument } from "../../src/content/document/types.js";
import { fromEditorDoc } from "../../src/content/editor/index.js";
import { parseMarkdownPage } from "../../src/content/markdown/parse.js";
import { saveDocument } from "../../src/content/revision/storage.js";
import { FakeRepository } from "../fixtures/markdown/fake-repository.js";
import type { TestContext, TestUser } from "../helpers/app.js";
import { createChangeRequest } from "../helpers/change-requests.factories.js";
import { commitContent, type TestPage } from "../helpers/content.factories.js";
import { everyNodeDocument, markdownFixtures, randomDocument } from "../helpers/editor-documents.js";
import { caretAtEndOf, insertBlock, openEditor } from "../helpers/editor-e2e.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { encodePng } from "../helpers/png.js";
import { everyBlockDocument } from "../helpers/render-documents.js";
import { createSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

let e2e: WebE2E;
let ctx: TestContext;
let base: string;
let orgId: string;
let spaceId: string;
let owner: TestUser;
let writer: TestUser;
let welcomeId: string;
const fixtures: Array<{ name: string; id: string; document: JSONDocument }> = [];

const sortKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortKeys)
    : value && typeof value === "object"
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
        )
      : value;

beforeAll(async () => {
  // These tests save over HTTP (live collaboration off); the live test below starts its own server.
  e2e = await startWebE2E({ collab: { ...loadConfig({}).collab, enabled: false } });
  ({ ctx, base } = e2e);
  owner = await createUser(ctx, { displayName: "Owner" });
  orgId = (await createOrganization(ctx, owner, "Lighthouse Docs")).id;
  writer = await createUser(ctx, { displayName: "Wren Writer" });
  await addMemberToOrg(ctx, orgId, writer, "edit");
  spaceId = (await createSpace(ctx, owner, orgId, { title: "Handbook" })).id;
  const documents: Array<{ name: string; document: JSONDocument }> = [
    { name: "every node, every field, keys", document: everyNodeDocument({ full: true, keys: true }) },
    { name: "every node, no optional field, no keys", document: everyNodeDocument({ full: false, keys: false }) },
    { name: "every block (renderer's)", document: everyBlockDocument() as JSONDocument },
    ...[1, 2, 3].map((seed) => ({ name: `random ${seed}`, document: randomDocument(seed, 30) })),
    ...markdownFixtures()
      .slice(0, 12)
      .map(({ name, markdown }) => ({ name, document: parseMarkdownPage(markdown, { resolve: new FakeRepository().resolve }).document })),
  ];
  const pages: TestPage[] = [
    { title: "Welcome", slug: "welcome", paragraphs: ["Lighthouses guide ships at night.", "Keepers trim the wicks every evening."] },
  ];
  for (const [index, { name, document }] of documents.entries()) {
    pages.push({ title: name, slug: `fixture-${index}`, extra: { documentHash: await saveDocument(ctx.db, document) } });
  }
  const { content } = await commitContent(ctx, spaceId, { pages });
  welcomeId = content.pages[0]!.id;
  content.pages.slice(1).forEach((page, index) => {
    fixtures.push({ name: documents[index]!.name, id: page.id, document: documents[index]!.document });
  });
}, 120_000);

afterAll(async () => {
  await e2e?.close();
});

const statusText = (page: Page) => page.locator("#qe-status").textContent();
const waitSaved = (page: Page) => page.locator('#qe-status[data-state="saved"]').waitFor({ timeout: 20_000 });

async function pageDocument(crId: string, pageId: string): Promise<JSONDocument> {
  const res = await ctx.as(owner).get(`/v1/spaces/${spaceId}/change-requests/${crId}/content/page/${pageId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.document as JSONDocument;
}

describe("the block editor in Chromium", () => {
  // Known failure, left open in the issue: with HTTP saves, fast typing after `## ` loses the input
  // rules (later blocks stay headings, "S" is split from "torms"); it passed with live collaboration.
  it("opens from a page's Edit button, takes typing, the / menu and Markdown shortcuts, autosaves, and reloads with the text", async () => {
    const { page } = await e2e.signIn(writer);
    const problems = watchProblems(page);
    await page.goto(`${base}/app/o/${orgId}/s/${spaceId}/p/${welcomeId}`);
    await page.locator("#edit-page").click();
    await page.waitForURL(/\/~\/changes\/\d+\/p\/[^/]+\/edit$/);
    const editUrl = page.url();
    const number = /\/changes\/(\d+)\//.exec(editUrl)![1]!;
    await page.locator('#quire-editor[data-ready="true"]').waitFor({ timeout: 30_000 });
    const editor = page.locator(".qe-editor");
    expect(await editor.textContent()).toContain("Keepers trim the wicks every evening.");

    // Typing at the end of the last paragraph.
    await caretAtEndOf(page, "Keepers trim");
    await page.keyboard.type(" Twice in winter.");
    // Markdown shortcuts while typing.
    await page.keyboard.press("Enter");
    await page.keyboard.type("## Storms");
    await page.keyboard.press("Enter");
    await page.keyboard.type("- bring the lamps in");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.type("1. first");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.type("> a quote");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.type("some **bold** text");
    await page.keyboard.press("Enter");
    expect(await editor.locator("h3.q-h2").textContent()).toBe("Storms");
    expect(await editor.locator("ul.q-list li").first().textContent()).toContain("bring the lamps in");
    expect(await editor.locator("ol.q-list li").first().textContent()).toContain("first");
    expect(await editor.locator("blockquote").textContent()).toContain("a quote");
    expect(await editor.locator("strong").textContent()).toBe("bold");

    // The "/" menu: a hint, a code block, a table.
    await insertBlock(page, "hint", "Hint: info");
    await page.keyboard.type("Mind the rocks.");
    expect(await editor.locator(".q-hint").textContent()).toContain("Mind the rocks.");
    await caretAtEndOf(page, "some bold text");
    await page.keyboard.press("Enter");
    await insertBlock(page, "code", "Code block");
    await page.keyboard.type("lamp.light()");
    await page.keyboard.press("Enter");
    await page.keyboard.type("lamp.trim()");
    expect(await editor.locator(".q-code .q-line").allTextContents()).toEqual(["lamp.light()", "lamp.trim()"]);
    await caretAtEndOf(page, "Lighthouses guide");
    await page.keyboard.press("Enter");
    await insertBlock(page, "table", "Table");
    expect(await editor.locator(".qe-table-grid .qe-cell").count()).toBe(4);
    await editor.locator(".qe-table-bar button", { hasText: "+ column" }).click();
    expect(await editor.locator(".qe-table-grid .qe-cell").count()).toBe(6);
    await editor.locator(".qe-table-grid .qe-cell").first().click();
    await page.keyboard.type("Tower");
    await e2e.shot(page, "editor-typed");

    await waitSaved(page);
    const crId = (
      await ctx.db
        .selectFrom("changeRequests")
        .select("id")
        .where("spaceId", "=", spaceId)
        .where("number", "=", Number(number))
        .executeTakeFirstOrThrow()
    ).id;
    const saved = JSON.stringify(await pageDocument(crId, welcomeId));
    for (const text of ["Twice in winter.", "Storms", "bring the lamps in", "Mind the rocks.", "lamp.trim()", "Tower"])
      expect(saved).toContain(text);
    expect(saved).toContain('"type":"hint"');
    expect(saved).toContain('"type":"table"');

    // Undo takes back the last typing.
    await page.keyboard.press("Control+z");
    expect(await editor.locator(".qe-table-grid").textContent()).not.toContain("Tower");
    await page.keyboard.press("Control+Shift+z");
    expect(await editor.locator(".qe-table-grid").textContent()).toContain("Tower");

    await waitSaved(page);
    await page.reload();
    await page.locator('#quire-editor[data-ready="true"]').waitFor({ timeout: 30_000 });
    for (const text of ["Twice in winter.", "Storms", "Mind the rocks.", "lamp.trim()", "Tower"])
      expect(await editor.textContent()).toContain(text);
    expect(problems).toEqual([]);
  }, 120_000);

  it("pastes HTML without running its scripts, and Markdown as blocks", async () => {
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Paste" });
    const { page } = await e2e.signIn(writer);
    const problems = watchProblems(page);
    await openEditor(page, `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/p/${welcomeId}/edit`);
    const editor = page.locator(".qe-editor");
    await caretAtEndOf(page, "Lighthouses guide");
    // Into an empty paragraph: the pasted blocks replace it (in a paragraph with text, the first one joins that text).
    await page.keyboard.press("Enter");
    const paste = (type: string, text: string) =>
      page.evaluate(
        ([type, text]) => {
          const data = new DataTransfer();
          data.setData(type!, text!);
          document
            .querySelector(".qe-editor")!
            .dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
        },
        [type, text],
      );
    await paste(
      "text/html",
      `<h2>Pasted title</h2><p>Pasted <b>text</b> <a href="javascript:window.pwned=1">bad link</a> <a href="https://example.com/ok">good link</a></p><script>window.pwned=2</script><img src="x" onerror="window.pwned=3"><p onclick="window.pwned=4">last</p>`,
    );
    await editor.locator("h3", { hasText: "Pasted title" }).waitFor();
    await page.waitForTimeout(1000);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    // Chromium reports the policy's refusal when it parses an inline handler (in a document that runs nothing): not a problem.
    const inlineHandlerReports = (list: string[]) => list.filter((p) => !p.startsWith("Executing inline event handler violates"));
    expect(await editor.locator("a.q-link").count()).toBe(1);
    expect(await editor.locator("a.q-link").getAttribute("href")).toBe("https://example.com/ok");
    expect(await editor.innerHTML()).not.toMatch(/onerror|onclick|javascript:|<script/i);

    await caretAtEndOf(page, "last");
    await page.keyboard.press("Enter");
    await paste("text/plain", "## From Markdown\n\n- one\n- two\n\n```js\nlet x = 1;\n```\n");
    await editor.locator(".q-heading", { hasText: "From Markdown" }).waitFor({ timeout: 10_000 });
    expect(await editor.locator("li", { hasText: "two" }).count()).toBe(1);
    expect(await editor.locator(".q-code .q-line").allTextContents()).toContain("let x = 1;");
    await waitSaved(page);
    const saved = JSON.stringify(await pageDocument(cr.id, welcomeId));
    expect(saved).toContain("Pasted title");
    expect(saved).toContain("https://example.com/ok");
    expect(saved).not.toMatch(/javascript:|onerror|pwned/);
    expect(inlineHandlerReports(problems)).toEqual([]);
  }, 120_000);

  it("uploads a picked image into the change request's files, refuses one over the limit with the limit said", async () => {
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Images" });
    const { page } = await e2e.signIn(writer);
    await openEditor(page, `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/p/${welcomeId}/edit`);
    const editor = page.locator(".qe-editor");
    await caretAtEndOf(page, "Keepers trim");
    await page.keyboard.press("Enter");
    const png = encodePng(40, 20, (x) => [x * 6, 80, 160, 255]);
    const chooser = page.waitForEvent("filechooser");
    await insertBlock(page, "image", "Image");
    await (await chooser).setFiles({ name: "beam.png", mimeType: "image/png", buffer: png });
    const img = editor.locator(".qe-image-frame img");
    await img.waitFor({ timeout: 20_000 });
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.naturalWidth), { timeout: 10_000 }).toBe(40);
    await editor.getByLabel("Alternative text").fill("A beam of light");
    await editor.getByLabel("Alternative text").press("Tab");
    await waitSaved(page);
    const saved = await pageDocument(cr.id, welcomeId);
    const image = JSON.stringify(saved.nodes.find((n) => (n as { type?: string }).type === "images"));
    expect(image).toContain('"kind":"file"');
    expect(image).toContain("A beam of light");
    const files = await ctx.as(owner).get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/files`);
    expect(JSON.stringify(files.body)).toContain("beam.png");

    const big = Buffer.alloc(1024 * 1024 + 10, 1);
    await caretAtEndOf(page, "Keepers trim");
    await page.keyboard.press("Enter");
    const chooser2 = page.waitForEvent("filechooser");
    await insertBlock(page, "file", "File");
    await (await chooser2).setFiles({ name: "huge.bin", mimeType: "application/octet-stream", buffer: big });
    const error = page.locator(".qe-upload-error");
    await error.waitFor();
    expect(await error.textContent()).toContain("files can be at most 1.0 MB");
  }, 120_000);

  it("shows why a save is refused and keeps the text, in the page and in the browser's storage", async () => {
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Refused" });
    const { page } = await e2e.signIn(writer);
    await openEditor(page, `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/p/${welcomeId}/edit`);
    // The change request is archived while the writer types: the next save is refused.
    const archived = await ctx.as(owner).patch(`/v1/spaces/${spaceId}/change-requests/${cr.id}`, { status: "archived" });
    expect(archived.status, JSON.stringify(archived.body)).toBe(200);
    const editor = page.locator(".qe-editor");
    await caretAtEndOf(page, "Keepers trim");
    await page.keyboard.type(" Words that must not be lost.");
    await page.locator('#qe-status[data-state="refused"]').waitFor({ timeout: 20_000 });
    expect(await statusText(page)).toMatch(/Not saved: .*archived/);
    expect(await editor.textContent()).toContain("Words that must not be lost.");
    const stored = await page.evaluate(() => JSON.stringify(Object.values({ ...localStorage })));
    expect(stored).toContain("Words that must not be lost.");
    await e2e.shot(page, "editor-refused");
  }, 120_000);

  it("opens and saves without a change: the identical document, for every test document", async () => {
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Round trip" });
    const { page } = await e2e.signIn(writer);
    const problems = watchProblems(page);
    for (const fixture of fixtures) {
      await openEditor(page, `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/p/${fixture.id}/edit`);
      // What the editor would send, as the server reads it.
      const sent = await page.evaluate(() => (window as any).quireEditor.snapshot(false));
      expect(sortKeys(fromEditorDoc(sent as never)), fixture.name).toEqual(sortKeys(fixture.document));
    }
    // And through the save: the content operation stores it unchanged (the API adds every heading's
    // `meta.id`, the anchor the published page gives it, to what it answers: so does the expectation).
    for (const fixture of fixtures.filter((f) => f.name.startsWith("markdown/")).slice(0, 4)) {
      await openEditor(page, `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/p/${fixture.id}/edit`);
      await page.evaluate(() => (window as any).quireEditor.saver.changed());
      await waitSaved(page);
      expect(sortKeys(await pageDocument(cr.id, fixture.id)), fixture.name).toEqual(sortKeys(withHeadingAnchors(fixture.document)));
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it("with collaboration on: both browsers start from the server's document, type live with named cursors, and the change request holds it", async () => {
    const live = await startWebE2E();
    try {
      const liveOwner = await createUser(live.ctx, { displayName: "Owner" });
      const liveOrg = (await createOrganization(live.ctx, liveOwner, "Live Docs")).id;
      const liveWriter = await createUser(live.ctx, { displayName: "Wren Writer" });
      await addMemberToOrg(live.ctx, liveOrg, liveWriter, "edit");
      const liveSpace = (await createSpace(live.ctx, liveOwner, liveOrg, { title: "Handbook" })).id;
      const { content } = await commitContent(live.ctx, liveSpace, {
        pages: [{ title: "Welcome", slug: "welcome", paragraphs: ["Shared paragraph."] }],
      });
      const pageId = content.pages[0]!.id;
      const cr = await createChangeRequest(live.ctx, liveOwner, liveSpace, { subject: "Live" });
      const editUrl = `${live.base}/app/o/${liveOrg}/s/${liveSpace}/~/changes/${cr.number}/p/${pageId}/edit`;
      const open = async (user: TestUser) => {
        const { page } = await live.signIn(user);
        await openEditor(page, editUrl);
        // The page carried the collaboration's address and token, not the document.
        expect(await page.locator("#quire-editor").getAttribute("data-collab-url")).toBe(`${live.base.replace("http", "ws")}/app/collab`);
        return page;
      };
      const a = await open(liveWriter);
      const b = await open(liveOwner);
      const editorA = a.locator(".qe-editor");
      const editorB = b.locator(".qe-editor");
      await editorA.locator("p", { hasText: "Shared paragraph." }).waitFor({ timeout: 30_000 });
      await editorB.locator("p", { hasText: "Shared paragraph." }).waitFor({ timeout: 30_000 });
      await editorA.locator("p", { hasText: "Shared paragraph." }).click();
      await a.keyboard.press("End");
      await a.keyboard.type(" Typed in A.");
      await editorB.locator("p", { hasText: "Typed in A." }).waitFor({ timeout: 30_000 });
      await editorB.locator("p", { hasText: "Typed in A." }).click();
      await b.keyboard.press("Home");
      await b.keyboard.type("B first. ");
      // (A's view shows B's named cursor inside the paragraph: its label is part of the text there.)
      await editorA.locator("p", { hasText: "B first." }).waitFor({ timeout: 30_000 });
      await b.locator(".ProseMirror-yjs-cursor", { hasText: "Wren Writer" }).waitFor({ timeout: 30_000 });
      await live.shot(b, "editor-collab-cursor");
      // Saved continuously: the converged paragraph reaches the change request.
      let text = "";
      for (let i = 0; i < 300 && !text.includes("B first. Shared paragraph. Typed in A."); i++) {
        const res = await live.ctx.as(liveOwner).get(`/v1/spaces/${liveSpace}/change-requests/${cr.id}/content/page/${pageId}`);
        text = JSON.stringify(res.body.document ?? {});
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(text).toContain("B first. Shared paragraph. Typed in A.");
      await a.locator('#qe-status[data-state="saved"]').waitFor({ timeout: 30_000 });
    } finally {
      await live.close();
    }
  }, 240_000);

  it("shows every block as the site does, light and dark, desktop and phone (screenshots)", async () => {
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Screenshots" });
    const every = fixtures.find((f) => f.name === "every block (renderer's)")!;
    for (const [label, options] of [
      ["desktop-light", { viewport: { width: 1280, height: 900 }, colorScheme: "light" }],
      ["desktop-dark", { viewport: { width: 1280, height: 900 }, colorScheme: "dark" }],
      ["phone-light", { viewport: { width: 390, height: 844 }, colorScheme: "light", isMobile: true, hasTouch: true }],
      ["phone-dark", { viewport: { width: 390, height: 844 }, colorScheme: "dark", isMobile: true, hasTouch: true }],
    ] as const) {
      const { page } = await e2e.signIn(writer, options);
      const problems = watchProblems(page);
      await openEditor(page, `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/p/${every.id}/edit`);
      // Every block of the document is shown: its top-level blocks, none dropped.
      expect(await page.locator(".qe-editor > *").count()).toBe(every.document.nodes.length);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, label).toBeLessThanOrEqual((options.viewport.width as number) + 1);
      // A table's cells stand at their record's row: "Second row" under "First row", not beside it.
      const cells = page.locator(".qe-table").first().locator(".qe-cell");
      const [firstCell, secondCell] = [await cells.nth(0).boundingBox(), await cells.nth(1).boundingBox()];
      expect(await cells.nth(1).textContent()).toBe("Second row");
      expect(secondCell!.y, label).toBeGreaterThanOrEqual(firstCell!.y + firstCell!.height - 1);
      expect(secondCell!.x, label).toBe(firstCell!.x);
      await e2e.shot(page, `editor-every-block-${label}`);
      expect(problems).toEqual([]);
    }
  }, 180_000);
});
