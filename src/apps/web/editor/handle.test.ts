/**
 * Block moves through the editor's own plugins without a browser: the Yjs binding (y-prosemirror's
 * sync and undo plugins over a Y.Doc, as the editor has them) and the block keys plugin, driven by a
 * minimal view (state, dispatch, plugin views). Each block must keep its key through moves, undo and
 * redo, in the editor's state and in the Y.Doc that is saved.
 */
import type { EditorState, Transaction } from "@tiptap/pm/state";
import { EditorState as State } from "@tiptap/pm/state";
import type { EditorView } from "@tiptap/pm/view";
import { describe, expect, it } from "vitest";
import { redo, undo, ySyncPlugin, yUndoPlugin, yUndoPluginKey } from "y-prosemirror";
import * as Y from "yjs";
import { editorDocToYXmlFragment, editorSchema } from "../../../content/editor/index.js";
import { moveBlock } from "./handle.js";
import { blockKeysPlugin } from "./keys.js";

const schema = editorSchema();

/** An editor over a Y.Doc holding paragraphs keyed k1, k2, ... */
function editorOf(texts: string[]) {
  const ydoc = new Y.Doc();
  const fragment = ydoc.getXmlFragment("default");
  const content = texts.map((text, i) => ({ type: "paragraph", attrs: { key: `k${i + 1}`, data: {} }, content: [{ type: "text", text }] }));
  ydoc.transact(() => editorDocToYXmlFragment({ type: "doc", content } as never, fragment));
  let state: EditorState = State.create({ schema, plugins: [ySyncPlugin(fragment), yUndoPlugin(), blockKeysPlugin()] });
  const updates: Array<(view: EditorView, prev: EditorState) => void> = [];
  const view = {
    get state() {
      return state;
    },
    hasFocus: () => false,
    dispatch(tr: Transaction) {
      const prev = state;
      state = state.apply(tr);
      for (const update of updates) update(view, prev);
    },
  } as unknown as EditorView;
  for (const plugin of state.plugins) {
    const pluginView = plugin.spec.view?.(view);
    if (pluginView?.update) updates.push(pluginView.update.bind(pluginView));
  }
  const key = (text: string) => `k${texts.findIndex((t) => t[0] === text[0]) + 1}`;
  return {
    view,
    /** The blocks as "text=key", from the editor's state and from the Y.Doc. */
    blocks: () => {
      const out: string[] = [];
      view.state.doc.forEach((node) => {
        out.push(`${node.textContent}=${node.attrs.key}`);
      });
      const saved = fragment.toArray().map((el) => {
        const element = el as Y.XmlElement;
        return `${(element.toArray() as Y.XmlText[]).map((t) => t.toString()).join("")}=${element.getAttribute("key")}`;
      });
      return { out, saved };
    },
    /** Whether each block has the key of the block it started as (told by its first letter). */
    keysKept: () => {
      const out: string[] = [];
      view.state.doc.forEach((node) => {
        out.push(`${node.attrs.key}`);
      });
      const expected: string[] = [];
      view.state.doc.forEach((node) => {
        expected.push(key(node.textContent));
      });
      return out.join() === expected.join();
    },
    stopCapturing: () => yUndoPluginKey.getState(view.state)!.undoManager.stopCapturing(),
    start: (index: number) => {
      let pos = 0;
      for (let i = 0; i < index; i++) pos += view.state.doc.child(i).nodeSize;
      return pos;
    },
  };
}

describe("moving blocks, with undo and redo", () => {
  it("each block keeps its key after a move, its undo and its redo, in the editor and in the Y.Doc", () => {
    for (const captured of [false, true]) {
      const e = editorOf(["Light the lamp.", "Trim the wick.", "Wind the clock.", "Log the ships."]);
      expect(moveBlock(e.view, e.start(3), e.start(1))).toBe(true);
      const moved = ["Light the lamp.=k1", "Log the ships.=k4", "Trim the wick.=k2", "Wind the clock.=k3"];
      expect(e.blocks()).toEqual({ out: moved, saved: moved });
      // A writer slower than the undo manager's capture window, or not.
      if (captured) e.stopCapturing();
      expect(undo(e.view.state)).toBe(true);
      const back = ["Light the lamp.=k1", "Trim the wick.=k2", "Wind the clock.=k3", "Log the ships.=k4"];
      expect(e.blocks()).toEqual({ out: back, saved: back });
      expect(redo(e.view.state)).toBe(true);
      expect(e.blocks()).toEqual({ out: moved, saved: moved });
      expect(moveBlock(e.view, e.start(0), e.view.state.doc.content.size)).toBe(true);
      e.view.dispatch(e.view.state.tr.insertText(" Now.", e.start(4) - 1));
      const last = ["Log the ships.=k4", "Trim the wick.=k2", "Wind the clock.=k3", "Light the lamp. Now.=k1"];
      expect(e.blocks()).toEqual({ out: last, saved: last });
    }
  });

  it("keeps every block's key through random sequences of moves, typing, undo and redo", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    for (let run = 0; run < 60; run++) {
      const e = editorOf(["Alpha.", "Bravo.", "Charlie.", "Delta.", "Echo."].slice(0, 2 + Math.floor(random() * 4)));
      const steps: string[] = [];
      for (let step = 0; step < 10; step++) {
        if (random() < 0.5) e.stopCapturing();
        const n = e.view.state.doc.childCount;
        const what = random();
        if (what < 0.5) {
          const from = Math.floor(random() * n);
          const to = Math.floor(random() * (n + 1));
          if (moveBlock(e.view, e.start(from), to === n ? e.view.state.doc.content.size : e.start(to))) steps.push(`move ${from} to ${to}`);
        } else if (what < 0.65) {
          const i = Math.floor(random() * n);
          e.view.dispatch(e.view.state.tr.insertText("x", e.start(i) + 2));
          steps.push(`type in ${i}`);
        } else if (what < 0.82) {
          undo(e.view.state);
          steps.push("undo");
        } else {
          redo(e.view.state);
          steps.push("redo");
        }
        const { out, saved } = e.blocks();
        expect(saved, steps.join(", ")).toEqual(out);
        expect(e.keysKept(), `${steps.join(", ")}: ${out.join(" ")}`).toBe(true);
      }
    }
  });
});
