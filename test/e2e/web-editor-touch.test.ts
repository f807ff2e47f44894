/**
 * Moving blocks with a finger and with a mouse. With a finger, in Chromium on a phone-sized touch screen (touch events from the
 * DevTools protocol, as a phone's browser sends them): a tap shows the grip beside the block, the
 * grip dragged up or down shows where the block will land and moves it there in one step (one undo
 * brings it back), every block keeps its own key through the moves, undo and redo, and the page
 * saved holds the new order with those keys. With a mouse, the grip shown on hover is dragged by the
 * browser's own drag and drop (Playwright's mouse, dragstart to drop) and the block moves, keys kept.
 * The editor's scripts are loaded by the edit view only.
 * QUIRE_SCREENSHOTS_DIR=<dir> keeps screenshots.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { CDPSession, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import type { TestContext, TestUser } from "../helpers/app.js";
import { createChangeRequest } from "../helpers/change-requests.factories.js";
import { commitContent } from "../helpers/content.factories.js";
import { openEditor } from "../helpers/editor-e2e.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { createSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

let e2e: WebE2E;
let ctx: TestContext;
let base: string;
let orgId: string;
let spaceId: string;
let owner: TestUser;
let writer: TestUser;

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

async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** The text of the page's top-level blocks, from the editor's state. */
const blockTexts = (page: Page) =>
  page.evaluate(() => {
    const texts: string[] = [];
    (window as any).quireEditor.editor.state.doc.forEach((node: { textContent: string }) => {
      texts.push(node.textContent);
    });
    return texts;
  });

/** The keys of the page's top-level blocks, from the editor's state. */
const blockKeys = (page: Page) =>
  page.evaluate(() => {
    const keys: string[] = [];
    (window as any).quireEditor.editor.state.doc.forEach((node: { attrs: { key: string } }) => {
      keys.push(node.attrs.key);
    });
    return keys;
  });

const center = async (page: Page, selector: string, hasText?: string) => {
  const box = await page
    .locator(selector, hasText ? { hasText } : {})
    .first()
    .boundingBox();
  if (!box) throw new Error(`${selector} ${hasText ?? ""} is not shown`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2, top: box.y, bottom: box.y + box.height };
};

/** A finger pressing at `from`, moving to `to` in steps, then (unless `lift` is false) lifted. */
async function touchDrag(cdp: CDPSession, from: { x: number; y: number }, to: { x: number; y: number }, lift = true): Promise<void> {
  const point = (x: number, y: number) => [{ x: Math.round(x), y: Math.round(y), id: 1, radiusX: 4, radiusY: 4, force: 1 }];
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: point(from.x, from.y) });
  const steps = 8;
  for (let i = 1; i <= steps; i++) {
    const x = from.x + ((to.x - from.x) * i) / steps;
    const y = from.y + ((to.y - from.y) * i) / steps;
    await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: point(x, y) });
  }
  if (lift) await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
}

