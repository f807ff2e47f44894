import { type BlockContext, imageRef, inset, type RenderEnv } from "./context.js";
import {
  type ContentRef,
  childNodes,
  type DocumentElement,
  type DocumentNode,
  dataFlag,
  dataNumber,
  dataRef,
  dataString,
  fragmentNamed,
  isElement,
  isText,
  plainText,
} from "./document-types.js";
import { type Decoration, type FlowItem, MarkerSink, type Sink } from "./flow.js";
import { inlineRuns } from "./inline.js";
import { anchorDestination } from "./links.js";
import { renderTable } from "./table.js";
import { type InlineRun, type Line, type LinkTarget, paintLine, type TextStyle } from "./text.js";
import { CODE_LEADING, COLOR, HINT, type HintStyle, LEADING, SIZE } from "./theme.js";

/**
 * Block layout: turns a page's document into flow items (see flow.ts). One method per block type;
 * each appends to the sink it is given, which is the paginator, a table cell recorder, or a marker
 * sink that draws a list bullet next to the first line.
 */

/** Beyond this nesting depth a subtree is printed as plain text, so recursion stays bounded. */
const MAX_DEPTH = 240;

export class BlockRenderer {
  constructor(readonly env: RenderEnv) {}

  baseStyle(ctx: BlockContext): TextStyle {
    return { face: "sans", size: ctx.size, color: ctx.color };
  }

  async blocks(nodes: readonly DocumentNode[], ctx: BlockContext, sink: Sink): Promise<void> {
    let first = true;
    for (const node of nodes) {
      await this.env.tick();
      if (!first) sink.space(this.gapBefore(node, ctx), ctx.decos);
      first = false;
      await this.block(node, ctx, sink);
    }
  }

  private gapBefore(node: DocumentNode, ctx: BlockContext): number {
    if (!isElement(node)) return ctx.gap;
    switch (node.type) {
      case "heading-1":
        return ctx.gap + 12;
      case "heading-2":
        return ctx.gap + 9;
      case "heading-3":
        return ctx.gap + 6;
      default:
        return ctx.gap;
    }
  }

  async block(node: DocumentNode, ctx: BlockContext, sink: Sink): Promise<void> {
    if (isText(node)) {
      this.paragraph(this.runs([node], this.baseStyle(ctx)), ctx, sink);
      return;
    }
    if (!isElement(node)) return;
    if (ctx.depth >= MAX_DEPTH) {
      this.plain(plainText(node), ctx, sink);
      return;
    }
    const inner: BlockContext = { ...ctx, depth: ctx.depth + 1 };
    switch (node.type) {
      case "paragraph":
        this.paragraph(this.runs(childNodes(node), this.baseStyle(ctx)), { ...inner, align: alignment(node) ?? ctx.align }, sink);
        return;
      case "heading-1":
      case "heading-2":
      case "heading-3":
        this.heading(node, inner, sink);
        return;
      case "list-unordered":
      case "list-ordered":
      case "list-tasks":
        await this.list(node, inner, sink);
        return;
      case "list-item":
        await this.blocks(childNodes(node), inner, sink);
        return;
      case "blockquote":
        await this.quote(node, inner, sink);
        return;
      case "hint":
        await this.hint(node, inner, sink);
        return;
      case "code":
        await this.code(childNodes(node), dataString(node, "title"), dataFlag(node, "lineNumbers"), inner, sink);
        return;
      case "code-line":
        await this.code([node], undefined, false, inner, sink);
        return;
      case "math":
        this.math(dataString(node, "formula") ?? "", inner, sink);
        return;
      case "divider":
        this.divider(inner, sink);
        return;
      case "images":
        await this.imageGroup(node, inner, sink);
        return;
      case "image":
        this.image(node, inner, sink, "center");
        return;
      case "drawing":
        this.drawing(node, inner, sink);
        return;
      case "table":
        await renderTable(this, node, inner, sink);
        return;
      case "tabs":
        await this.tabs(node, inner, sink);
        return;
      case "tabs-item":
        await this.blocks(childNodes(node), inner, sink);
        return;
      case "expandable":
        await this.expandable(node, inner, sink);
        return;
      case "stepper":
        await this.stepper(node, inner, sink);
        return;
      case "stepper-step":
      case "columns":
      case "column":
      case "if":
        // Columns are stacked (a printed column would be too narrow); conditional content is shown.
        await this.blocks(childNodes(node), inner, sink);
        return;
      case "content-ref":
        this.contentRef(node, inner, sink);
        return;
      case "file":
        this.referenceLine("File", dataRef(node), inner, sink);
        return;
      case "embed": {
        const url = dataString(node, "url") ?? "";
        this.referenceLine("Embedded content", { kind: "url", url }, inner, sink);
        return;
      }
      case "reusable-content":
        this.note(
          `Reusable content “${this.env.links.describe(dataRef(node) ?? { kind: "reusable-content" }, this.env.pageId).text}” is not included in this export.`,
          inner,
          sink,
        );
        return;
      case "swagger":
      case "openapi-operation":
      case "openapi-schemas":
      case "openapi-webhook":
        this.openApi(node, inner, sink);
        return;
      case "integration": {
        const name = [dataString(node, "integration"), dataString(node, "block")].filter(Boolean).join(" / ");
        const url = dataString(node, "url");
        if (url) this.referenceLine(`Integration ${name}`.trim(), { kind: "url", url }, inner, sink);
        else this.note(`Integration block${name ? ` (${name})` : ""}: interactive content is not available in PDF.`, inner, sink);
        return;
      }
      default: {
        // Unknown or future block types: their text is still worth printing.
        const text = plainText(node);
        if (text) this.plain(text, inner, sink);
      }
    }
  }

