/**
 * The drag handle: a grip at the left of a top-level block (the one under the mouse, or the one
 * holding the caret after a touch). With a mouse, dragging it is ProseMirror's own drag and drop of
 * a node selection. A finger (or a pen) has no HTML drag and drop on most browsers: the handle
 * follows the pointer itself, shows where the block will land, and moves it in one transaction, so
 * undo and collaboration see one move either way.
 */
import { Extension } from "@tiptap/core";
import { NodeSelection, Plugin, TextSelection } from "@tiptap/pm/state";
import type { EditorView } from "@tiptap/pm/view";
import { blockBox } from "./window.js";

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

/** The top-level block holding the selection's head. */
function topLevelBlockOfSelection(view: EditorView): { pos: number; dom: HTMLElement } | undefined {
  const { selection, doc } = view.state;
  if (doc.childCount === 0) return undefined;
  const $head = doc.resolve(selection.head);
  const pos = $head.depth === 0 ? (selection instanceof NodeSelection ? selection.from : undefined) : $head.before(1);
  if (pos === undefined) return undefined;
  const dom = view.nodeDOM(pos);
  return dom instanceof HTMLElement ? { pos, dom } : undefined;
}

/**
 * Where a block dropped at the height `y` lands: the boundary between two top-level blocks nearest
 * to it (before the first block whose middle is below `y`). Blocks are laid out top to bottom,
 * so a binary search reads a handful of boxes, not one per block of a long page.
 */
export function dropBoundary(view: EditorView, y: number): { pos: number; y: number } {
  const { doc } = view.state;
  const starts: number[] = [];
  doc.forEach((_node, offset) => {
    starts.push(offset);
  });
  // Far blocks of a long page have no box of their own (window.ts): where they would be.
  const box = (i: number) => blockBox(view.nodeDOM(starts[i]!));
  let low = 0;
  let high = starts.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    const rect = box(mid);
    if (rect && rect.top + rect.height / 2 <= y) low = mid + 1;
    else high = mid;
  }
  if (low < starts.length) {
    const rect = box(low);
    return { pos: starts[low]!, y: rect ? rect.top : y };
  }
  const last = starts.length ? box(starts.length - 1) : undefined;
  return { pos: doc.content.size, y: last ? last.bottom : y };
}

/** Moves the top-level block at `from` to the boundary `to`, in one transaction; false when it would not move. */
export function moveBlock(view: EditorView, from: number, to: number): boolean {
  const { state } = view;
  const node = state.doc.nodeAt(from);
  if (!node) return false;
  const end = from + node.nodeSize;
  if (to === from || to === end) return false;
  const tr = state.tr;
  // Inserting after the block first (or deleting before it first) leaves the other position as it was.
  let at: number;
  if (to > end) {
    tr.insert(to, node);
    tr.delete(from, end);
    at = to - node.nodeSize;
  } else {
    tr.delete(from, end);
    tr.insert(to, node);
    at = to;
  }
  const selection = node.isTextblock ? TextSelection.create(tr.doc, at + 1) : NodeSelection.create(tr.doc, at);
  view.dispatch(tr.setSelection(selection).scrollIntoView());
  return true;
}

