import type { BlockRenderer } from "./blocks.js";
import { type BlockContext, imageRef } from "./context.js";
import {
  asContentRef,
  childNodes,
  type DocumentElement,
  type DocumentFragment,
  fragmentsOf,
  plainText,
  type TableDefinition,
  type TableRecord,
} from "./document-types.js";
import { type Decoration, type FlowItem, Recorder, type Sink } from "./flow.js";
import type { InlineRun, TextStyle } from "./text.js";
import { COLOR, LEADING, SIZE } from "./theme.js";

/**
 * Tables (`DocumentBlockTable`): a grid with a header row, borders and wrapped cell text. Column
 * widths follow the content (like a browser's automatic table layout) and always add up to the
 * text width; a table with too many columns to print side by side is printed record by record
 * ("Column: value" blocks) instead, which stays readable at any width. Rows never split unless a
 * single row is taller than a page; the header row repeats on every page the table continues on.
 */

const PAD_X = 5;
const PAD_Y = 4;
/** Narrowest column worth printing; below it the table is printed record by record. */
const MIN_COLUMN = 46;
/** Column widths are estimated from this many rows (spread over the table): representative, and cheap on 10,000 rows. */
const SAMPLE_ROWS = 500;

interface Column {
  id: string;
  definition: TableDefinition;
}

export async function renderTable(renderer: BlockRenderer, node: DocumentElement, ctx: BlockContext, sink: Sink): Promise<void> {
  const data = node.data ?? {};
  const definitions = isRecord(data.definition) ? (data.definition as Record<string, TableDefinition>) : {};
  const view = isRecord(data.view) ? (data.view as { type?: unknown; columns?: unknown; hideHeader?: unknown }) : {};
  const columnIds = Array.isArray(view.columns)
    ? view.columns.filter((id): id is string => typeof id === "string")
    : Object.keys(definitions);
  const columns: Column[] = columnIds
    .filter((id) => isRecord(definitions[id]))
    .map((id) => ({ id, definition: definitions[id] as TableDefinition }));
  const records = sortedRecords(data.records);
  const size = (SIZE.table * ctx.size) / SIZE.body;
  const cellCtx: BlockContext = { ...ctx, size, gap: 3, align: undefined };
  if (columns.length === 0 || records.length === 0) {
    renderer.note(columns.length === 0 ? "[Empty table]" : "[Table without rows]", ctx, sink);
    return;
  }
  const fragments = new Map<string, DocumentFragment>();
  for (const fragment of fragmentsOf(node)) if (typeof fragment.fragment === "string") fragments.set(fragment.fragment, fragment);
  const table = new TableLayout(renderer, columns, fragments, cellCtx);

  const widths = view.type === "cards" ? undefined : table.columnWidths(records, ctx.width, view.hideHeader !== true);
  if (!widths) {
    await table.stacked(records, ctx, sink);
    return;
  }
  await table.grid(records, widths, ctx, sink, view.hideHeader !== true);
}

class TableLayout {
  constructor(
    private readonly renderer: BlockRenderer,
    private readonly columns: Column[],
    private readonly fragments: Map<string, DocumentFragment>,
    private readonly cellCtx: BlockContext,
  ) {}

  private get env() {
    return this.renderer.env;
  }

