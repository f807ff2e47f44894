/**
 * Blocks whose settings the editor edits in place, in Chromium against the real server: an image's
 * alternative text, width in pixels, dark-mode variant (uploaded) and caption; columns in a table
 * cell (added, removed, written in); a conditional block's condition in its settings popover (an
 * invalid one says why and keeps the text). Each is saved, the stored document holds GitBook's
 * fields, and opening the page again and saving without a change gives the identical document.
 * QUIRE_SCREENSHOTS_DIR=<dir> keeps screenshots, light and dark.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import type { JSONDocument } from "../../src/content/document/types.js";
import { fromEditorDoc } from "../../src/content/editor/index.js";
import type { TestContext, TestUser } from "../helpers/app.js";
import { createChangeRequest } from "../helpers/change-requests.factories.js";
import { commitContent } from "../helpers/content.factories.js";
import { caretAtEndOf, insertBlock, openEditor } from "../helpers/editor-e2e.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { encodePng } from "../helpers/png.js";
import { createSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

let e2e: WebE2E;
let ctx: TestContext;
let base: string;
let orgId: string;
let spaceId: string;
let owner: TestUser;
let writer: TestUser;

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
  e2e = await startWebE2E({ collab: { ...loadConfig({}).collab, enabled: false } });
  ({ ctx, base } = e2e);
  owner = await createUser(ctx, { displayName: "Owner" });
  orgId = (await createOrganization(ctx, owner, "Lighthouse Docs")).id;
  writer = await createUser(ctx, { displayName: "Wren Writer" });
  await addMemberToOrg(ctx, orgId, writer, "edit");
  spaceId = (await createSpace(ctx, owner, orgId, { title: "Handbook" })).id;
}, 120_000);

afterAll(async () => {
  await e2e?.close();
});

const waitSaved = (page: Page) => page.locator('#qe-status[data-state="saved"]').waitFor({ timeout: 20_000 });

async function pageDocument(crId: string, pageId: string): Promise<JSONDocument> {
  const res = await ctx.as(owner).get(`/v1/spaces/${spaceId}/change-requests/${crId}/content/page/${pageId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.document as JSONDocument;
}

type Any = any;
function find(node: Any, type: string): Any {
  if (node?.type === type) return node;
  for (const child of [...(node?.nodes ?? []), ...(node?.fragments ?? [])]) {
    const found = find(child, type);
    if (found) return found;
  }
  return undefined;
}

/** Saves what the editor holds now and waits for the server's answer. */
async function saveNow(page: Page): Promise<void> {
  await page.evaluate(() => (window as any).quireEditor.saver.changed());
  await waitSaved(page);
}

