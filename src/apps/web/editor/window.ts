/**
 * Viewport windowing of long pages. On a page of many top-level blocks, the blocks far from the
 * window are drawn as empty placeholders of their height: Chromium re-reads the editable's text
 * for the input method and measures the text before the caret on every key, and lays out and
 * styles every block on opening, in time that grows with the page. The document (the model, Yjs,
 * saving, undo, copy, comments) is untouched: only the drawing of far blocks is left out.
 *
 * A plugin marks the near top-level blocks with node decorations (spec `qeNear`); every block's
 * node view is wrapped so that an unmarked top-level block becomes a `FarBlock` (no content,
 * `contenteditable=false`, its last measured or an estimated height), and a block whose mark comes
 * or goes is redrawn (`update` answers false). The blocks holding the selection are never far, so typing always goes
 * into real DOM. The near range follows scrolling with a screen of margin either side.
 *
 * Each run of consecutive far blocks is laid out as one spacer: its first placeholder carries the
 * run's total height and the others are `display: none`. Chromium lays out, pre-paints and paints
 * on each key in time that grows with the number of top-level boxes, placeholders included; with
 * spacers a long page has about as many boxes as a short one. Where a hidden placeholder would be
 * is known from its run's spacer and the heights before it in the run (`blockBox`), which is what
 * the window (and the drag handle's drop position) reads instead of its box.
 *
 * The browser's find (Ctrl+F / Cmd+F) and printing see only drawn text: both draw every block
 * first, and windowing resumes with the next click or key in the editor. Ctrl+End / Ctrl+Home
 * (Cmd+Down / Cmd+Up; with Shift, extending the selection) go to the document's end or start, drawn
 * or not, and scroll there: the browser's own would stop at the last or first drawn block.
 */
import type { AnyExtension } from "@tiptap/core";
import type { Node as PMNode } from "@tiptap/pm/model";
import { type EditorState, NodeSelection, Plugin, PluginKey, Selection, TextSelection } from "@tiptap/pm/state";
import { Decoration, DecorationSet, type EditorView, type NodeView } from "@tiptap/pm/view";

/** Pages of at least this many top-level blocks are windowed (ordinary pages keep every block drawn). */
export const WINDOW_FROM = 300;
/** Below this many the window is lifted again (a gap, so a page near the limit does not flip). */
const WINDOW_UNTIL = 200;
/** Blocks drawn when a long page is first shown, before anything is measured. */
const FIRST_DRAWN = 60;

const NEAR_SPEC = { qeNear: true };
type Decorations = readonly Decoration[];
const isNear = (decorations: Decorations | undefined): boolean => !!decorations?.some((d) => d.spec.qeNear === true);

interface WindowState {
  active: boolean;
  /** Every block drawn (find in page, printing). */
  suspended: boolean;
  /**
   * The top-level blocks to draw, marked. The near ones rather than the far ones: ProseMirror looks
   * through a node's own decorations once for each of its children, quadratic with a mark on each.
   */
  near: DecorationSet;
}
interface WindowMeta {
  /** Top-level block indexes to draw, both included. */
  near?: [number, number];
  suspend?: boolean;
}

export const windowKey = new PluginKey<WindowState>("qeWindow");

/** The top-level block ranges the selection touches (its ends' blocks; all between stay as they are). */
function selectionBlocks(selection: Selection): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  if (selection instanceof NodeSelection && selection.$from.depth === 0) ranges.push([selection.from, selection.to]);
  for (const $pos of [selection.$anchor, selection.$head])
    if ($pos.depth >= 1) ranges.push([$pos.before(1), $pos.after(1)]);
    else if ($pos.nodeAfter) ranges.push([$pos.pos, $pos.pos + $pos.nodeAfter.nodeSize]);
  return ranges;
}

function nearDecorations(doc: PMNode, near: [number, number], selection: Selection): DecorationSet {
  const decorations: Decoration[] = [];
  let pos = 0;
  doc.forEach((child, _offset, index) => {
    if (index >= near[0] && index <= near[1]) decorations.push(Decoration.node(pos, pos + child.nodeSize, {}, NEAR_SPEC));
    pos += child.nodeSize;
  });
  return drawSelection(DecorationSet.create(doc, decorations), doc, selection);
}