  /** Styled runs of inline nodes (text leaves, links, emoji, math…). */
  runs(nodes: readonly DocumentNode[], style: TextStyle, link?: LinkTarget): InlineRun[] {
    return inlineRuns(this.env, nodes, style, link);
  }

  // ---------------------------------------------------------------- text blocks

  /** Lays runs out as lines and places each line. */
  paragraph(runs: readonly InlineRun[], ctx: BlockContext, sink: Sink, leading = LEADING): Line[] {
    const base = this.baseStyle(ctx);
    if (runs.length === 0) {
      // An empty paragraph is the editor's way of adding space.
      sink.space(ctx.size * 0.8, ctx.decos);
      return [];
    }
    const lines = this.env.text.lines(runs, { width: ctx.width, leading, base, align: ctx.align });
    for (const line of lines) sink.place(this.lineItem(line, ctx.x, ctx.decos));
    return lines;
  }

  lineItem(line: Line, x: number, decos: readonly Decoration[], before?: (doc: PDFKit.PDFDocument, y: number) => void): FlowItem {
    const { fonts } = this.env;
    return {
      height: line.height,
      decos,
      baseline: line.baseline,
      paint: (doc, y) => {
        before?.(doc, y);
        paintLine(doc, fonts, line, x, y);
      },
    };
  }

  /** Plain text in the body style (subtrees too deep or of unknown types). */
  plain(text: string, ctx: BlockContext, sink: Sink): void {
    this.paragraph([{ kind: "text", text, style: this.baseStyle(ctx) }], ctx, sink);
  }

  /** A muted italic line standing in for content the PDF cannot show. */
  note(text: string, ctx: BlockContext, sink: Sink): void {
    this.paragraph([{ kind: "text", text, style: { face: "sansItalic", size: ctx.size * 0.92, color: COLOR.placeholder } }], ctx, sink);
  }