describe("blocks with settings in the block editor", () => {
  it("edits an image's alt, pixel width, dark variant and caption; columns in a table cell; a condition, refused when invalid", async () => {
    const { content } = await commitContent(ctx, spaceId, {
      pages: [{ title: "Blocks", slug: "blocks", paragraphs: ["Start here."] }],
    });
    const pageId = content.pages[0]!.id;
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Blocks" });
    const url = `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/p/${pageId}/edit`;
    const { page } = await e2e.signIn(writer);
    const problems = watchProblems(page);
    await openEditor(page, url);
    const editor = page.locator(".qe-editor");

    // ---- an image: uploaded, then its settings
    await caretAtEndOf(page, "Start here.");
    await page.keyboard.press("Enter");
    const light = encodePng(40, 20, (x) => [240, 200 + x, 120, 255]);
    const dark = encodePng(40, 20, (x) => [20, 30 + x, 60, 255]);
    const chooser = page.waitForEvent("filechooser");
    await insertBlock(page, "image", "Image");
    await (await chooser).setFiles({ name: "light.png", mimeType: "image/png", buffer: light });
    const frame = editor.locator(".qe-image-frame img");
    await expect.poll(() => frame.evaluate((i: HTMLImageElement) => i.naturalWidth), { timeout: 20_000 }).toBe(40);
    await editor.getByLabel("Alternative text").fill("The lamp room");
    await editor.getByLabel("Alternative text").press("Tab");
    await editor.getByLabel("Width", { exact: true }).selectOption("px");
    await editor.getByLabel("Width in pixels").fill("320");
    await editor.getByLabel("Width in pixels").press("Tab");
    const darkChooser = page.waitForEvent("filechooser");
    await editor.getByLabel("Image in dark mode").selectOption("upload");
    await (await darkChooser).setFiles({ name: "dark.png", mimeType: "image/png", buffer: dark });
    const darkPreview = editor.locator(".qe-image-dark-preview");
    await expect.poll(() => darkPreview.evaluate((i: HTMLImageElement) => i.naturalWidth), { timeout: 20_000 }).toBe(40);
    await editor.getByRole("button", { name: "Add caption" }).click();
    await expect
      .poll(() => page.evaluate(() => (window as any).quireEditor.editor.state.selection.$from.node(-1).type.name))
      .toBe("imageCaption");
    await page.keyboard.type("Lit at dusk");
    await expect.poll(() => editor.getByRole("button", { name: "Add caption" }).isHidden()).toBe(true);
    await saveNow(page);
    let saved = await pageDocument(cr.id, pageId);
    const image = find(saved, "image");
    expect(image.data).toMatchObject({ alt: "The lamp room", width: 320, ref: { kind: "file" }, refDark: { kind: "file" } });
    expect(image.data.refDark.file).not.toBe(image.data.ref.file);
    expect(JSON.stringify(image.fragments)).toContain("Lit at dusk");
    await e2e.shot(page, "editor-image-settings-light");

    // ---- columns and a condition, in a table cell (where GitBook's schema places them)
    await caretAtEndOf(page, "Start here.");
    await page.keyboard.press("Enter");
    // Outside a table cell the "/" menu does not offer them.
    await page.keyboard.type("/colu");
    await page.locator(".qe-menu .qe-menu-empty").waitFor();
    for (let i = 0; i < 5; i++) await page.keyboard.press("Backspace");
    await insertBlock(page, "table", "Table");
    await editor.locator(".qe-table-grid .qe-cell").first().click();
    await insertBlock(page, "colu", "Columns");
    const columns = editor.locator(".qe-columns-block");
    await columns.waitFor();
    expect(await columns.locator(".q-column").count()).toBe(2);
    await columns.locator(".q-column").nth(0).click();
    await page.keyboard.type("Left side");
    await columns.getByRole("button", { name: "+ column" }).click();
    await expect.poll(() => columns.locator(".q-column").count()).toBe(3);
    // The caret is in the new column: typed there, then the middle (empty) column removed.
    await page.keyboard.type("Right side");
    await columns.locator(".q-column").nth(1).click();
    await columns.getByRole("button", { name: "− column" }).click();
    await expect.poll(() => columns.locator(".q-column").count()).toBe(2);
    expect(await columns.locator(".q-column").allTextContents()).toEqual(["Left side", "Right side"]);

    await editor.locator(".qe-table-grid .qe-cell").nth(1).click();
    await insertBlock(page, "condit", "Conditional");
    const conditional = editor.locator(".qe-if");
    await conditional.waitFor();
    await page.keyboard.type("Only for pros");
    await conditional.getByRole("button", { name: "Condition settings" }).click();
    const input = conditional.getByRole("textbox", { name: "Condition" });
    await input.fill('visitor.claims.plan === "pro"  &&');
    await conditional.getByRole("button", { name: "Apply" }).click();
    const problem = conditional.locator(".qe-if-problem");
    await expect.poll(() => problem.textContent()).toMatch(/\S/);
    // The text stays for correcting; nothing was stored.
    expect(await input.inputValue()).toBe('visitor.claims.plan === "pro"  &&');
    expect(await conditional.locator(".qe-if-expression").textContent()).toBe("true");
    await e2e.shot(page, "editor-condition-invalid-light");
    await input.fill('visitor.claims.plan === "pro"');
    await input.press("Enter");
    await conditional.locator(".qe-if-settings").waitFor({ state: "hidden" });
    expect(await conditional.locator(".qe-if-expression").textContent()).toBe('visitor.claims.plan === "pro"');
    await saveNow(page);
    saved = await pageDocument(cr.id, pageId);
    const cols = find(saved, "columns");
    expect(cols.nodes.map((c: Any) => c.type)).toEqual(["column", "column"]);
    expect(JSON.stringify(cols)).toContain("Left side");
    expect(JSON.stringify(cols)).toContain("Right side");
    const condition = find(saved, "if");
    expect(condition.data).toEqual({ expression: 'visitor.claims.plan === "pro"' });
    expect(JSON.stringify(condition)).toContain("Only for pros");
    await e2e.shot(page, "editor-blocks-light");

    // Opened again and saved without a change: the identical document.
    await openEditor(page, url);
    const sent = await page.evaluate(() => (window as any).quireEditor.snapshot(false));
    expect(sortKeys(fromEditorDoc(sent as never))).toEqual(sortKeys(saved));
    await saveNow(page);
    expect(sortKeys(await pageDocument(cr.id, pageId))).toEqual(sortKeys(saved));
    expect(problems).toEqual([]);

    // Dark: the same blocks, the condition's popover open with a problem.
    const { page: darkPage } = await e2e.signIn(writer, { colorScheme: "dark" });
    await openEditor(darkPage, url);
    const darkIf = darkPage.locator(".qe-editor .qe-if");
    await darkIf.getByRole("button", { name: "Condition settings" }).click();
    await darkIf.getByRole("textbox", { name: "Condition" }).fill("visitor.(");
    await darkIf.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => darkIf.locator(".qe-if-problem").textContent()).toMatch(/\S/);
    await e2e.shot(darkPage, "editor-blocks-dark");
    await darkPage.context().close();
  }, 240_000);
});
