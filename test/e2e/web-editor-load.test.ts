/**
 * The caret under load, in Chromium with live collaboration: two editors type into the same
 * paragraph (one in its middle, one at its end) while the server is busy: other requests store
 * 1 MB pages, and the server's thread is held by stretches of synchronous work (as a long request
 * holds it), so that updates, saves and `saved` messages arrive late and bunched in the middle of
 * the typing. Nothing typed may be lost, doubled or reordered: each editor's words come out whole,
 * where its caret was, in both browsers and in the change request. No timing is asserted: a slower
 * machine only makes the test longer. QUIRE_SCREENSHOTS_DIR=<dir> keeps a screenshot.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

/** A page of about `bytes` of JSON: plain paragraphs. */
function bigDocument(bytes: number) {
  const nodes: unknown[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const text = `Paragraph ${i} of a long page about lamps, lenses, wicks and the weather at sea.`;
    nodes.push({ object: "block", type: "paragraph", nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }] });
    size += text.length + 90;
  }
  return { object: "document", data: {}, nodes };
}

const textblocks = (page: import("playwright-core").Page) =>
  page.evaluate(() => {
    const texts: string[] = [];
    (window as any).quireEditor.editor.state.doc.descendants((node: { isTextblock: boolean; textContent: string }) => {
      if (node.isTextblock) texts.push(node.textContent);
      return !node.isTextblock;
    });
    return texts;
  });

describe("typing while the server is busy", () => {
  it("loses, doubles and reorders no keystroke of either editor", async () => {
    const { content } = await commitContent(ctx, spaceId, {
      pages: [{ title: "Watch", slug: "watch", paragraphs: ["The keeper lights the lamp.", "Second paragraph."] }],
    });
    const pageId = content.pages[0]!.id;
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Under load" });
    const busyCr = await createChangeRequest(ctx, owner, spaceId, { subject: "Heavy work" });
    const editUrl = `${base}/app/o/${orgId}/s/${spaceId}/~/changes/${cr.number}/p/${pageId}/edit`;
    const open = async (user: TestUser) => {
      const { page } = await e2e.signIn(user);
      await openEditor(page, editUrl);
      await page.locator('.qe-editor[contenteditable="true"]').waitFor({ timeout: 30_000 });
      await page.locator(".qe-editor p", { hasText: "The keeper lights the lamp." }).waitFor({ timeout: 30_000 });
      return page;
    };
    const a = await open(writer);
    const b = await open(owner);
    const problemsA = watchProblems(a);
    const problemsB = watchProblems(b);

    // A's caret after "keeper", B's at the end of the paragraph, each checked in the editor's state.
    const caretAt = async (page: typeof a, offset: number | "end") => {
      await expect
        .poll(
          () =>
            page.evaluate((at) => {
              const { editor } = (window as any).quireEditor;
              let pos = -1;
              editor.state.doc.descendants((node: { isTextblock: boolean; textContent: string; nodeSize: number }, p: number) => {
                if (pos < 0 && node.isTextblock && node.textContent.startsWith("The keeper")) {
                  pos = p + 1 + (at === "end" ? node.textContent.length : at);
                }
                return pos < 0;
              });
              editor.chain().focus().setTextSelection(pos).run();
              return editor.state.selection.from === pos && document.activeElement === editor.view.dom;
            }, offset),
          { timeout: 20_000 },
        )
        .toBe(true);
    };
    await caretAt(a, "The keeper".length);
    await caretAt(b, "end");

    // The server's work: large pages stored one after the other, and its thread held for 150 ms
    // at a time (with a few ms free between), until the typing is done.
    let busy = true;
    const heavy = (async () => {
      let n = 0;
      while (busy) {
        const res = await ctx.as(owner).post(`/v1/spaces/${spaceId}/change-requests/${busyCr.id}/content?compat=false`, {
          changes: [{ operation: "insert_page", ref: `p${n}`, title: `Heavy ${n++}`, document: { document: bigDocument(1_000_000) } }],
        });
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
      }
      return n;
    })();
    let holds = 0;
    const hold = setInterval(() => {
      const until = performance.now() + 150;
      while (performance.now() < until) {
        // The thread is held, as a long synchronous step of a request holds it.
      }
      holds++;
    }, 5);

    const wordsA = " old and patient";
    const wordsB = " Then he winds the clock, logs the ships and watches the fog.";
    try {
      await Promise.all([a.keyboard.type(wordsA, { delay: 40 }), b.keyboard.type(wordsB, { delay: 25 })]);
    } finally {
      busy = false;
      clearInterval(hold);
    }
    const stored = await heavy;
    expect(stored).toBeGreaterThan(0);
    expect(holds).toBeGreaterThan(0);

    const expected = `The keeper${wordsA} lights the lamp.${wordsB}`;
    for (const page of [a, b]) {
      await expect.poll(() => textblocks(page), { timeout: 60_000 }).toEqual([expected, "Second paragraph."]);
    }
    // And the change request holds it, once saved.
    await expect
      .poll(
        async () => {
          const res = await ctx.as(owner).get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${pageId}`);
          return (res.body.document?.nodes ?? []).map((n: { nodes: { leaves: { text: string }[] }[] }) =>
            n.nodes.map((t) => t.leaves.map((l) => l.text).join("")).join(""),
          );
        },
        { timeout: 60_000, interval: 250 },
      )
      .toEqual([expected, "Second paragraph."]);
    // The other's named cursor shows over its line (a long page's blocks clip what they paint, with a margin for it).
    await b.locator(".ProseMirror-yjs-cursor", { hasText: "Wren Writer" }).waitFor({ timeout: 30_000 });
    await e2e.shot(b, "editor-load-cursor");
    expect(problemsA).toEqual([]);
    expect(problemsB).toEqual([]);
  }, 300_000);
});