  private heading(node: DocumentElement, ctx: BlockContext, sink: Sink): void {
    const size = node.type === "heading-1" ? SIZE.h1 : node.type === "heading-2" ? SIZE.h2 : SIZE.h3;
    const scaled = (size * ctx.size) / SIZE.body;
    const style: TextStyle = { face: "sansBold", size: scaled, color: COLOR.text };
    const lines = this.env.text.lines(this.runs(childNodes(node), style), {
      width: ctx.width,
      leading: 1.3,
      base: style,
      align: alignment(node) ?? ctx.align,
    });
    // A heading stays with what follows it: its lines wait for the next item (see Paginator), and
    // a page with room for the heading but hardly anything else is left at once.
    sink.keep(lines.reduce((sum, line) => sum + line.height, 0) + ctx.size * LEADING * 2 + ctx.gap);
    const anchor = node.meta?.id ?? dataString(node, "id");
    const { doc, pageId, destinations } = this.env;
    const destination = anchor ? anchorDestination(pageId, anchor) : undefined;
    lines.forEach((line, index) => {
      const register =
        index === 0 && destination && !destinations.has(destination)
          ? (_: PDFKit.PDFDocument, y: number) => {
              destinations.add(destination);
              doc.addNamedDestination(destination, "XYZ", null, y, null);
            }
          : undefined;
      sink.place({ ...this.lineItem(line, ctx.x, ctx.decos, register), keepWithNext: true });
    });
    sink.space(2, ctx.decos);
  }

  // ---------------------------------------------------------------- lists

  private async list(node: DocumentElement, ctx: BlockContext, sink: Sink): Promise<void> {
    // Items should be list-item blocks; anything else (even bare text) is printed as an item of its own.
    const items = childNodes(node).filter((item) => isElement(item) || isText(item));
    const kind = node.type;
    const start = Math.trunc(dataNumber(node, "start") ?? 1);
    const style = this.baseStyle(ctx);
    const { text } = this.env;
    const gutter =
      kind === "list-ordered" ? Math.max(18, text.measure(`${start + items.length - 1}.`, style) + 8) : kind === "list-tasks" ? 18 : 15;
    const itemCtx: BlockContext = { ...ctx, ...inset(ctx, gutter), listDepth: ctx.listDepth + 1, gap: 4 };
    const markerRight = itemCtx.x - 5;
    const defaultBaseline = ctx.size * 1.15;
    for (const [index, item] of items.entries()) {
      await this.env.tick();
      if (index > 0) sink.space(3, ctx.decos);
      let marker: (doc: PDFKit.PDFDocument, baselineY: number) => void;
      if (kind === "list-ordered") {
        const label = `${start + index}.`;
        const width = text.measure(label, style);
        marker = (d, baselineY) => {
          d.font("sans")
            .fontSize(style.size)
            .fillColor(style.color)
            .text(label, markerRight - width, baselineY, { lineBreak: false, baseline: "alphabetic" });
        };
      } else if (kind === "list-tasks") {
        const checked = isElement(item) && item.data?.checked === true;
        marker = (d, baselineY) => drawCheckbox(d, itemCtx.x - 15, baselineY, style.size, checked);
      } else {
        const bullet = ["•", "◦", "▪"][ctx.listDepth % 3] as string;
        const width = text.measure(bullet, style);
        marker = (d, baselineY) => {
          d.font("sans")
            .fontSize(style.size)
            .fillColor(style.color)
            .text(bullet, markerRight - width, baselineY, { lineBreak: false, baseline: "alphabetic" });
        };
      }
      const markerSink = new MarkerSink(sink, marker, defaultBaseline);
      if (isElement(item) && item.type === "list-item") await this.blocks(childNodes(item), itemCtx, markerSink);
      else await this.block(item, itemCtx, markerSink);
      markerSink.finish(ctx.size * LEADING, ctx.decos);
    }
  }

  // ---------------------------------------------------------------- containers

  private async quote(node: DocumentElement, ctx: BlockContext, sink: Sink): Promise<void> {
    const bar: Decoration = { kind: "bar", x: ctx.x + 1, width: 3, color: COLOR.quoteBar };
    await this.blocks(childNodes(node), { ...ctx, ...inset(ctx, 14), decos: [...ctx.decos, bar], color: COLOR.muted }, sink);
  }