/** `near` with the blocks holding the selection (it may move into a far block: a click, a jump, an undo). */
function drawSelection(near: DecorationSet, doc: PMNode, selection: Selection): DecorationSet {
  for (const [from, to] of selectionBlocks(selection)) {
    if (!near.find(from, to, (spec) => spec.qeNear === true).some((d) => d.from <= from && d.to >= to))
      near = near.add(doc, [Decoration.node(from, to, {}, NEAR_SPEC)]);
  }
  return near;
}

/** Where the top-level blocks start, by document (a node view is far only at the top level). */
const startsByDoc = new WeakMap<PMNode, Set<number>>();
function isTopLevel(doc: PMNode, pos: number | undefined): boolean {
  if (pos === undefined) return false;
  let starts = startsByDoc.get(doc);
  if (!starts) {
    starts = new Set();
    for (let i = 0, at = 0; i < doc.childCount; at += doc.child(i).nodeSize, i++) starts.add(at);
    startsByDoc.set(doc, starts);
  }
  return starts.has(pos);
}

/** Whether a top-level block with these decorations is drawn as a placeholder. */
function farIn(view: EditorView, decorations: Decorations): boolean {
  const state = windowKey.getState(view.state);
  return !!state?.active && !state.suspended && !isNear(decorations);
}

/** Heights measured of blocks drawn, for their placeholders. */
const heights = new WeakMap<PMNode, number>();
/** How the measured heights compare with the estimates (adapts the estimates to the page's fonts and width). */
const calibration = { measured: 0, estimated: 0 };

function estimate(node: PMNode, width: number): number {
  const charsPerLine = Math.max(20, width / 8);
  let height = 0;
  const visit = (block: PMNode) => {
    if (block.isTextblock) {
      height += Math.max(1, Math.ceil(block.textContent.length / charsPerLine)) * 26 + 8;
    } else if (block.isLeaf) {
      height += 120;
    } else {
      block.forEach(visit);
      height += 12;
    }
  };
  visit(node);
  return height;
}

/** The editor's width, read when the page is laid out (reading it while blocks are being drawn would lay the page out for each). */
let editorWidth = 0;

function placeholderHeight(node: PMNode): number {
  const known = heights.get(node);
  if (known !== undefined) return known;
  const guess = estimate(node, editorWidth || 700);
  const factor = calibration.estimated > 0 ? Math.min(3, Math.max(0.3, calibration.measured / calibration.estimated)) : 1;
  return Math.round(guess * factor);
}

/** Each far block's placeholder height, by its element. */
const farHeights = new WeakMap<Element, number>();
/** Where a far block is: its run's spacer (the run's first placeholder) and the heights before it in the run. */
interface FarPlace {
  spacer: HTMLElement;
  offset: number;
  height: number;
}
const farPlaces = new WeakMap<Element, FarPlace>();
/** Views whose top-level blocks changed (drawn, made far, added, removed) since their runs were laid out. */
const runsChanged = new WeakSet<EditorView>();

/**
 * One spacer per run of consecutive far blocks: the first gets the run's height, the others no
 * box at all. A walk over the top-level elements, done only when top-level blocks were drawn,
 * made far, added or removed (not on a key typed into a drawn block).
 */
function layOutRuns(view: EditorView): void {
  runsChanged.delete(view);
  let spacer: HTMLElement | undefined;
  let total = 0;
  const close = () => {
    const height = `${total}px`;
    if (spacer && spacer.style.height !== height) spacer.style.height = height;
    spacer = undefined;
  };
  for (let child = view.dom.firstElementChild; child; child = child.nextElementSibling) {
    const height = farHeights.get(child);
    if (height === undefined || !(child instanceof HTMLElement)) {
      close();
      continue;
    }
    if (!spacer) {
      spacer = child;
      total = 0;
      if (child.style.display) child.style.display = "";
    } else if (child.style.display !== "none") child.style.display = "none";
    farPlaces.set(child, { spacer, offset: total, height });
    total += height;
  }
  close();
}

/**
 * A top-level block's box in window coordinates: its own when drawn, where it would be in its
 * run's spacer when far (hidden placeholders have no box).
 */