  /** Widths that fit `available`, or undefined when the columns cannot fit side by side. */
  columnWidths(records: [string, TableRecord][], available: number, header: boolean): number[] | undefined {
    const n = this.columns.length;
    if (n * MIN_COLUMN > available) return undefined;
    const style: TextStyle = { face: "sans", size: this.cellCtx.size, color: COLOR.text };
    const bold: TextStyle = { ...style, face: "sansBold" };
    const min = new Array<number>(n).fill(0);
    const max = new Array<number>(n).fill(0);
    const { text } = this.env;
    const spaceWidth = text.measure(" ", style);
    const measure = (value: string, column: number, textStyle: TextStyle) => {
      for (const paragraph of value.split("\n")) {
        let total = 0;
        for (const word of paragraph.split(/\s+/)) {
          if (!word) continue;
          const width = text.measure(word, textStyle);
          // Long words (URLs) will be broken anyway: they should not claim a whole column.
          min[column] = Math.max(min[column] as number, Math.min(width, 110));
          total += width + spaceWidth;
        }
        max[column] = Math.max(max[column] as number, total);
      }
    };
    this.columns.forEach((column, index) => {
      if (header) measure(titleOf(column), index, bold);
    });
    // Rows spread over the whole table (the last ones often hold the widest numbers).
    const count = Math.min(records.length, SAMPLE_ROWS);
    const sample = new Set<number>();
    for (let k = 0; k < count; k++) sample.add(Math.round((k * (records.length - 1)) / Math.max(1, count - 1)));
    for (const row of sample) {
      const record = (records[row] as [string, TableRecord])[1];
      this.columns.forEach((column, index) => {
        measure(this.cellText(column, record), index, style);
      });
    }
    const minW = min.map((w) => Math.max(w + 2 * PAD_X, 30));
    const maxW = max.map((w, i) => Math.max(w + 2 * PAD_X, minW[i] as number));
    const sumMax = sum(maxW);
    const sumMin = sum(minW);
    if (sumMax <= available) return maxW.map((w) => w + ((available - sumMax) * w) / sumMax);
    if (sumMin <= available) {
      // Water-filling: the spare width is shared equally, and columns that need less than their
      // share (short values) get all they need, so only the long-text columns wrap.
      const widths = [...minW];
      let free = available - sumMin;
      let open = widths.map((_, i) => i).filter((i) => (maxW[i] as number) > (minW[i] as number));
      while (open.length > 0 && free > 0.01) {
        const share = free / open.length;
        const satisfied = open.filter((i) => (maxW[i] as number) - (widths[i] as number) <= share);
        if (satisfied.length === 0) {
          for (const i of open) widths[i] = (widths[i] as number) + share;
          break;
        }
        for (const i of satisfied) {
          free -= (maxW[i] as number) - (widths[i] as number);
          widths[i] = maxW[i] as number;
        }
        open = open.filter((i) => !satisfied.includes(i));
      }
      return widths;
    }
    // Even the longest words do not fit: share the width by need, every column at least MIN_COLUMN
    // (words wider than their column are broken between characters).
    const widths = new Array<number>(n).fill(0);
    const fixed = new Set<number>();
    for (;;) {
      const free = available - fixed.size * MIN_COLUMN;
      const need = sum(minW.filter((_, i) => !fixed.has(i)));
      let changed = false;
      minW.forEach((w, i) => {
        if (fixed.has(i)) return;
        const share = (free * w) / need;
        if (share < MIN_COLUMN) {
          fixed.add(i);
          changed = true;
        }
        widths[i] = share;
      });
      if (!changed) break;
    }
    for (const i of fixed) widths[i] = MIN_COLUMN;
    return widths;
  }

  async grid(records: [string, TableRecord][], widths: number[], ctx: BlockContext, sink: Sink, withHeader: boolean): Promise<void> {
    const xs: number[] = [];
    let x = ctx.x;
    for (const width of widths) {
      xs.push(x);
      x += width;
    }
    let header: FlowItem | undefined;
    if (withHeader) {
      const style: TextStyle = { face: "sansBold", size: this.cellCtx.size, color: COLOR.text };
      const cells = this.columns.map((column, index) => {
        const recorder = new Recorder();
        this.renderer.paragraph([{ kind: "text", text: titleOf(column), style }], this.cellContext(xs, widths, index, column), recorder);
        return recorder;
      });
      header = this.rowItem(
        cells.map((recorder) => ({ recorder, from: 0, to: recorder.placed.length })),
        xs,
        widths,
        ctx.decos,
        true,
      );
    }
    let pushed = false;
    try {
      for (const [index, [, record]] of records.entries()) {
        await this.env.tick();
        const cells: Recorder[] = [];
        for (const [c, column] of this.columns.entries()) {
          const recorder = new Recorder();
          await this.cell(column, record, this.cellContext(xs, widths, c, column), recorder);
          cells.push(recorder);
        }
        if (index === 0 && header) {
          // The header goes where its first row goes: never alone at the bottom of a page.
          const first = Math.max(...cells.map((cell) => cell.height)) + 2 * PAD_Y;
          const fits = header.height + first <= sink.capacity();
          sink.keep(header.height + (fits ? first : this.cellCtx.size * LEADING * 3 + 2 * PAD_Y));
          sink.place(header);
          sink.pushRepeat(header);
          pushed = true;
        }
        this.placeRow(cells, xs, widths, ctx.decos, sink, header?.height ?? 0);
      }
    } finally {
      if (pushed) sink.popRepeat();
    }
  }