  private async hint(node: DocumentElement, ctx: BlockContext, sink: Sink): Promise<void> {
    const requested = dataString(node, "style");
    const kind: HintStyle = requested === "success" || requested === "warning" || requested === "danger" ? requested : "info";
    const theme = HINT[kind];
    const fill: Decoration = { kind: "fill", x: ctx.x, width: ctx.width, color: theme.background };
    const bar: Decoration = { kind: "bar", x: ctx.x, width: 3.5, color: theme.bar };
    const decos = [...ctx.decos, fill, bar];
    const inner: BlockContext = { ...ctx, ...inset(ctx, 30, 10), decos, gap: 5 };
    const shift = inner.x - ctx.x;
    const icon = { info: "ℹ", success: "✔", warning: "⚠", danger: "✖" }[kind];
    const iconWidth = this.env.text.measure(icon, { face: "sansBold", size: ctx.size, color: theme.bar });
    const marker = new MarkerSink(
      sink,
      (doc, baselineY) => {
        doc
          .font("sansBold")
          .fontSize(ctx.size)
          .fillColor(theme.bar)
          .text(icon, ctx.x + 3.5 + (shift - 3.5 - iconWidth) / 2, baselineY, { lineBreak: false, baseline: "alphabetic" });
      },
      ctx.size * 1.15,
    );
    // Padding shrinks with depth: hints nested in hints would otherwise stack up empty bands.
    const pad = Math.max(1, 8 - Math.max(0, ctx.depth - 8));
    sink.keep(pad + ctx.size * LEADING * 2);
    sink.place({ height: pad, decos });
    await this.blocks(childNodes(node), inner, marker);
    marker.finish(ctx.size * LEADING, decos);
    sink.place({ height: pad, decos });
  }

  private async code(
    lines: readonly DocumentNode[],
    title: string | undefined,
    numbered: boolean,
    ctx: BlockContext,
    sink: Sink,
  ): Promise<void> {
    const { text, fonts } = this.env;
    const size = (SIZE.code * ctx.size) / SIZE.body;
    const style: TextStyle = { face: "mono", size, color: COLOR.text };
    const fill: Decoration = { kind: "fill", x: ctx.x, width: ctx.width, color: COLOR.codeBackground };
    const decos = [...ctx.decos, fill];
    const pad = 10;
    const gutter = numbered ? text.measure(String(lines.length), style) + 10 : 0;
    const textX = ctx.x + pad + gutter;
    const width = Math.max(40, ctx.width - 2 * pad - gutter);
    sink.keep(Math.min(4, lines.length + 1) * size * CODE_LEADING + (title ? size * 2.2 : 0) + pad);
    if (title) {
      const titleStyle: TextStyle = { face: "sansBold", size: size * 0.95, color: COLOR.muted };
      const titleFill: Decoration = { kind: "fill", x: ctx.x, width: ctx.width, color: COLOR.codeTitleBackground };
      for (const line of text.lines([{ kind: "text", text: title, style: titleStyle }], {
        width: ctx.width - 2 * pad,
        leading: 2,
        base: titleStyle,
      })) {
        sink.place(this.lineItem(line, ctx.x + pad, [...ctx.decos, titleFill]));
      }
    }
    sink.place({ height: pad * 0.6, decos });
    const continuation: TextStyle = { face: "sans", size: size * 0.8, color: COLOR.faint };
    for (const [index, node] of lines.entries()) {
      if (index % 200 === 199) await this.env.tick();
      const source = codeLineText(node);
      const highlighted = isElement(node) && node.data?.highlighted === true;
      const visual = text.lines([{ kind: "text", text: source, style }], { width, leading: CODE_LEADING, base: style, preserve: true });
      visual.forEach((line, part) => {
        sink.place(
          this.lineItem(line, textX, decos, (doc, y) => {
            if (highlighted) doc.rect(ctx.x, y, ctx.width, line.height).fill("#fff5c2");
            const baselineY = y + line.baseline;
            if (numbered && part === 0) {
              const label = String(index + 1);
              const labelWidth = fonts.width("mono", label, size);
              doc
                .font("mono")
                .fontSize(size)
                .fillColor(COLOR.faint)
                .text(label, textX - 8 - labelWidth, baselineY, { lineBreak: false, baseline: "alphabetic" });
            }
            // Wrapped continuation lines are marked so they are not mistaken for new lines of code.
            if (part > 0)
              doc
                .font("sans")
                .fontSize(continuation.size)
                .fillColor(COLOR.faint)
                .text("↪", textX - 9, baselineY, { lineBreak: false, baseline: "alphabetic" });
          }),
        );
      });
    }
    sink.place({ height: pad * 0.6, decos });
  }

