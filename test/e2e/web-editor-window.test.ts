/**
 * A long page in the block editor, in Chromium with live collaboration: only the blocks near the
 * window are drawn (the others are placeholders of their height, each run of them one spacer with a
 * layout box, the rest none), and nothing about the document changes for it. A jump far down (a
 * selection scrolled into view), Ctrl+End and Ctrl+Home land on their block, drawn and in view. Typing near the top, scrolling to the bottom and typing there, a selection across
 * blocks that are not drawn deleted and undone, a second browser typing into a block the first does
 * not draw, the browser's find (every block drawn): the change request ends with exactly the text
 * typed, where it was typed. No timing is asserted. QUIRE_SCREENSHOTS_DIR=<dir> keeps screenshots.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JSONDocument } from "../../src/content/document/types.js";
import { saveDocument } from "../../src/content/revision/storage.js";
import type { TestContext, TestUser } from "../helpers/app.js";
import { createChangeRequest } from "../helpers/change-requests.factories.js";
import { commitContent } from "../helpers/content.factories.js";
import { openEditor } from "../helpers/editor-e2e.js";
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

const BLOCKS = 600;
const leaf = (text: string) => ({ object: "text", leaves: [{ object: "leaf", text, marks: [] }] });
const paragraph = (text: string) => ({ object: "block", type: "paragraph", nodes: [leaf(text)] });
/** The text of top-level block `i` (every block type holds it once). */
const textOf = (i: number) => `Block ${i} about lamps, lenses, wicks and the weather at sea.`;

/** Paragraphs, headings, lists, code and hints, and a paragraph last. */
function longDocument(): JSONDocument {
  const nodes = Array.from({ length: BLOCKS }, (_, i) => {
    if (i === BLOCKS - 1) return paragraph(textOf(i));
    switch (i % 7) {
      case 1:
        return { object: "block", type: "heading-2", data: {}, nodes: [leaf(textOf(i))] };
      case 3:
        return { object: "block", type: "list-unordered", nodes: [{ object: "block", type: "list-item", nodes: [paragraph(textOf(i))] }] };
      case 4:
        return {
          object: "block",
          type: "code",
          data: { syntax: "js" },
          nodes: [{ object: "block", type: "code-line", data: {}, nodes: [leaf(textOf(i))] }],
        };
      case 5:
        return { object: "block", type: "hint", data: { style: "info" }, nodes: [paragraph(textOf(i))] };
      default:
        return paragraph(textOf(i));
    }
  });
  return { object: "document", data: {}, nodes } as unknown as JSONDocument;
}

/** The text of each top-level block of a stored document. */
function blockTexts(document: JSONDocument): string[] {
  const textIn = (node: unknown): string => {
    const n = node as { leaves?: Array<{ text: string }>; nodes?: unknown[] };
    if (n.leaves) return n.leaves.map((l) => l.text).join("");
    return (n.nodes ?? []).map(textIn).join("");
  };
  return (document as unknown as { nodes: unknown[] }).nodes.map(textIn);
}

/** The text of each top-level block of the editor's document. */
const editorTexts = (page: Page) =>
  page.evaluate(() => {
    const texts: string[] = [];
    (window as any).quireEditor.editor.state.doc.forEach((node: { textContent: string }) => {
      texts.push(node.textContent);
    });
    return texts;
  });

/** Placeholders inside the window (none once the page has settled after a scroll). */
const placeholdersInView = (page: Page) =>
  page.evaluate(
    () =>
      Array.from(document.querySelectorAll(".qe-editor > .qe-far")).filter((element) => {
        const rect = element.getBoundingClientRect();
        return rect.bottom > 0 && rect.top < window.innerHeight;
      }).length,
  );

/** The window's view of the page, when QUIRE_SCREENSHOTS_DIR is set. */
async function viewShot(page: Page, name: string): Promise<void> {
  const dir = process.env.QUIRE_SCREENSHOTS_DIR;
  if (dir) await page.screenshot({ path: `${dir}/${name}.png` });
}

