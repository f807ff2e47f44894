import { CONTENT_BOTTOM, CONTENT_TOP } from "./theme.js";

/**
 * Vertical flow of the PDF body. Block renderers turn content into atomic items (one line of text,
 * one image, one table row…) and hand them to a Sink. The Paginator sink places items on pages and
 * starts a new page whenever the next item does not fit, so a line of text is never cut in two.
 *
 * Backgrounds and side bars of containers (hints, code blocks, quotes) are not drawn by the
 * containers themselves: each item lists the decorations it sits in, and when a page is complete
 * the paginator paints every decoration once over the span of its items on that page, then the
 * items on top. A hint that crosses a page break therefore gets one shaded box on each page.
 */

export interface Decoration {
  kind: "fill" | "bar";
  x: number;
  width: number;
  color: string;
}

export interface FlowItem {
  height: number;
  /** Containers this item is inside, outermost first. The same object identifies one container. */
  decos: readonly Decoration[];
  /** Draws the item with its top edge at `y`. */
  paint?: (doc: PDFKit.PDFDocument, y: number) => void;
  /** Distance from the top of the item to its first baseline, for list markers. */
  baseline?: number;
  /** Must end up on the same page as the item after it (heading lines). */
  keepWithNext?: boolean;
}

export interface Sink {
  /** Adds an item that must not be split across pages. */
  place(item: FlowItem): void;
  /** A vertical gap; dropped when it would start a page. */
  space(height: number, decos: readonly Decoration[]): void;
  /** Starts a new page unless `height` still fits (keeps a heading with the lines that follow it). */
  keep(height: number): void;
  /** Room left on the current page; Infinity when the sink does not paginate (a table cell). */
  remaining(): number;
  /** Room on an empty page. */
  capacity(): number;
  newPage(): void;
  /** While a table is open its header row is repeated at the top of every page it continues on. */
  pushRepeat(item: FlowItem): void;
  popRepeat(): void;
}

interface Placed {
  y: number;
  item: FlowItem;
}

/** Paints decorations (fills, then bars) under their items, then the items. */
export function paintPlaced(doc: PDFKit.PDFDocument, placed: readonly Placed[], dy = 0): void {
  const spans = new Map<Decoration, { top: number; bottom: number }>();
  for (const { y, item } of placed) {
    for (const deco of item.decos) {
      const span = spans.get(deco);
      if (span) span.bottom = Math.max(span.bottom, y + item.height);
      else spans.set(deco, { top: y, bottom: y + item.height });
    }
  }
  for (const kind of ["fill", "bar"] as const) {
    for (const [deco, span] of spans) {
      if (deco.kind !== kind || span.bottom <= span.top) continue;
      doc.rect(deco.x, span.top + dy, deco.width, span.bottom - span.top).fill(deco.color);
    }
  }
  for (const { y, item } of placed) item.paint?.(doc, y + dy);
}

/** Places items on pages; a page is painted when it is full (or when the flow ends). */
export class Paginator implements Sink {
  private y = CONTENT_TOP;
  private placed: Placed[] = [];
  private readonly repeats: FlowItem[] = [];
  /** How many of `placed` are repeated table headers (a page holding only those still takes the next row). */
  private repeatsPlaced = 0;
  /** Items that must stay with the next one (heading lines, and the gaps after them), not yet placed. */
  private pending: { item: FlowItem; gap: boolean }[] = [];
  private open = false;

  /** `addPage` adds a blank PDF page and makes it current. */
  constructor(
    private readonly doc: PDFKit.PDFDocument,
    private readonly addPage: () => void,
    private readonly top = CONTENT_TOP,
    private readonly bottom = CONTENT_BOTTOM,
  ) {}

  /** Starts the flow on a fresh page (each document page of the export starts one). */
  startPage(): void {
    this.flush();
    this.turnPage();
  }

  place(item: FlowItem): void {
    if (!this.open) this.startPage();
    if (item.keepWithNext) {
      this.pending.push({ item, gap: false });
      return;
    }
    if (this.pending.length > 0) {
      const together = this.pendingHeight() + item.height;
      if (this.y + together > this.bottom && this.hasContent() && together <= this.capacity()) this.newPage();
      this.releasePending();
    }
    this.put(item);
  }

  space(height: number, decos: readonly Decoration[]): void {
    if (!this.open) return;
    if (this.pending.length > 0) {
      this.pending.push({ item: { height, decos }, gap: true });
      return;
    }
    if (this.placed.length === 0) return;
    if (this.y + height > this.bottom) {
      this.newPage();
      return;
    }
    this.placed.push({ y: this.y, item: { height, decos } });
    this.y += height;
  }

  keep(height: number): void {
    if (this.open && this.hasContent() && this.y + this.pendingHeight() + height > this.bottom) this.newPage();
  }