  private math(formula: string, ctx: BlockContext, sink: Sink): void {
    const size = (SIZE.code * ctx.size) / SIZE.body;
    const style: TextStyle = { face: "monoItalic", size: size * 1.05, color: COLOR.text };
    const fill: Decoration = { kind: "fill", x: ctx.x, width: ctx.width, color: "#f7f7fa" };
    const decos = [...ctx.decos, fill];
    sink.keep(size * 4);
    sink.place({ height: 5, decos });
    for (const line of this.env.text.lines([{ kind: "text", text: formula, style }], {
      width: ctx.width - 20,
      leading: CODE_LEADING,
      base: style,
      preserve: true,
      align: "center",
    })) {
      sink.place(this.lineItem(line, ctx.x + 10, decos));
    }
    sink.place({ height: 5, decos });
  }

  private divider(ctx: BlockContext, sink: Sink): void {
    sink.place({
      height: 14,
      decos: ctx.decos,
      paint: (doc, y) => {
        doc
          .moveTo(ctx.x, y + 7)
          .lineTo(ctx.x + ctx.width, y + 7)
          .lineWidth(0.75)
          .stroke(COLOR.rule);
      },
    });
  }

  private async tabs(node: DocumentElement, ctx: BlockContext, sink: Sink): Promise<void> {
    const items = childNodes(node).filter(isElement);
    for (const [index, item] of items.entries()) {
      if (index > 0) sink.space(ctx.gap + 4, ctx.decos);
      const title = dataString(item, "title") || `Tab ${index + 1}`;
      const style: TextStyle = { face: "sansBold", size: ctx.size, color: COLOR.accent };
      const lines = this.env.text.lines([{ kind: "text", text: title, style }], { width: ctx.width - 8, leading: 1.6, base: style });
      sink.keep(lines.reduce((sum, line) => sum + line.height, 0) + ctx.size * LEADING * 2);
      lines.forEach((line, i) => {
        sink.place(
          this.lineItem(line, ctx.x + 4, ctx.decos, (doc, y) => {
            if (i === lines.length - 1) {
              doc.rect(ctx.x, y + line.height - 1.5, Math.min(ctx.width, line.width + 8), 1.5).fill(COLOR.accent);
              doc.rect(ctx.x, y + line.height - 0.5, ctx.width, 0.5).fill(COLOR.rule);
            }
          }),
        );
      });
      sink.space(5, ctx.decos);
      await this.blocks(childNodes(item), { ...ctx, ...inset(ctx, 8) }, sink);
    }
  }

  private async expandable(node: DocumentElement, ctx: BlockContext, sink: Sink): Promise<void> {
    const titleFragment = fragmentNamed(node, "expandable-title");
    const body = fragmentNamed(node, "expandable-body");
    const style: TextStyle = { face: "sansBold", size: ctx.size, color: COLOR.text };
    const titleRuns = titleFragment
      ? this.runs(
          childNodes(titleFragment).flatMap((paragraph) => (isElement(paragraph) ? childNodes(paragraph) : [paragraph])),
          style,
        )
      : [];
    const runs: InlineRun[] = [
      { kind: "text", text: "▸ ", style: { ...style, color: COLOR.muted } },
      ...(titleRuns.length > 0 ? titleRuns : [{ kind: "text" as const, text: "Details", style }]),
    ];
    sink.keep(ctx.size * LEADING * 3);
    this.paragraph(runs, ctx, sink);
    if (!body) return;
    sink.space(3, ctx.decos);
    const bar: Decoration = { kind: "bar", x: ctx.x + 3, width: 1.5, color: COLOR.rule };
    await this.blocks(childNodes(body), { ...ctx, ...inset(ctx, 14), decos: [...ctx.decos, bar] }, sink);
  }