export const DragHandle = Extension.create({
  name: "dragHandle",
  addProseMirrorPlugins() {
    let current: number | undefined;
    /** The last pointer seen over the editor was a finger or a pen: the handle follows the caret. */
    let touching = false;
    let drag: { pointerId: number; from: number; to: number | undefined } | undefined;
    const handle = document.createElement("div");
    handle.className = "qe-handle";
    handle.draggable = true;
    handle.title = "Drag to move the block";
    handle.textContent = "⠿";
    handle.hidden = true;
    const indicator = document.createElement("div");
    indicator.className = "qe-drop-indicator";
    indicator.hidden = true;

    const place = (view: EditorView, block: { pos: number; dom: HTMLElement }) => {
      current = block.pos;
      const parent = view.dom.parentElement!.getBoundingClientRect();
      const box = block.dom.getBoundingClientRect();
      handle.hidden = false;
      handle.style.top = `${box.top - parent.top}px`;
    };
    const endDrag = () => {
      drag = undefined;
      indicator.hidden = true;
      handle.classList.remove("qe-handle-dragging");
      view?.dom.classList.remove("qe-moving");
    };
    let view: EditorView | undefined;

    return [
      new Plugin({
        view: (editorView) => {
          view = editorView;
          editorView.dom.parentElement?.append(handle, indicator);
          handle.addEventListener("dragstart", (event) => {
            if (current === undefined || !event.dataTransfer) return;
            const selection = NodeSelection.create(editorView.state.doc, current);
            editorView.dispatch(editorView.state.tr.setSelection(selection));
            const slice = selection.content();
            event.dataTransfer.effectAllowed = "move";
            event.dataTransfer.setData("text/plain", slice.content.textBetween(0, slice.content.size, "\n"));
            const dom = editorView.nodeDOM(current);
            if (dom instanceof HTMLElement) event.dataTransfer.setDragImage(dom, 0, 0);
            editorView.dragging = { slice, move: true };
          });
          handle.addEventListener("pointerdown", (event) => {
            if (event.pointerType === "mouse" || current === undefined || !editorView.editable) return;
            // No scrolling, no text selection, no HTML drag: the move is ours.
            event.preventDefault();
            handle.setPointerCapture(event.pointerId);
            drag = { pointerId: event.pointerId, from: current, to: undefined };
            handle.classList.add("qe-handle-dragging");
            editorView.dom.classList.add("qe-moving");
          });
          handle.addEventListener("pointermove", (event) => {
            if (!drag || event.pointerId !== drag.pointerId) return;
            event.preventDefault();
            // Near the top or bottom of the window, the page scrolls to reach blocks out of view.
            const edge = 48;
            if (event.clientY < edge) window.scrollBy(0, -Math.ceil((edge - event.clientY) / 2));
            else if (event.clientY > window.innerHeight - edge)
              window.scrollBy(0, Math.ceil((event.clientY - window.innerHeight + edge) / 2));
            const boundary = dropBoundary(editorView, event.clientY);
            const node = editorView.state.doc.nodeAt(drag.from);
            const still = !node || boundary.pos === drag.from || boundary.pos === drag.from + node.nodeSize;
            drag.to = still ? undefined : boundary.pos;
            const parent = editorView.dom.parentElement!.getBoundingClientRect();
            indicator.hidden = still;
            indicator.style.top = `${boundary.y - parent.top - 2}px`;
            handle.style.top = `${event.clientY - parent.top - handle.offsetHeight / 2}px`;
          });
          handle.addEventListener("pointerup", (event) => {
            if (!drag || event.pointerId !== drag.pointerId) return;
            const { from, to } = drag;
            endDrag();
            if (to !== undefined) moveBlock(editorView, from, to);
            const block = topLevelBlockOfSelection(editorView);
            if (block) place(editorView, block);
          });
          handle.addEventListener("pointercancel", endDrag);
          // A long press on the grip would open the browser's menu over it.
          handle.addEventListener("contextmenu", (event) => event.preventDefault());
          return {
            update: (updated) => {
              // A finger cannot hover: the handle stands by the block holding the caret.
              if (!touching || drag) return;
              const block = topLevelBlockOfSelection(updated);
              if (block) place(updated, block);
              else handle.hidden = true;
            },
            destroy: () => {
              handle.remove();
              indicator.remove();
            },
          };
        },
        props: {
          handleDOMEvents: {
            pointerdown: (_view, event) => {
              touching = event.pointerType !== "mouse";
              return false;
            },
            pointermove: (editorView, event) => {
              if (event.pointerType !== "mouse") return false;
              touching = false;
              if (!editorView.editable || drag) return false;
              const rect = editorView.dom.getBoundingClientRect();
              const block = topLevelBlockAt(editorView, Math.max(event.clientX, rect.left + 8), event.clientY);
              if (block) place(editorView, block);
              return false;
            },
          },
        },
      }),
    ];
  },
});