  /** Places a row on the current page, on the next one, or, when taller than a page, in slices. */
  private placeRow(
    cells: Recorder[],
    xs: number[],
    widths: number[],
    decos: readonly Decoration[],
    sink: Sink,
    headerHeight: number,
    labels = false,
  ): void {
    const whole = this.rowItem(
      cells.map((recorder) => ({ recorder, from: 0, to: recorder.placed.length })),
      xs,
      widths,
      decos,
      false,
      labels,
    );
    if (whole.height <= sink.remaining() || whole.height <= sink.capacity() - headerHeight) {
      sink.place(whole);
      return;
    }
    const next = cells.map(() => 0);
    const minimum = this.cellCtx.size * LEADING * 2 + 2 * PAD_Y;
    while (cells.some((recorder, i) => (next[i] as number) < recorder.placed.length)) {
      if (sink.remaining() < minimum) sink.newPage();
      const room = sink.remaining() - 2 * PAD_Y;
      const take = (force: boolean) =>
        cells.map((recorder, i) => {
          const from = next[i] as number;
          let to = from;
          while (to < recorder.placed.length && recorder.rangeHeight(from, to + 1) <= room) to++;
          // On a fresh page an item taller than the room (it cannot be split) is placed anyway.
          if (force && to === from && to < recorder.placed.length) to++;
          return { recorder, from, to };
        });
      let slices = take(false);
      if (slices.every((slice) => slice.to === slice.from)) {
        const freshPage = sink.remaining() >= sink.capacity() - headerHeight - 1;
        if (!freshPage) {
          sink.newPage();
          continue;
        }
        slices = take(true);
      }
      slices.forEach((slice, i) => {
        next[i] = slice.to;
      });
      sink.place(this.rowItem(slices, xs, widths, decos, false, labels));
    }
  }

  private rowItem(
    slices: { recorder: Recorder; from: number; to: number }[],
    xs: number[],
    widths: number[],
    decos: readonly Decoration[],
    header: boolean,
    /** Shade the first column (the labels of a record printed as label/value rows). */
    labels = false,
  ): FlowItem {
    const contentHeight = Math.max(this.cellCtx.size * LEADING, ...slices.map((slice) => slice.recorder.rangeHeight(slice.from, slice.to)));
    const height = contentHeight + 2 * PAD_Y;
    const left = xs[0] as number;
    const right = (xs.at(-1) as number) + (widths.at(-1) as number);
    return {
      height,
      decos,
      baseline: PAD_Y + this.cellCtx.size * 1.1,
      paint: (doc, y) => {
        if (header) doc.rect(left, y, right - left, height).fill(COLOR.tableHeaderBackground);
        else if (labels) doc.rect(left, y, widths[0] as number, height).fill(COLOR.tableHeaderBackground);
        for (const slice of slices) slice.recorder.paintRange(doc, y + PAD_Y, slice.from, slice.to);
        doc.lineWidth(0.6).strokeColor(COLOR.rule);
        doc.moveTo(left, y).lineTo(right, y).stroke();
        doc
          .moveTo(left, y + height)
          .lineTo(right, y + height)
          .stroke();
        for (const x of [...xs, right])
          doc
            .moveTo(x, y)
            .lineTo(x, y + height)
            .stroke();
      },
    };
  }

  private cellContext(xs: number[], widths: number[], index: number, column: Column): BlockContext {
    const alignment = column.definition.type === "number" ? "end" : column.definition.textAlignment;
    return {
      ...this.cellCtx,
      x: (xs[index] as number) + PAD_X,
      width: Math.max(10, (widths[index] as number) - 2 * PAD_X),
      decos: [],
      align: alignment === "center" ? "center" : alignment === "right" || alignment === "end" ? "end" : undefined,
    };
  }

  /**
   * Tables too wide for the page (and card views): each record becomes a small two-column table,
   * column titles on the left and values on the right, so any number of columns stays readable.
   */
  async stacked(records: [string, TableRecord][], ctx: BlockContext, sink: Sink): Promise<void> {
    const label: TextStyle = { face: "sansBold", size: this.cellCtx.size, color: COLOR.text };
    const titles = this.columns.map(titleOf);
    const longest = Math.max(
      0,
      ...titles.map((title) => Math.max(0, ...title.split(/\s+/).map((word) => this.env.text.measure(word, label)))),
    );
    const labelWidth = Math.min(Math.max(longest + 2 * PAD_X, 70), ctx.width * 0.35);
    const xs = [ctx.x, ctx.x + labelWidth];
    const widths = [labelWidth, ctx.width - labelWidth];
    const valueColumn: BlockContext = {
      ...this.cellCtx,
      x: (xs[1] as number) + PAD_X,
      width: (widths[1] as number) - 2 * PAD_X,
      decos: [],
      align: undefined,
    };
    const labelColumn: BlockContext = { ...this.cellCtx, x: ctx.x + PAD_X, width: labelWidth - 2 * PAD_X, decos: [], align: undefined };
    for (const [index, [, record]] of records.entries()) {
      await this.env.tick();
      if (index > 0) sink.space(10, ctx.decos);
      for (const [c, column] of this.columns.entries()) {
        const labelCell = new Recorder();
        this.renderer.paragraph([{ kind: "text", text: titles[c] ?? "", style: label }], labelColumn, labelCell);
        const valueCell = new Recorder();
        await this.cell(column, record, valueColumn, valueCell);
        // A record's first two lines stay together, so its first field never ends a page alone.
        if (c === 0) sink.keep(this.cellCtx.size * LEADING * 2 + 4 * PAD_Y);
        this.placeRow([labelCell, valueCell], xs, widths, ctx.decos, sink, 0, true);
      }
    }
  }