  private async stepper(node: DocumentElement, ctx: BlockContext, sink: Sink): Promise<void> {
    const steps = childNodes(node).filter(isElement);
    const column = inset(ctx, 28);
    for (const [index, step] of steps.entries()) {
      await this.env.tick();
      if (index > 0) sink.space(ctx.gap + 4, ctx.decos);
      const label = String(index + 1);
      const labelStyle: TextStyle = { face: "sansBold", size: ctx.size * 0.85, color: "#ffffff" };
      const labelWidth = this.env.text.measure(label, labelStyle);
      const radius = Math.max(8, labelWidth / 2 + 3);
      const marker = new MarkerSink(
        sink,
        (doc, baselineY) => {
          const cx = ctx.x + 9;
          const cy = baselineY - ctx.size * 0.35;
          doc.circle(cx, cy, radius).fill(COLOR.accent);
          doc
            .font("sansBold")
            .fontSize(labelStyle.size)
            .fillColor("#ffffff")
            .text(label, cx - labelWidth / 2, cy + labelStyle.size * 0.36, { lineBreak: false, baseline: "alphabetic" });
        },
        ctx.size * 1.15,
      );
      const bar: Decoration = { kind: "bar", x: ctx.x + 8.5, width: 1, color: "#c9d7f2" };
      const children = step.type === "stepper-step" ? childNodes(step) : [step];
      await this.blocks(children, { ...ctx, ...column, decos: [...ctx.decos, bar] }, marker);
      marker.finish(ctx.size * LEADING, ctx.decos);
    }
  }

  // ---------------------------------------------------------------- references and media

  private contentRef(node: DocumentElement, ctx: BlockContext, sink: Sink): void {
    const ref = dataRef(node);
    const described = ref ? this.env.links.describe(ref, this.env.pageId) : { text: "(missing reference)" };
    const fill: Decoration = { kind: "fill", x: ctx.x, width: ctx.width, color: "#f6f8fa" };
    const bar: Decoration = { kind: "bar", x: ctx.x, width: 2, color: COLOR.rule };
    const decos = [...ctx.decos, fill, bar];
    const style = this.baseStyle(ctx);
    const runs: InlineRun[] = [
      { kind: "text", text: "→ ", style: { ...style, color: COLOR.muted } },
      {
        kind: "text",
        text: described.text,
        style: { ...style, face: "sansBold", color: described.link ? COLOR.link : style.color },
        link: described.link,
      },
    ];
    const url = ref?.kind === "url" ? undefined : this.urlOf(described.link);
    if (url)
      runs.push({ kind: "text", text: `  ${url}`, style: { ...style, size: style.size * 0.85, color: COLOR.muted }, link: described.link });
    sink.keep(ctx.size * LEADING + 12);
    sink.place({ height: 5, decos });
    this.paragraph(runs, { ...ctx, ...inset(ctx, 10, 10), decos }, sink);
    sink.place({ height: 5, decos });
  }

  private urlOf(link: LinkTarget | undefined): string | undefined {
    return link && "url" in link ? link.url : undefined;
  }

  /** "File: name", "Embedded content: url" and the like, with the link when there is one. */
  private referenceLine(label: string, ref: ContentRef | undefined, ctx: BlockContext, sink: Sink): void {
    const style = this.baseStyle(ctx);
    const described = ref ? this.env.links.describe(ref, this.env.pageId) : { text: "(missing)" };
    const runs: InlineRun[] = [
      { kind: "text", text: `${label}: `, style: { ...style, face: "sansBold" } },
      { kind: "text", text: described.text, style: { ...style, color: described.link ? COLOR.link : style.color }, link: described.link },
    ];
    const url = this.urlOf(described.link);
    if (url && url !== described.text)
      runs.push({
        kind: "text",
        text: ` (${url})`,
        style: { ...style, size: style.size * 0.85, color: COLOR.muted },
        link: described.link,
      });
    this.paragraph(runs, ctx, sink);
  }