const drawn = (page: Page) => page.locator(".qe-editor > :not(.qe-far)").count();
/** Top-level elements the browser lays out (a run of far blocks is one spacer; the rest of the run has no box). */
const laidOut = (page: Page) =>
  page.evaluate(
    () => Array.from(document.querySelectorAll(".qe-editor > *")).filter((element) => element.getClientRects().length > 0).length,
  );
/** Whether the top-level block holding `text` is drawn and wholly inside the window. */
const blockInView = (page: Page, text: string) =>
  page.evaluate((wanted) => {
    const block = Array.from(document.querySelectorAll(".qe-editor > :not(.qe-far)")).find((b) => b.textContent?.includes(wanted));
    if (!block) return "not drawn";
    const rect = block.getBoundingClientRect();
    return rect.top >= 0 && rect.bottom <= window.innerHeight
      ? "in view"
      : `at ${Math.round(rect.top)}..${Math.round(rect.bottom)} of ${window.innerHeight}`;
  }, text);
const placeholders = (page: Page) => page.locator(".qe-editor > .qe-far").count();

/** Clicks paragraph `i` once it is drawn and puts the caret at its end. */
async function caretAtEndOfBlock(page: Page, i: number): Promise<void> {
  const block = page.locator(".qe-editor > p", { hasText: textOf(i) }).first();
  await block.waitFor({ timeout: 30_000 });
  await expect
    .poll(
      async () => {
        await block.click();
        return page.evaluate(() => (window as any).quireEditor.editor.state.selection.$from.parent.textContent as string);
      },
      { timeout: 20_000 },
    )
    .toContain(textOf(i));
  await page.keyboard.press("End");
}

/**
 * Where a drawn block in the window is, once the page has settled (the window redrawn, the blocks
 * just drawn laid out): the block `ref` (the first drawn one whose top is in the window when none)
 * and the scroll position, read until two readings three frames apart agree. Frames, not time.
 */
async function settledView(page: Page): Promise<{ top: number; scrollY: number }> {
  let last = "";
  for (let i = 0; i < 40; i++) {
    const reading = (await page.evaluate(`new Promise((resolve) => {
      let left = 3;
      const frame = () => {
        if (--left > 0) return requestAnimationFrame(frame);
        let ref = window.__qeRef;
        if (!ref || !ref.isConnected) {
          ref = Array.from(document.querySelectorAll(".qe-editor > :not(.qe-far)")).find((b) => {
            const top = b.getBoundingClientRect().top;
            return top > 100 && top < window.innerHeight - 200;
          });
          window.__qeRef = ref;
        }
        resolve(JSON.stringify({ top: ref ? ref.getBoundingClientRect().top : null, scrollY: window.scrollY }));
      };
      requestAnimationFrame(frame);
    })`)) as string;
    if (reading === last) return JSON.parse(reading);
    last = reading;
  }
  throw new Error(`the page did not settle: ${last}`);
}

/** The writer's editor on a new page of longDocument() in a change request of its own, its first block drawn. */
async function openLongPage(title: string, subject: string) {
  const original = longDocument();
  const { content } = await commitContent(ctx, spaceId, {
    pages: [{ title, slug: title.toLowerCase(), extra: { documentHash: await saveDocument(ctx.db, original) } }],
  });
  const pageId = content.pages[0]!.id;
  const cr = await createChangeRequest(ctx, owner, spaceId, { subject });
  const { page } = await e2e.signIn(writer);
  const problems = watchProblems(page);
  await openEditor(page, `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/p/${pageId}/edit`);
  await page.locator(".qe-editor p", { hasText: textOf(0) }).waitFor({ timeout: 30_000 });
  return { page, problems, original };
}