/** Taps the paragraph holding `text` and waits for the grip to stand beside it. */
async function tapBlock(page: Page, text: string): Promise<{ x: number; y: number }> {
  const paragraph = page.locator(".qe-editor > p", { hasText: text });
  await expect
    .poll(
      async () => {
        await paragraph.tap();
        const handle = page.locator(".qe-handle");
        if (!(await handle.isVisible())) return false;
        const [h, p] = await Promise.all([handle.boundingBox(), paragraph.boundingBox()]);
        return !!h && !!p && Math.abs(h.y - p.y) < 4;
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  return center(page, ".qe-handle");
}

describe("moving blocks", () => {
  it("a tap shows the grip, dragging it moves the block up or down in one undoable step, and the page saves the new order", async () => {
    const { content } = await commitContent(ctx, spaceId, {
      pages: [{ title: "Night", slug: "night", paragraphs: ["Light the lamp.", "Trim the wick.", "Wind the clock.", "Log the ships."] }],
    });
    const pageId = content.pages[0]!.id;
    const cr = await createChangeRequest(ctx, writer, spaceId, { subject: "Reorder" });
    const api = `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${pageId}`;
    const keysBefore = (await ctx.as(owner).get(api)).body.document.nodes.map((n: { key: string }) => n.key) as string[];
    expect(keysBefore).toHaveLength(4);

    const { context, page } = await e2e.signIn(writer, PHONE);
    const problems = watchProblems(page);
    // The editor's scripts load on the edit view only: not on the space's page nor the change request's.
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
    });
    await page.goto(`${base}/app/o/${orgId}/s/${spaceId}`);
    await page.goto(`${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}`);
    expect(scripts.filter((s) => /\/editor[^/]*\.js$/.test(s))).toEqual([]);
    await openEditor(page, `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/p/${pageId}/edit`);
    await page.locator(".qe-editor > p", { hasText: "Log the ships." }).waitFor();
    expect(scripts.filter((s) => /\/editor[^/]*\.js$/.test(s)).map((s) => s.split("/").pop())).toEqual(["editor.js"]);
    const cdp = await context.newCDPSession(page);
    const scrollBefore = await page.evaluate(() => window.scrollY);

    // Up: "Log the ships." dragged to just above the middle of "Trim the wick." lands before it.
    const grip = await tapBlock(page, "Log the ships.");
    const target = await center(page, ".qe-editor > p", "Trim the wick.");
    await touchDrag(cdp, grip, { x: grip.x, y: target.y - 4 }, false);
    await page.locator(".qe-drop-indicator").waitFor({ state: "visible" });
    // The line is drawn between the two blocks the block will land between. It follows the finger a
    // frame behind (it may show first where the last move but one put it): polled, with the blocks
    // measured beside it each time.
    const lineBetween = async () => {
      const line = await page.locator(".qe-drop-indicator").boundingBox();
      const first = await center(page, ".qe-editor > p", "Light the lamp.");
      const below = await center(page, ".qe-editor > p", "Trim the wick.");
      return !!line && line.y > first.top && line.y < below.bottom;
    };
    await expect.poll(lineBetween, { timeout: 10_000 }).toBe(true);
    await e2e.shot(page, "editor-touch-dragging");
    await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
    await expect.poll(() => blockTexts(page)).toEqual(["Light the lamp.", "Log the ships.", "Trim the wick.", "Wind the clock."]);
    const [light, trim, wind, log] = keysBefore;
    expect(await blockKeys(page)).toEqual([light, log, trim, wind]);
    await page.locator(".qe-drop-indicator").waitFor({ state: "hidden" });
    // The finger on the grip did not scroll the page.
    expect(await page.evaluate(() => window.scrollY)).toBe(scrollBefore);

    // One step: one undo puts it back, redo moves it again.
    await page.keyboard.press("Control+z");
    await expect.poll(() => blockTexts(page)).toEqual(["Light the lamp.", "Trim the wick.", "Wind the clock.", "Log the ships."]);
    expect(await blockKeys(page)).toEqual(keysBefore);
    await page.keyboard.press("Control+Shift+z");
    await expect.poll(() => blockTexts(page)).toEqual(["Light the lamp.", "Log the ships.", "Trim the wick.", "Wind the clock."]);
    expect(await blockKeys(page)).toEqual([light, log, trim, wind]);

    // Down: "Light the lamp." dragged below the last block lands at the end.
    const grip2 = await tapBlock(page, "Light the lamp.");
    const last = await center(page, ".qe-editor > p", "Wind the clock.");
    await touchDrag(cdp, grip2, { x: grip2.x, y: last.bottom + 6 });
    await expect.poll(() => blockTexts(page)).toEqual(["Log the ships.", "Trim the wick.", "Wind the clock.", "Light the lamp."]);

    // Dropped where it already is: nothing changes.
    const grip3 = await tapBlock(page, "Trim the wick.");
    await touchDrag(cdp, grip3, { x: grip3.x, y: grip3.y + 3 });
    expect(await blockTexts(page)).toEqual(["Log the ships.", "Trim the wick.", "Wind the clock.", "Light the lamp."]);

    // Typing still goes where the caret is after a move.
    await page.locator(".qe-editor > p", { hasText: "Light the lamp." }).tap();
    await page.keyboard.press("End");
    await page.keyboard.type(" Now.");
    await expect.poll(() => blockTexts(page)).toEqual(["Log the ships.", "Trim the wick.", "Wind the clock.", "Light the lamp. Now."]);

    // Saved: the stored page has the new order, each block with the key it had.
    await page.evaluate(() => (window as any).quireEditor.saver.changed());
    await page.locator('#qe-status[data-state="saved"]').waitFor({ timeout: 20_000 });
    const stored = (await ctx.as(owner).get(api)).body.document.nodes as { key: string; nodes: { leaves: { text: string }[] }[] }[];
    expect(stored.map((n) => n.nodes[0]!.leaves.map((l) => l.text).join(""))).toEqual([
      "Log the ships.",
      "Trim the wick.",
      "Wind the clock.",
      "Light the lamp. Now.",
    ]);
    // Each block keeps its own key through the moves, the undo and the redo, in the editor and once
    // stored (comments anchor to keys). The server once took keys by position from the page's previous
    // version: when the moves and the typing went out in one save, "Log" and "Light" traded keys.
    expect(await blockKeys(page)).toEqual([log, trim, wind, light]);
    expect(stored.map((n) => n.key)).toEqual([log, trim, wind, light]);

    await tapBlock(page, "Wind the clock.");
    await e2e.shot(page, "editor-touch-moved");
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);

  it("with a mouse, the grip shown on hover drags the block (HTML drag and drop) to where it is dropped, in one undoable step", async () => {
    const { content } = await commitContent(ctx, spaceId, {
      pages: [{ title: "Day", slug: "day", paragraphs: ["Open the shutters.", "Sweep the deck.", "Coil the ropes.", "Raise the flag."] }],
    });
    const pageId = content.pages[0]!.id;
    const cr = await createChangeRequest(ctx, writer, spaceId, { subject: "Reorder by mouse" });
    const api = `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${pageId}`;
    const keysBefore = (await ctx.as(owner).get(api)).body.document.nodes.map((n: { key: string }) => n.key) as string[];
    const [open, sweep, coil, raise] = keysBefore;

    const { context, page } = await e2e.signIn(writer, { viewport: { width: 1280, height: 900 } });
    const problems = watchProblems(page);
    await openEditor(page, `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/p/${pageId}/edit`);
    await page.locator(".qe-editor > p", { hasText: "Raise the flag." }).waitFor();

    // Hovering a block puts the grip beside it.
    const source = await center(page, ".qe-editor > p", "Raise the flag.");
    await page.mouse.move(source.x, source.y);
    const handle = page.locator(".qe-handle");
    await expect
      .poll(async () => {
        const box = await handle.boundingBox();
        return !!box && (await handle.isVisible()) && Math.abs(box.y - source.top) < 4;
      })
      .toBe(true);
    const grip = await center(page, ".qe-handle");

    // Pressed on the grip and moved in steps to the start of "Sweep the deck.": the browser's drag and
    // drop (dragstart on the grip, then ProseMirror's drop at the caret position under the pointer,
    // which the drop cursor shows) lands the block before it.
    const sweepBox = (await page.locator(".qe-editor > p", { hasText: "Sweep the deck." }).boundingBox())!;
    const target = { x: sweepBox.x + 2, top: sweepBox.y };
    await page.mouse.move(grip.x, grip.y);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) {
      await page.mouse.move(grip.x + (target.x - grip.x) * (i / 10), grip.y + (target.top + 3 - grip.y) * (i / 10));
    }
    await page.mouse.up();
    await expect.poll(() => blockTexts(page)).toEqual(["Open the shutters.", "Raise the flag.", "Sweep the deck.", "Coil the ropes."]);
    // Moved, not copied: the block keeps its key and no other block's key changes.
    expect(await blockKeys(page)).toEqual([open, raise, sweep, coil]);

    await page.keyboard.press("Control+z");
    await expect.poll(() => blockTexts(page)).toEqual(["Open the shutters.", "Sweep the deck.", "Coil the ropes.", "Raise the flag."]);
    expect(await blockKeys(page)).toEqual(keysBefore);
    await page.keyboard.press("Control+Shift+z");
    await expect.poll(() => blockTexts(page)).toEqual(["Open the shutters.", "Raise the flag.", "Sweep the deck.", "Coil the ropes."]);

    await page.evaluate(() => (window as any).quireEditor.saver.changed());
    await page.locator('#qe-status[data-state="saved"]').waitFor({ timeout: 20_000 });
    const stored = (await ctx.as(owner).get(api)).body.document.nodes as { key: string }[];
    expect(stored.map((n) => n.key)).toEqual([open, raise, sweep, coil]);
    await e2e.shot(page, "editor-mouse-moved");
    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);
});