  private openApi(node: DocumentElement, ctx: BlockContext, sink: Sink): void {
    const method = (dataString(node, "method") ?? "").toUpperCase();
    const path = dataString(node, "path") ?? "";
    const ref = dataRef(node);
    const spec = ref?.kind === "openapi" ? ref.spec : ref?.kind === "url" ? ref.url : undefined;
    const style = this.baseStyle(ctx);
    const what =
      node.type === "openapi-schemas"
        ? `OpenAPI schemas: ${Array.isArray(node.data?.schemas) ? (node.data.schemas as unknown[]).filter((s) => typeof s === "string").join(", ") : ""}`
        : node.type === "openapi-webhook"
          ? `Webhook: ${dataString(node, "name") ?? ""}`
          : "API operation: ";
    const runs: InlineRun[] = [{ kind: "text", text: what, style: { ...style, face: "sansBold" } }];
    if (node.type === "swagger" || node.type === "openapi-operation") {
      runs.push({ kind: "text", text: `${method} ${path}`.trim(), style: { ...style, face: "mono", size: style.size * 0.92 } });
    }
    if (spec) runs.push({ kind: "text", text: ` (${spec})`, style: { ...style, color: COLOR.muted } });
    this.paragraph(runs, ctx, sink);
  }

  private async imageGroup(node: DocumentElement, ctx: BlockContext, sink: Sink): Promise<void> {
    const requested = dataString(node, "align");
    const align = requested === "left" || requested === "right" ? requested : "center";
    const images = childNodes(node).filter(isElement);
    for (const [index, image] of images.entries()) {
      await this.env.tick();
      if (index > 0) sink.space(ctx.gap, ctx.decos);
      if (image.type === "image") this.image(image, ctx, sink, align);
      else await this.block(image, ctx, sink);
    }
  }

  /** Draws an image scaled to fit, with its caption; a placeholder line when it cannot be shown. */
  image(node: DocumentElement, ctx: BlockContext, sink: Sink, align: "left" | "center" | "right"): void {
    const ref = imageRef(dataRef(node));
    const caption = fragmentNamed(node, "caption");
    const captionText = caption ? plainText(caption) : "";
    const alt = dataString(node, "alt") ?? "";
    const result = ref ? this.env.images.get(ref) : { ok: false as const, reason: "no source" };
    if (!result.ok) {
      const described = ref ? this.env.links.describe(ref, this.env.pageId).text : "";
      const name = alt || captionText || described || "image";
      this.note(`[Image not shown: ${name} (${result.reason})]`, ctx, sink);
      return;
    }
    const requested = lengthInPoints(node.data?.width, ctx.width);
    let width = Math.min(requested ?? result.width * 0.75, ctx.width);
    let height = (width * result.height) / result.width;
    const maxHeight = Math.min(sink.capacity() * 0.8, 560);
    if (height > maxHeight) {
      height = maxHeight;
      width = (height * result.width) / result.height;
    }
    const x = align === "left" ? ctx.x : align === "right" ? ctx.x + ctx.width - width : ctx.x + (ctx.width - width) / 2;
    const captionStyle: TextStyle = { face: "sansItalic", size: ctx.size * 0.88, color: COLOR.muted };
    const captionRuns = caption
      ? this.runs(
          childNodes(caption).flatMap((paragraph) =>
            isElement(paragraph) && paragraph.type === "paragraph" ? childNodes(paragraph) : [paragraph],
          ),
          captionStyle,
        )
      : [];
    sink.keep(height + (captionRuns.length > 0 ? ctx.size * 2 : 0));
    const image = result.image;
    sink.place({
      height,
      decos: ctx.decos,
      paint: (doc, y) => {
        doc.image(image, x, y, { width, height });
      },
    });
    if (captionRuns.length > 0) {
      sink.space(3, ctx.decos);
      this.paragraph(captionRuns, { ...ctx, align: "center" }, sink);
    }
  }