describe("a long page in the block editor", () => {
  it("draws only the blocks near the window, and keeps every keystroke of two browsers where it was typed", async () => {
    const original = longDocument();
    const { content } = await commitContent(ctx, spaceId, {
      pages: [{ title: "Long", slug: "long", extra: { documentHash: await saveDocument(ctx.db, original) } }],
    });
    const pageId = content.pages[0]!.id;
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Long page" });
    const editUrl = `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/p/${pageId}/edit`;
    const expected = blockTexts(original);
    expect(expected).toHaveLength(BLOCKS);

    const { page: a } = await e2e.signIn(writer);
    const problems = watchProblems(a);
    await openEditor(a, editUrl);
    await a.locator(".qe-editor p", { hasText: textOf(0) }).waitFor({ timeout: 30_000 });
    // Every block has its place in the page; only those near the window hold their content.
    expect(await a.locator(".qe-editor > *").count()).toBe(BLOCKS);
    expect(await drawn(a)).toBeLessThan(BLOCKS / 3);
    expect(await placeholders(a)).toBeGreaterThan(BLOCKS / 2);
    expect(await editorTexts(a)).toEqual(expected);

    // Typing near the top.
    await caretAtEndOfBlock(a, 2);
    await a.keyboard.type(" Typed at the top.");
    expected[2] += " Typed at the top.";

    // Scrolling to the bottom draws the last blocks (and no longer the first ones); typing there.
    await a.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await caretAtEndOfBlock(a, BLOCKS - 1);
    await a.keyboard.type(" Typed at the bottom.");
    expected[BLOCKS - 1] += " Typed at the bottom.";
    await expect.poll(() => a.locator(".qe-editor > *").first().getAttribute("class"), { timeout: 20_000 }).toContain("qe-far");
    await expect.poll(() => placeholdersInView(a), { timeout: 20_000 }).toBe(0);
    await viewShot(a, "editor-window-bottom");
    // Scrolling up with the wheel, as a reader does: the blocks coming into the window are drawn.
    for (let i = 0; i < 6; i++) await a.mouse.wheel(0, -1500);
    await expect.poll(() => placeholdersInView(a), { timeout: 20_000 }).toBe(0);
    await viewShot(a, "editor-window-wheel");
    expect(await editorTexts(a)).toEqual(expected);

    // A second browser types into a block in the middle, which A does not draw.
    const { page: b } = await e2e.signIn(owner);
    const problemsB = watchProblems(b);
    await openEditor(b, editUrl);
    const middle = Math.floor(BLOCKS / 2); // a paragraph (300 % 7 = 6)
    await b.evaluate((text) => {
      const { editor } = (window as any).quireEditor;
      let at = -1;
      editor.state.doc.forEach((node: { textContent: string }, offset: number) => {
        if (at < 0 && node.textContent === text) at = offset;
      });
      editor
        .chain()
        .setTextSelection(at + 1)
        .scrollIntoView()
        .run();
    }, textOf(middle));
    await caretAtEndOfBlock(b, middle);
    await b.keyboard.type(" Typed by B.");
    expected[middle] += " Typed by B.";
    await expect.poll(() => editorTexts(a), { timeout: 30_000 }).toEqual(expected);
    expect(await a.locator(".qe-editor p", { hasText: "Typed by B." }).count()).toBe(0);

    // A selection from near the top to the bottom (across blocks drawn by neither), deleted, then undone.
    await a.evaluate(
      ({ first, last }) => {
        const { editor } = (window as any).quireEditor;
        const starts: number[] = [];
        editor.state.doc.forEach((_node: unknown, offset: number) => {
          starts.push(offset);
        });
        const from = starts[first]! + 1 + "Block ".length;
        const to = starts[last]! + 1 + "Block ".length;
        editor.chain().focus().setTextSelection({ from, to }).run();
      },
      { first: 14, last: BLOCKS - 1 },
    );
    await expect.poll(() => a.evaluate(() => Boolean(document.activeElement?.closest(".qe-editor"))), { timeout: 10_000 }).toBe(true);
    // Copy takes the document's text, drawn or not.
    await a.evaluate(() => {
      document.addEventListener("copy", (event) => {
        (window as any).copied = event.clipboardData?.getData("text/plain");
      });
    });
    await a.keyboard.press("Control+c");
    const copied = (await a.evaluate(() => (window as any).copied as string | undefined)) ?? "";
    for (const i of [15, 100, middle, 598]) expect(copied).toContain(expected[i]);
    await a.keyboard.press("Backspace");
    // Block 14 keeps its "Block " and takes the rest of the last block's text; those between are gone.
    await expect.poll(() => editorTexts(a), { timeout: 30_000 }).toEqual([...expected.slice(0, 14), expected[BLOCKS - 1]]);
    await a.keyboard.press("Control+z");
    await expect.poll(() => editorTexts(a), { timeout: 30_000 }).toEqual(expected);
    await expect.poll(() => editorTexts(b), { timeout: 30_000 }).toEqual(expected);

    // The browser's find: every block drawn, so that it finds text anywhere; a click in the page
    // draws only the near blocks again.
    await a.keyboard.press("Control+f");
    await expect.poll(() => placeholders(a), { timeout: 30_000 }).toBe(0);
    expect(await a.locator(".qe-editor p", { hasText: "Typed by B." }).count()).toBe(1);
    await a.locator(".qe-editor p", { hasText: "Typed at the top." }).click();
    await expect.poll(() => placeholders(a), { timeout: 30_000 }).toBeGreaterThan(BLOCKS / 2);

    // A scrolls to the middle: B's words are drawn where B typed them.
    await a.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight / 2));
    await a.locator(".qe-editor p", { hasText: "Typed by B." }).waitFor({ timeout: 30_000 });
    await expect.poll(() => placeholdersInView(a), { timeout: 20_000 }).toBe(0);
    await viewShot(a, "editor-window-middle");

    // The change request holds the converged document: every block, each with what was typed into it.
    const saved = async () => {
      const res = await ctx.as(owner).get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${pageId}`);
      return res.status === 200 ? blockTexts(res.body.document as JSONDocument) : [];
    };
    await expect.poll(saved, { timeout: 60_000, interval: 250 }).toEqual(expected);
    await a.locator('#qe-status[data-state="saved"]').waitFor({ timeout: 30_000 });
    expect(problems).toEqual([]);
    expect(problemsB).toEqual([]);
  }, 300_000);
  it("keeps the text in the window in place while scrolling up through blocks drawn for the first time", async () => {
    const { page, problems } = await openLongPage("Scrolled", "Scrolling up");
    // Straight to the bottom: the blocks above were never drawn (placeholders of an estimated height).
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect.poll(() => placeholdersInView(page), { timeout: 20_000 }).toBe(0);
    // The first block drawn at the bottom (past the first few: the one holding the caret is drawn too).
    const lowestDrawn = await page.evaluate(() =>
      Array.from(document.querySelectorAll(".qe-editor > *")).findIndex((b, i) => i > 20 && !b.classList.contains("qe-far")),
    );
    await page.mouse.move(640, 400);
    const moves: string[] = [];
    for (let step = 0; step < 16; step++) {
      await page.evaluate(() => {
        delete (window as any).__qeRef;
      });
      const before = await settledView(page);
      await page.mouse.wheel(0, -300);
      await expect.poll(() => page.evaluate(() => window.scrollY), { timeout: 10_000 }).not.toBe(before.scrollY);
      const after = await settledView(page);
      // A block drawn in the window moves down by what the wheel scrolled, no more, no less: blocks
      // drawn above it (their real height for an estimate) move the scroll position with them
      // (the browser's scroll anchoring), not the text in view.
      moves.push(`${(after.top - before.top).toFixed(1)} (scroll position ${(after.scrollY - before.scrollY).toFixed(1)})`);
      expect(Math.abs(after.top - before.top - 300), moves.join(", ")).toBeLessThanOrEqual(2);
    }
    // The blocks in the window now were placeholders at the bottom: the window was redrawn on the way up.
    const firstInView = await page.evaluate(() =>
      Array.from(document.querySelectorAll(".qe-editor > *")).findIndex((b) => b.getBoundingClientRect().bottom > 0),
    );
    expect(firstInView).toBeLessThan(lowestDrawn);
    expect(problems).toEqual([]);
  }, 300_000);

  it("lays out one spacer per run of far blocks, and lands where a jump goes (a block far down, Ctrl+End, Ctrl+Home)", async () => {
    const { page, problems, original } = await openLongPage("Spacers", "Spacers");
    const expected = blockTexts(original);
    await expect.poll(() => placeholdersInView(page), { timeout: 20_000 }).toBe(0);
    // Every block has its element, but only the drawn ones and one spacer per run of far blocks have a box.
    expect(await page.locator(".qe-editor > *").count()).toBe(BLOCKS);
    const drawnAtTop = await drawn(page);
    expect(await laidOut(page)).toBeLessThanOrEqual(2 * drawnAtTop + 1);
    expect(await laidOut(page)).toBeLessThan(BLOCKS / 4);
    // The spacers keep the page as tall as its blocks: far blocks are still scrolled past, not skipped.
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(BLOCKS * 30);

    // A jump to a heading far down (as a comment's "show in page" does): it is drawn and in the window,
    // and stays there once the blocks around it are drawn (their real heights for estimates).
    const heading = 400; // 400 % 7 = 1: a heading
    await page.evaluate((text) => {
      const { editor } = (window as any).quireEditor;
      let at = -1;
      editor.state.doc.forEach((node: { textContent: string }, offset: number) => {
        if (at < 0 && node.textContent === text) at = offset;
      });
      editor
        .chain()
        .focus()
        .setTextSelection(at + 1)
        .scrollIntoView()
        .run();
    }, textOf(heading));
    await expect.poll(() => placeholdersInView(page), { timeout: 20_000 }).toBe(0);
    await settledView(page);
    expect(await blockInView(page, textOf(heading))).toBe("in view");
    expect(await laidOut(page)).toBeLessThan(BLOCKS / 4);
    await page.keyboard.type("Found ");
    expected[heading] = `Found ${expected[heading]}`;
    await viewShot(page, "editor-window-jump");

    // Ctrl+End from there: the caret at the end of the last block, which is drawn and in view; typing lands there.
    await page.keyboard.press("Control+End");
    await page.keyboard.type(" The end.");
    expected[BLOCKS - 1] += " The end.";
    await expect.poll(() => placeholdersInView(page), { timeout: 20_000 }).toBe(0);
    await settledView(page);
    expect(await blockInView(page, expected[BLOCKS - 1]!)).toBe("in view");
    expect(await laidOut(page)).toBeLessThan(BLOCKS / 4);
    await viewShot(page, "editor-window-end");

    // Ctrl+Home: back to the start of the first block.
    await page.keyboard.press("Control+Home");
    await page.keyboard.type("Start. ");
    expected[0] = `Start. ${expected[0]}`;
    await expect.poll(() => placeholdersInView(page), { timeout: 20_000 }).toBe(0);
    await settledView(page);
    expect(await blockInView(page, expected[0]!)).toBe("in view");
    expect(await editorTexts(page)).toEqual(expected);

    // Ctrl+Shift+End: the selection from the caret to the document's end, across blocks never drawn.
    const caret = await page.evaluate(() => (window as any).quireEditor.editor.state.selection.head as number);
    await page.keyboard.press("Control+Shift+End");
    const selected = () =>
      page.evaluate(() => {
        const { state } = (window as any).quireEditor.editor;
        return { anchor: state.selection.anchor, head: state.selection.head, end: state.doc.content.size - 1 };
      });
    await expect.poll(async () => (await selected()).head === (await selected()).end, { timeout: 10_000 }).toBe(true);
    expect((await selected()).anchor).toBe(caret);
    expect(problems).toEqual([]);
  }, 300_000);
});
