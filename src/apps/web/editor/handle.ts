/**
 * The drag handle: hovering a top-level block shows a grip at its left; dragging it moves the block
 * (ProseMirror's own drag and drop of a node selection, so undo and collaboration see one move).
 */
import { Extension } from "@tiptap/core";
import { NodeSelection, Plugin } from "@tiptap/pm/state";
import type { EditorView } from "@tiptap/pm/view";

function topLevelBlockAt(view: EditorView, x: number, y: number): { pos: number; dom: HTMLElement } | undefined {
  const found = view.posAtCoords({ left: x, top: y });
  if (!found) return undefined;
  const $pos = view.state.doc.resolve(found.inside >= 0 ? found.inside : found.pos);
  if ($pos.depth === 0) {
    const node = view.state.doc.nodeAt(found.inside >= 0 ? found.inside : found.pos);
    if (!node) return undefined;
    const pos = found.inside >= 0 ? found.inside : found.pos;
    const dom = view.nodeDOM(pos);
    return dom instanceof HTMLElement ? { pos, dom } : undefined;
  }
  const pos = $pos.before(1);
  const dom = view.nodeDOM(pos);
  return dom instanceof HTMLElement ? { pos, dom } : undefined;
}

export const DragHandle = Extension.create({
  name: "dragHandle",
  addProseMirrorPlugins() {
    let current: number | undefined;
    const handle = document.createElement("div");
    handle.className = "qe-handle";
    handle.draggable = true;
    handle.title = "Drag to move the block";
    handle.textContent = "⠿";
    handle.hidden = true;
    return [
      new Plugin({
        view: (view) => {
          view.dom.parentElement?.append(handle);
          handle.addEventListener("dragstart", (event) => {
            if (current === undefined || !event.dataTransfer) return;
            const selection = NodeSelection.create(view.state.doc, current);
            view.dispatch(view.state.tr.setSelection(selection));
            const slice = selection.content();
            event.dataTransfer.effectAllowed = "move";
            event.dataTransfer.setData("text/plain", slice.content.textBetween(0, slice.content.size, "\n"));
            const dom = view.nodeDOM(current);
            if (dom instanceof HTMLElement) event.dataTransfer.setDragImage(dom, 0, 0);
            view.dragging = { slice, move: true };
          });
          return { destroy: () => handle.remove() };
        },
        props: {
          handleDOMEvents: {
            mousemove: (view, event) => {
              if (!view.editable) return false;
              const rect = view.dom.getBoundingClientRect();
              const block = topLevelBlockAt(view, Math.max(event.clientX, rect.left + 8), event.clientY);
              if (!block) return false;
              current = block.pos;
              const parent = view.dom.parentElement!.getBoundingClientRect();
              const box = block.dom.getBoundingClientRect();
              handle.hidden = false;
              handle.style.top = `${box.top - parent.top}px`;
              return false;
            },
          },
        },
      }),
    ];
  },
});