  private drawing(node: DocumentElement, ctx: BlockContext, sink: Sink): void {
    const ref = imageRef(dataRef(node));
    if (ref && this.env.images.get(ref).ok) {
      this.image(node, ctx, sink, "center");
      return;
    }
    this.note("[Drawing not shown: drawings cannot be embedded in PDF]", ctx, sink);
  }

  /** Footnotes of the page: the bodies of its annotations, numbered as in the text. */
  async notes(ctx: BlockContext, sink: Sink): Promise<void> {
    const { notes } = this.env;
    if (notes.length === 0) return;
    const size = ctx.size * 0.88;
    sink.space(14, ctx.decos);
    sink.keep(size * LEADING * 3);
    sink.place({
      height: 8,
      decos: ctx.decos,
      paint: (doc, y) => {
        doc
          .moveTo(ctx.x, y + 2)
          .lineTo(ctx.x + 120, y + 2)
          .lineWidth(0.6)
          .stroke(COLOR.rule);
      },
    });
    const style: TextStyle = { face: "sans", size, color: COLOR.muted };
    const column = inset(ctx, 20);
    // Notes may themselves contain annotations, which append to the list while it is printed.
    for (let index = 0; index < notes.length; index++) {
      await this.env.tick();
      const label = `${index + 1}.`;
      const labelWidth = this.env.text.measure(label, style);
      const marker = new MarkerSink(
        sink,
        (doc, baselineY) => {
          doc
            .font("sans")
            .fontSize(size)
            .fillColor(COLOR.muted)
            .text(label, column.x - 5 - labelWidth, baselineY, { lineBreak: false, baseline: "alphabetic" });
        },
        size,
      );
      const fragments = notes[index] ?? [];
      await this.blocks(
        fragments.flatMap((fragment) => childNodes(fragment)),
        { ...ctx, ...column, size, color: COLOR.muted, gap: 3 },
        marker,
      );
      marker.finish(size * LEADING, ctx.decos);
      sink.space(2, ctx.decos);
    }
  }
}

// ---------------------------------------------------------------- helpers

function alignment(node: DocumentElement): BlockContext["align"] {
  const value = dataString(node, "align");
  return value === "center" || value === "end" || value === "start" ? value : undefined;
}

/** `Length` of the spec: a number (pixels) or `{ unit, value }`. */
function lengthInPoints(value: unknown, available: number): number | undefined {
  if (typeof value === "number" && value > 0) return value * 0.75;
  if (typeof value === "object" && value !== null) {
    const { unit, value: amount } = value as { unit?: unknown; value?: unknown };
    if (typeof amount !== "number" || amount <= 0) return undefined;
    if (unit === "%") return (available * amount) / 100;
    if (unit === "px") return amount * 0.75;
  }
  return undefined;
}

/** Text of one code line, spaces kept (expressions and annotations print their text). */
function codeLineText(node: DocumentNode): string {
  if (isText(node)) return (node.leaves ?? []).map((leaf) => leaf?.text ?? "").join("");
  if (!isElement(node)) return "";
  if (node.type !== "code-line") return plainText(node);
  return childNodes(node)
    .map((child) => {
      if (isText(child)) return (child.leaves ?? []).map((leaf) => leaf?.text ?? "").join("");
      if (isElement(child) && child.type === "expression") return dataString(child, "expression") ?? "";
      return isElement(child) ? childNodes(child).map(codeLineText).join("") : "";
    })
    .join("");
}

/** A task-list checkbox whose bottom sits on the baseline. */
function drawCheckbox(doc: PDFKit.PDFDocument, x: number, baselineY: number, size: number, checked: boolean): void {
  const box = size * 0.78;
  const top = baselineY - box + size * 0.04;
  if (checked) {
    doc.roundedRect(x, top, box, box, 1.5).fill(COLOR.accent);
    doc
      .moveTo(x + box * 0.22, top + box * 0.52)
      .lineTo(x + box * 0.42, top + box * 0.74)
      .lineTo(x + box * 0.8, top + box * 0.28)
      .lineWidth(1.2)
      .stroke("#ffffff");
  } else {
    doc.roundedRect(x, top, box, box, 1.5).lineWidth(0.8).stroke(COLOR.muted);
  }
}