  /** Renders one cell's value into `sink`. */
  private async cell(column: Column, record: TableRecord, ctx: BlockContext, sink: Sink): Promise<void> {
    const value = record.values?.[column.id];
    const { definition } = column;
    if (definition.type === "text" || (definition.type === undefined && typeof value === "string" && this.fragments.has(value))) {
      const fragment = typeof value === "string" ? this.fragments.get(value) : undefined;
      if (fragment) await this.renderer.blocks(childNodes(fragment), ctx, sink);
      else if (typeof value === "string" && value && !this.fragments.size) this.renderer.plain(value, ctx, sink);
      return;
    }
    if (definition.type === "image") {
      const ref = imageRef(asContentRef(value) ?? asContentRef(isRecord(value) ? value.ref : undefined));
      if (ref) this.renderer.image({ object: "block", type: "image", data: { ref } }, ctx, sink, "left");
      return;
    }
    const runs = this.cellRuns(column, value, this.renderer.baseStyle(ctx));
    if (runs.length > 0) this.renderer.paragraph(runs, ctx, sink);
  }

  private cellRuns(column: Column, value: unknown, style: TextStyle): InlineRun[] {
    const { links, pageId } = this.env;
    const { definition } = column;
    const text = (t: string, extra?: Partial<TextStyle>): InlineRun => ({ kind: "text", text: t, style: { ...style, ...extra } });
    switch (definition.type) {
      case "checkbox":
        return [text(value === true ? "☑" : "☐", { size: style.size * 1.15 })];
      case "rating": {
        const max = Math.min(10, Math.max(1, Math.trunc(definition.max ?? 5)));
        const stars = Math.min(max, Math.max(0, Math.round(typeof value === "number" ? value : 0)));
        return [text("★".repeat(stars), { color: "#c27c0e" }), text("☆".repeat(max - stars), { color: COLOR.faint })];
      }
      case "select": {
        const selected = Array.isArray(value) ? value : [value];
        const labels = selected
          .filter((v): v is string => typeof v === "string")
          .map(
            (v) => (Array.isArray(definition.options) ? definition.options.find((option) => option?.value === v)?.label : undefined) ?? v,
          );
        return labels.length > 0 ? [text(labels.join(", "))] : [];
      }
      case "users":
      case "files":
      case "content-ref": {
        const refs =
          definition.type === "content-ref"
            ? [asContentRef(value)]
            : (Array.isArray(value) ? value : []).map((id) =>
                typeof id === "string"
                  ? definition.type === "users"
                    ? { kind: "user", user: id }
                    : { kind: "file", file: id }
                  : undefined,
              );
        const runs: InlineRun[] = [];
        for (const ref of refs) {
          if (!ref) continue;
          const described = links.describe(ref, pageId);
          if (runs.length > 0) runs.push(text(", "));
          runs.push({
            kind: "text",
            text: described.text,
            style: described.link ? { ...style, color: COLOR.link } : style,
            link: described.link ? { ...described.link } : undefined,
          });
        }
        return runs;
      }
      default:
        if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return [text(String(value))];
        return [];
    }
  }

  /** Plain text of a cell, for estimating column widths. */
  private cellText(column: Column, record: TableRecord): string {
    const value = record.values?.[column.id];
    switch (column.definition.type) {
      case "text": {
        const fragment = typeof value === "string" ? this.fragments.get(value) : undefined;
        return fragment ? plainText(fragment) : "";
      }
      case "image":
        return "";
      case "checkbox":
        return "☐";
      case "rating":
        return "★".repeat(Math.min(10, Math.max(1, Math.trunc(column.definition.max ?? 5))));
      default:
        return this.cellRuns(column, value, { face: "sans", size: this.cellCtx.size, color: COLOR.text })
          .map((run) => (run.kind === "text" ? run.text : ""))
          .join("");
    }
  }
}

function sortedRecords(value: unknown): [string, TableRecord][] {
  if (!isRecord(value)) return [];
  const entries = Object.entries(value).filter((entry): entry is [string, TableRecord] => isRecord(entry[1]));
  // orderIndex values are fractional-indexing keys: plain code-unit order, not locale order.
  return entries.sort(([ka, a], [kb, b]) => {
    const oa = typeof a.orderIndex === "string" ? a.orderIndex : "";
    const ob = typeof b.orderIndex === "string" ? b.orderIndex : "";
    if (oa !== ob) return oa < ob ? -1 : 1;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

/** A column's title (definitions come from stored documents: a missing or odd title prints as nothing). */
function titleOf(column: Column): string {
  return typeof column.definition.title === "string" ? column.definition.title : "";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sum(values: number[]): number {
  return values.reduce((total, v) => total + v, 0);
}