export function blockBox(dom: Node | null): { top: number; bottom: number; height: number } | undefined {
  if (!(dom instanceof HTMLElement)) return undefined;
  const place = farPlaces.get(dom);
  if (place?.spacer.isConnected) {
    const top = place.spacer.getBoundingClientRect().top + place.offset;
    return { top, bottom: top + place.height, height: place.height };
  }
  return dom.getBoundingClientRect();
}

/** A far block: its height and nothing else (no text for the browser to read on each key). */
class FarBlock implements NodeView {
  dom: HTMLElement;
  constructor(
    private node: PMNode,
    private readonly view: EditorView,
  ) {
    this.dom = document.createElement("div");
    this.dom.className = "qe-far";
    this.dom.contentEditable = "false";
    this.dom.dataset.type = node.type.name;
    const height = placeholderHeight(node);
    this.dom.style.height = `${height}px`;
    farHeights.set(this.dom, height);
    runsChanged.add(view);
  }
  destroy(): void {
    runsChanged.add(this.view);
  }
  update(node: PMNode, decorations: Decorations): boolean {
    // Drawn again when it comes near; a change from another writer keeps the height (measured when drawn).
    if (!farIn(this.view, decorations) || node.type !== this.node.type) return false;
    this.node = node;
    return true;
  }
  ignoreMutation(): boolean {
    return true;
  }
}

type ViewProps = { node: PMNode; view: EditorView; decorations: Decorations; getPos: () => number | undefined };
type ViewFactory = (props: ViewProps) => NodeView | undefined;

/** A block's node view (its own, or ProseMirror's drawing when it has none) that is redrawn when it becomes far. */
function windowedView(inner: ViewFactory | undefined): ViewFactory {
  return (props) => {
    const { node, view, decorations } = props;
    if (node.isInline || !windowKey.getState(view.state)?.active) return inner?.(props);
    // Nested blocks are drawn with their top-level block.
    if (!isTopLevel(view.state.doc, props.getPos())) return inner?.(props);
    if (farIn(view, decorations)) return new FarBlock(node, view);
    // A drawn block comes or goes: the runs of far blocks around it change.
    runsChanged.add(view);
    const real = inner?.(props);
    let current = node;
    if (!real)
      // No `dom`: ProseMirror draws the node from its schema, and asks this `update` first.
      return {
        update: (next: PMNode, outer: Decorations) => {
          if (farIn(view, outer) || !next.sameMarkup(current)) return false;
          current = next;
          return true;
        },
        destroy: () => runsChanged.add(view),
      } as unknown as NodeView;
    const ownDestroy = real.destroy?.bind(real);
    real.destroy = () => {
      runsChanged.add(view);
      ownDestroy?.();
    };
    const own = real.update?.bind(real);
    real.update = (next, outer, innerDecorations) => {
      if (farIn(view, outer)) return false;
      if (own) return own(next, outer, innerDecorations);
      // ProseMirror's rule for a view without `update`.
      if ((!real.contentDOM && !next.isLeaf) || !next.sameMarkup(current)) return false;
      current = next;
      return true;
    };
    return real;
  };
}

/** The editor's node extensions with windowed views (text and inline nodes as they are). */
export function windowedExtensions(extensions: AnyExtension[]): AnyExtension[] {
  return extensions.map((extension) => {
    if (extension.type !== "node" || extension.name === "doc" || extension.name === "text") return extension;
    return extension.extend({
      addNodeView() {
        const parent = (this as unknown as { parent?: () => ViewFactory | null | undefined }).parent?.();
        return windowedView(parent ?? undefined) as never;
      },
    });
  });
}

