/** What the block editor's Chromium tests share: opening it, the "/" menu, the caret, the selection. */
import type { Page } from "playwright-core";
import { expect } from "vitest";

/**
 * Types "/query" and picks the block once the menu shows it selected: Enter pressed before the menu
 * has caught up with the typing would pick whatever it listed a keystroke earlier.
 */
export async function insertBlock(page: Page, query: string, title: string): Promise<void> {
  await page.keyboard.type(`/${query}`);
  await page.locator('.qe-menu .qe-menu-item[aria-selected="true"] .qe-menu-title', { hasText: title }).waitFor();
  await page.keyboard.press("Enter");
}

/**
 * Clicks the paragraph holding `text` and puts the caret at its end. On a loaded machine a click
 * right after other input was seen to leave the caret where it was (about one run in eight with
 * another test file running): the click is repeated until the editor's selection is in that paragraph.
 */
export async function caretAtEndOf(page: Page, text: string): Promise<void> {
  const paragraph = page.locator(".qe-editor p", { hasText: text });
  await expect
    .poll(
      async () => {
        await paragraph.click();
        // A caret in a paragraph holding the text (a block selected by an earlier step, whose parent
        // is the document, would hold every text).
        return page.evaluate(() => {
          type Selection = { empty: boolean; $from: { parent: { isTextblock: boolean; textContent: string } } };
          const selection = (window as unknown as { quireEditor?: { editor: { state: { selection: Selection } } } }).quireEditor?.editor
            .state.selection;
          return selection?.empty && selection.$from.parent.isTextblock ? selection.$from.parent.textContent : "";
        });
      },
      { timeout: 20_000 },
    )
    .toContain(text);
  await page.keyboard.press("End");
}

export async function openEditor(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('#quire-editor[data-ready="true"]').waitFor({ timeout: 30_000 });
}

/** Selects the first occurrence of `text` in the document (as a drag over it would) and focuses the editor. */
export async function selectText(page: Page, text: string): Promise<void> {
  const found = await page.evaluate((wanted) => {
    const { editor } = (window as any).quireEditor;
    let at = -1;
    editor.state.doc.descendants((node: { isText: boolean; text?: string }, pos: number) => {
      if (at >= 0 || !node.isText) return at < 0;
      const index = node.text!.indexOf(wanted);
      if (index >= 0) at = pos + index;
      return false;
    });
    if (at < 0) return false;
    editor
      .chain()
      .focus()
      .setTextSelection({ from: at, to: at + wanted.length })
      .run();
    return true;
  }, text);
  expect(found, `"${text}" is in the document`).toBe(true);
  // Tiptap focuses the view on the next frame: keys pressed before that would go elsewhere.
  await expect.poll(() => page.evaluate(() => Boolean(document.activeElement?.closest(".qe-editor"))), { timeout: 10_000 }).toBe(true);
}