  remaining(): number {
    return this.open ? this.bottom - this.y - this.pendingHeight() : this.capacity();
  }

  capacity(): number {
    return this.bottom - this.top;
  }

  /** Continues on a new page (pending keep-with-next items move along). */
  newPage(): void {
    this.paint();
    this.turnPage();
    for (const item of this.repeats) {
      this.placed.push({ y: this.y, item });
      this.y += item.height;
      this.repeatsPlaced++;
    }
  }

  pushRepeat(item: FlowItem): void {
    this.repeats.push(item);
  }

  popRepeat(): void {
    this.repeats.pop();
  }

  /** Ends the current flow: places what is still pending and paints the page. */
  flush(): void {
    this.releasePending();
    this.paint();
  }

  private put(item: FlowItem): void {
    if (this.y + item.height > this.bottom && this.hasContent()) this.newPage();
    this.placed.push({ y: this.y, item });
    this.y += item.height;
  }

  private releasePending(): void {
    const pending = this.pending;
    this.pending = [];
    for (const { item, gap } of pending) {
      if (gap) this.space(item.height, item.decos);
      else this.put(item);
    }
  }

  private pendingHeight(): number {
    let height = 0;
    for (const { item } of this.pending) height += item.height;
    return height;
  }

  private paint(): void {
    if (this.placed.length > 0) paintPlaced(this.doc, this.placed);
    this.placed = [];
    this.repeatsPlaced = 0;
  }

  private turnPage(): void {
    this.addPage();
    this.open = true;
    this.y = this.top;
  }

  /** False on an empty page, or one holding only repeated table headers (it must take the next row, or the flow would loop). */
  private hasContent(): boolean {
    return this.placed.length > this.repeatsPlaced;
  }
}

/**
 * A sink that records items without paginating, for table cells: the table lays a cell out first,
 * then decides where (and whether) to split its row across pages.
 */
export class Recorder implements Sink {
  readonly placed: Placed[] = [];
  height = 0;

  place(item: FlowItem): void {
    this.placed.push({ y: this.height, item });
    this.height += item.height;
  }

  space(height: number, decos: readonly Decoration[]): void {
    if (this.placed.length === 0) return;
    this.placed.push({ y: this.height, item: { height, decos } });
    this.height += height;
  }

  keep(): void {}

  remaining(): number {
    return Number.POSITIVE_INFINITY;
  }

  capacity(): number {
    return Number.POSITIVE_INFINITY;
  }

  newPage(): void {}

  pushRepeat(): void {}

  popRepeat(): void {}

  /** Paints items [from, to) so that item `from` starts at `top`. */
  paintRange(doc: PDFKit.PDFDocument, top: number, from: number, to: number): void {
    const slice = this.placed.slice(from, to);
    const first = slice[0];
    if (!first) return;
    paintPlaced(doc, slice, top - first.y);
  }

  /** Height of items [from, to). */
  rangeHeight(from: number, to: number): number {
    const first = this.placed[from];
    const last = this.placed[to - 1];
    if (!first || !last) return 0;
    return last.y + last.item.height - first.y;
  }
}

/**
 * Forwards to another sink and draws a marker (bullet, number, checkbox, step) next to the first
 * item placed, aligned on that item's first baseline.
 */
export class MarkerSink implements Sink {
  private pending = true;

  constructor(
    private readonly inner: Sink,
    private readonly marker: (doc: PDFKit.PDFDocument, baselineY: number, topY: number) => void,
    private readonly defaultBaseline: number,
  ) {}

  place(item: FlowItem): void {
    if (this.pending) {
      this.pending = false;
      const { marker, defaultBaseline } = this;
      const paint = item.paint;
      const baseline = item.baseline ?? defaultBaseline;
      this.inner.place({
        ...item,
        // The marker is drawn first so that text extraction reads "1. Step one", not "Step one1.".
        paint: (doc, y) => {
          marker(doc, y + baseline, y);
          paint?.(doc, y);
        },
      });
      return;
    }
    this.inner.place(item);
  }

  /** An item that had no content still gets its marker (an empty list item). */
  finish(height: number, decos: readonly Decoration[]): void {
    if (this.pending) this.place({ height, decos });
  }

  space(height: number, decos: readonly Decoration[]): void {
    // A gap before the first item would separate the marker from its text.
    if (!this.pending) this.inner.space(height, decos);
  }

  keep(height: number): void {
    this.inner.keep(height);
  }

  remaining(): number {
    return this.inner.remaining();
  }

  capacity(): number {
    return this.inner.capacity();
  }

  newPage(): void {
    this.inner.newPage();
  }

  pushRepeat(item: FlowItem): void {
    this.inner.pushRepeat(item);
  }

  popRepeat(): void {
    this.inner.popRepeat();
  }
}