/** The plugin: which blocks are far, following the window's scrolling. */
export function windowPlugin(): Plugin<WindowState> {
  return new Plugin<WindowState>({
    key: windowKey,
    state: {
      init: (_config, state) => {
        const active = state.doc.childCount >= WINDOW_FROM;
        return {
          active,
          suspended: false,
          near: active ? nearDecorations(state.doc, [0, FIRST_DRAWN - 1], state.selection) : DecorationSet.empty,
        };
      },
      apply: (tr, value, _old, next) => {
        const meta = tr.getMeta(windowKey) as WindowMeta | undefined;
        if (!tr.docChanged && !tr.selectionSet && !meta) return value;
        let { active, suspended, near } = value;
        const count = next.doc.childCount;
        const all: [number, number] = [0, count - 1];
        if (tr.docChanged) {
          if (!active && count >= WINDOW_FROM) {
            // The page became long (the first render of a long page, a big paste): its top is drawn.
            active = true;
            near = nearDecorations(next.doc, suspended ? all : [0, FIRST_DRAWN - 1], next.selection);
          } else if (active && count < WINDOW_UNTIL) {
            // Every block marked near once: the placeholders left are redrawn.
            active = false;
            near = nearDecorations(next.doc, all, next.selection);
          } else near = near.map(tr.mapping, tr.doc);
        }
        if (meta?.suspend !== undefined && active) {
          suspended = meta.suspend;
          if (suspended) near = nearDecorations(next.doc, all, next.selection);
        }
        if (meta?.near && active && !suspended) near = nearDecorations(next.doc, meta.near, next.selection);
        else if (active && !suspended) near = drawSelection(near, next.doc, next.selection);
        if (active === value.active && suspended === value.suspended && near === value.near) return value;
        return { active, suspended, near };
      },
    },
    props: {
      decorations: (state) => windowKey.getState(state)?.near,
      handleKeyDown: (view, event) => {
        // The browser's own Ctrl+End stops at the last drawn block: the document's end (or start), drawn or not.
        if (!windowKey.getState(view.state)?.active || event.altKey) return false;
        const mac = /Mac|iP(hone|[oa]d)/.test(navigator.platform);
        const toEnd = mac ? event.metaKey && event.key === "ArrowDown" : event.ctrlKey && event.key === "End";
        const toStart = mac ? event.metaKey && event.key === "ArrowUp" : event.ctrlKey && event.key === "Home";
        if (!toEnd && !toStart) return false;
        const { doc, selection } = view.state;
        const target = toEnd ? Selection.atEnd(doc) : Selection.atStart(doc);
        // With Shift, the selection is extended from where it starts (its anchor) to there.
        const next = event.shiftKey ? TextSelection.between(selection.$anchor, target.$head) : target;
        view.dispatch(view.state.tr.setSelection(next).scrollIntoView());
        return true;
      },
    },
    view: (view) => new WindowView(view),
  });
}

/** Drawn: a screen above and below the window; redrawn when less than half a screen is left. */
class WindowView {
  private frame = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private starts: { doc: PMNode; at: number[] } | undefined;
  private near: [number, number] = [0, FIRST_DRAWN - 1];
  private readonly schedule = () => {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.measure());
  };
  private readonly onKey = (event: KeyboardEvent) => {
    const state = windowKey.getState(this.view.state);
    if (!state?.active) return;
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "f") {
      // The browser's find bar searches the drawn text: draw every block (the find bar still opens).
      if (!state.suspended) this.view.dispatch(this.view.state.tr.setMeta(windowKey, { suspend: true }));
      return;
    }
    if (state.suspended && this.view.dom.contains(event.target as Node)) this.resume();
  };
  private readonly onPointer = (event: Event) => {
    if (windowKey.getState(this.view.state)?.suspended && this.view.dom.contains(event.target as Node)) this.resume();
  };
  private readonly beforePrint = () => {
    if (windowKey.getState(this.view.state)?.active) this.view.dispatch(this.view.state.tr.setMeta(windowKey, { suspend: true }));
  };
  private readonly afterPrint = () => this.resume();

  constructor(private readonly view: EditorView) {
    // Before the page's blocks are drawn: cheap to lay out.
    editorWidth = view.dom.clientWidth;
    document.addEventListener("scroll", this.schedule, { capture: true, passive: true });
    window.addEventListener("resize", this.schedule, { passive: true });
    window.addEventListener("keydown", this.onKey, true);
    window.addEventListener("mousedown", this.onPointer, true);
    window.addEventListener("beforeprint", this.beforePrint);
    window.addEventListener("afterprint", this.afterPrint);
    if (runsChanged.has(view)) layOutRuns(view);
    this.schedule();
  }

  private resume(): void {
    if (windowKey.getState(this.view.state)?.suspended) {
      this.view.dispatch(this.view.state.tr.setMeta(windowKey, { suspend: false }));
      this.near = [-1, -1];
      this.schedule();
    }
  }

  update(view: EditorView, previous: EditorState): void {
    if (runsChanged.has(view)) layOutRuns(view);
    const state = windowKey.getState(view.state);
    if (!state?.active || state.suspended) return;
    if (!windowKey.getState(previous)?.active) {
      this.near = [0, FIRST_DRAWN - 1];
      this.schedule();
    } else if (view.state.doc !== previous.doc) {
      // Blocks come and go as the page is edited: measured again once the typing pauses, not on each
      // key (and the near range set again when blocks were added or removed: its indexes moved).
      if (view.state.doc.childCount !== previous.doc.childCount) this.near = [-1, -1];
      clearTimeout(this.timer);
      this.timer = setTimeout(this.schedule, 300);
    }
  }

  private startsOf(doc: PMNode): number[] {
    if (this.starts?.doc !== doc) {
      const at: number[] = [];
      doc.forEach((_child, offset) => {
        at.push(offset);
      });
      this.starts = { doc, at };
    }
    return this.starts.at;
  }

  private rect(at: number): { top: number; bottom: number } | undefined {
    return blockBox(this.view.nodeDOM(at));
  }

  /** The first block whose bottom is below `y` (window coordinates), by bisection (blocks are stacked). */
  private firstBelow(starts: number[], y: number): number {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      const rect = this.rect(starts[mid]!);
      if (rect && rect.bottom < y) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The last block whose top is above `y`. */
  private lastAbove(starts: number[], y: number): number {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      const rect = this.rect(starts[mid]!);
      if (rect && rect.top > y) high = mid - 1;
      else low = mid;
    }
    return low;
  }

  private measure(): void {
    this.frame = 0;
    const { view } = this;
    const state = windowKey.getState(view.state);
    if (!state?.active || state.suspended || view.isDestroyed) return;
    // Not during a composition: the input method's text is in the DOM, not yet in the document.
    if (view.composing) {
      this.timer = setTimeout(this.schedule, 300);
      return;
    }
    const starts = this.startsOf(view.state.doc);
    if (!starts.length) return;
    editorWidth = view.dom.clientWidth;
    const screen = window.innerHeight || 800;
    const needed: [number, number] = [this.firstBelow(starts, -screen / 2), this.lastAbove(starts, screen * 1.5)];
    if (needed[0] >= this.near[0] && needed[1] <= this.near[1] && this.near[1] < starts.length) return;
    const wanted: [number, number] = [this.firstBelow(starts, -screen), this.lastAbove(starts, screen * 2)];
    // Heights of the drawn blocks about to become far, for their placeholders.
    const doc = view.state.doc;
    for (let i = Math.max(0, this.near[0]); i <= Math.min(this.near[1], starts.length - 1); i++) {
      if (i >= wanted[0] && i <= wanted[1]) continue;
      const dom = view.nodeDOM(starts[i]!);
      if (!(dom instanceof HTMLElement) || dom.classList.contains("qe-far")) continue;
      const height = dom.getBoundingClientRect().height;
      const node = doc.child(i);
      heights.set(node, height);
      calibration.measured += height;
      calibration.estimated += estimate(node, editorWidth || 700);
    }
    this.near = wanted;
    view.dispatch(view.state.tr.setMeta(windowKey, { near: wanted } satisfies WindowMeta));
    // The blocks just drawn replace estimates with their real heights: measured again next frame.
    this.schedule();
  }

  destroy(): void {
    cancelAnimationFrame(this.frame);
    clearTimeout(this.timer);
    document.removeEventListener("scroll", this.schedule, { capture: true });
    window.removeEventListener("resize", this.schedule);
    window.removeEventListener("keydown", this.onKey, true);
    window.removeEventListener("mousedown", this.onPointer, true);
    window.removeEventListener("beforeprint", this.beforePrint);
    window.removeEventListener("afterprint", this.afterPrint);
  }
}
