import PDFDocument from "pdfkit";
import { BlockRenderer } from "./blocks.js";
import { type BlockContext, imageRef, type RenderEnv } from "./context.js";
import {
  asContentRef,
  childNodes,
  type DocumentElement,
  dataRef,
  dataString,
  fragmentsOf,
  isElement,
  type JSONDocument,
  type TableDefinition,
} from "./document-types.js";
import { Paginator } from "./flow.js";
import { Fonts } from "./fonts.js";
import { type ImageRef, ImageStore, type LoadImage } from "./images.js";
import { type DescribeRef, Links, pageDestination } from "./links.js";
import { type InlineRun, type Line, paintLine, TextLayout, type TextStyle } from "./text.js";
import { COLOR, CONTENT_BOTTOM, CONTENT_TOP, CONTENT_WIDTH, LEADING, PAGE, SIZE } from "./theme.js";

/** One page of the export, in page-tree order. */
export interface PdfPageInput {
  id: string;
  title: string;
  /** 0 for top-level pages; children are one deeper. */
  depth: number;
  description?: string;
  /** The page body; null for groups (and pages without a body). */
  document: JSONDocument | null;
}

export interface RenderPdfInput {
  /** Space title, printed on the title page. */
  title: string;
  /** E.g. "Change request #3: Fix typos" or a date. */
  subtitle?: string;
  pages: PdfPageInput[];
  /** Resolves image references; the renderer itself never fetches URLs from the network. */
  loadImage: LoadImage;
  signal?: AbortSignal;
  /** Optional: text and URL for references the PDF cannot resolve itself (file names, users, other spaces). */
  describeRef?: DescribeRef;
  /** Date printed on the title page and in the PDF metadata; defaults to now. */
  generatedAt?: Date;
}

const TOC_LINE = 17;
const TOC_HEADING = 56;
/** Yield to the event loop at least this often (ms), so a long export neither starves the server nor ignores abort. */
const SLICE_MS = 25;

/**
 * Renders a space (or a change request) as a PDF: a title page, a table of contents with page
 * numbers, then each page of the tree starting on a new PDF page.
 *
 * Memory stays flat however long the space: each PDF page is written out (compressed) as soon as
 * the next one starts, and images as soon as they are drawn. The contents pages need the page
 * numbers of everything after them, so they are drawn last and then moved into second place in
 * the page tree (page order in a PDF is the tree's, not the file's).
 */
export async function renderPdf(input: RenderPdfInput): Promise<Buffer> {
  const { signal } = input;
  signal?.throwIfAborted();
  const fonts = await Fonts.load();
  const generatedAt = input.generatedAt ?? new Date();
  const doc = new PDFDocument({
    autoFirstPage: false,
    size: [PAGE.width, PAGE.height],
    margin: 0,
    compress: true,
    pdfVersion: "1.7",
    displayTitle: true,
    info: {
      Title: input.title,
      ...(input.subtitle ? { Subject: input.subtitle } : {}),
      Creator: "Quire",
      Producer: "Quire",
      CreationDate: generatedAt,
    },
  });
  const chunks: Buffer[] = [];
  doc.on("data", (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<void>((resolve, reject) => {
    doc.on("end", resolve);
    doc.on("error", reject);
  });
  fonts.register(doc);

  let sliceStart = performance.now();
  const tick = async () => {
    signal?.throwIfAborted();
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
      signal?.throwIfAborted();
    }
  };

  const pages = input.pages;
  const text = new TextLayout(fonts);
  const links = new Links(new Map(pages.map((page) => [page.id, page.title])), collectAnchors(pages), input.describeRef);
  const images = new ImageStore(doc, input.loadImage, signal);
  const env: RenderEnv = { doc, fonts, text, images, links, pageId: "", notes: [], destinations: new Set(), tick };
  const renderer = new BlockRenderer(env);

  titlePage(doc, fonts, text, input.title, input.subtitle, generatedAt);
  // Pages are numbered as printed: the title page is 1, the contents pages (drawn last) come next.
  const tocPages = pages.length === 0 ? 0 : tocPageCount(pages.length);
  let written = 1;
  let footerPending = false;
  const newPage = () => {
    if (footerPending) footer(doc, text, fonts, input.title, written + tocPages);
    doc.addPage();
    written++;
    footerPending = true;
  };

  const paginator = new Paginator(doc, newPage);
  const startPage = new Map<string, number>();
  const outlineParents: PDFKit.PDFOutline[] = [];
  for (const [index, page] of pages.entries()) {
    await tick();
    env.pageId = page.id;
    env.notes = [];
    if (page.document) await images.prefetch(collectImageRefs(page.document));

    paginator.startPage();
    startPage.set(page.id, written + tocPages);
    if (!env.destinations.has(pageDestination(page.id))) {
      env.destinations.add(pageDestination(page.id));
      doc.addNamedDestination(pageDestination(page.id), "XYZ", null, 0, null);
    }
    const depth = Math.max(0, Math.min(Math.trunc(page.depth) || 0, outlineParents.length));
    outlineParents.length = depth;
    outlineParents.push(outlineItem(outlineParents[depth - 1] ?? doc.outline, page.title));

    const ctx: BlockContext = {
      x: PAGE.marginX,
      width: CONTENT_WIDTH,
      decos: [],
      depth: 0,
      listDepth: 0,
      size: SIZE.body,
      color: COLOR.text,
      gap: 7,
    };
    pageHeading(renderer, page, ctx, paginator);
    if (page.document) {
      await renderer.blocks(childNodes(page.document), ctx, paginator);
      await renderer.notes(ctx, paginator);
    } else {
      groupContents(renderer, pages, index, ctx, paginator);
    }
    paginator.flush();
    images.releaseUnused();
  }
  signal?.throwIfAborted();
  if (footerPending) footer(doc, text, fonts, input.title, written + tocPages);

  if (tocPages > 0) {
    const firstToc = written;
    tableOfContents(doc, text, fonts, pages, startPage, tocPages, (n) => footer(doc, text, fonts, input.title, n + 2));
    movePages(doc, firstToc, tocPages, 1);
  }

  doc.end();
  await finished;
  return Buffer.concat(chunks);
}

/**
 * Moves `count` pages starting at index `from` to index `to` of the page tree. pdfkit writes the
 * tree (`/Pages /Kids`) only when the document ends, so its order can still change here; the
 * page objects themselves, already written, are untouched.
 */
function movePages(doc: PDFKit.PDFDocument, from: number, count: number, to: number): void {
  const root = (doc as unknown as { _root?: { data?: { Pages?: { data?: { Kids?: unknown[] } } } } })._root;
  const kids = root?.data?.Pages?.data?.Kids;
  if (!Array.isArray(kids) || kids.length < from + count) throw new Error("pdfkit page tree not found: cannot place the table of contents");
  kids.splice(to, 0, ...kids.splice(from, count));
}

// ---------------------------------------------------------------- title page, contents, footers

function titlePage(doc: PDFKit.PDFDocument, fonts: Fonts, text: TextLayout, title: string, subtitle: string | undefined, date: Date): void {
  doc.addPage();
  const x = PAGE.marginX;
  let y = 250;
  doc.rect(x, y - 24, 56, 4).fill(COLOR.accent);
  const draw = (value: string, style: TextStyle, leading: number, after: number) => {
    for (const line of text.lines([{ kind: "text", text: value, style }], { width: CONTENT_WIDTH, leading, base: style })) {
      paintLine(doc, fonts, line, x, y);
      y += line.height;
    }
    y += after;
  };
  draw(title || "Untitled", { face: "sansBold", size: SIZE.title, color: COLOR.text }, 1.2, 14);
  if (subtitle) draw(subtitle, { face: "sans", size: SIZE.subtitle, color: COLOR.muted }, 1.35, 18);
  const formatted = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeStyle: "short", timeZone: "UTC" }).format(date);
  draw(`Generated on ${formatted} UTC`, { face: "sans", size: 10, color: COLOR.faint }, 1.4, 0);
}

function tocPageCount(entries: number): number {
  const first = Math.floor((CONTENT_BOTTOM - CONTENT_TOP - TOC_HEADING) / TOC_LINE);
  const rest = Math.floor((CONTENT_BOTTOM - CONTENT_TOP) / TOC_LINE);
  return entries <= first ? 1 : 1 + Math.ceil((entries - first) / rest);
}

function tableOfContents(
  doc: PDFKit.PDFDocument,
  text: TextLayout,
  fonts: Fonts,
  pages: readonly PdfPageInput[],
  startPage: ReadonlyMap<string, number>,
  count: number,
  pageFooter: (index: number) => void,
): void {
  let tocPage = 0;
  doc.addPage();
  // Bookmarks list in insertion order: this one, added last, belongs first.
  const bookmark = outlineItem(doc.outline, "Contents");
  doc.outline.children.splice(doc.outline.children.indexOf(bookmark), 1);
  doc.outline.children.unshift(bookmark);
  const headingStyle: TextStyle = { face: "sansBold", size: SIZE.pageTitle, color: COLOR.text };
  const [heading] = text.lines([{ kind: "text", text: "Contents", style: headingStyle }], {
    width: CONTENT_WIDTH,
    leading: 1.2,
    base: headingStyle,
  });
  if (heading) paintLine(doc, fonts, heading, PAGE.marginX, CONTENT_TOP);
  let y = CONTENT_TOP + TOC_HEADING;
  const numberColumn = 36;
  for (const page of pages) {
    if (y + TOC_LINE > CONTENT_BOTTOM) {
      pageFooter(tocPage++);
      doc.addPage();
      y = CONTENT_TOP;
    }
    const depth = Math.max(0, Math.trunc(page.depth) || 0);
    const indent = Math.min(depth, 8) * 14;
    const style: TextStyle = {
      face: depth === 0 ? "sansBold" : "sans",
      size: depth === 0 ? SIZE.body : SIZE.body - 0.5,
      color: COLOR.text,
    };
    const room = CONTENT_WIDTH - indent - numberColumn - 10;
    const title = text.truncate(page.title || "Untitled", style, room);
    const number = String(startPage.get(page.id) ?? "");
    const numberStyle: TextStyle = { ...style, face: "sans", color: COLOR.muted };
    const numberWidth = text.measure(number, numberStyle);
    const baseline = y + TOC_LINE * 0.72;
    const x = PAGE.marginX + indent;
    const [line] = text.lines([{ kind: "text", text: title, style }], { width: room + 1, leading: 1.2, base: style });
    if (line) paintLine(doc, fonts, line, x, baseline - line.baseline);
    const right = PAGE.marginX + CONTENT_WIDTH;
    const dotsFrom = x + (line?.width ?? 0) + 6;
    const dotsTo = right - numberWidth - 6;
    if (dotsTo > dotsFrom) {
      doc
        .save()
        .moveTo(dotsFrom, baseline - 1)
        .lineTo(dotsTo, baseline - 1)
        .lineWidth(0.7)
        .dash(0.7, { space: 2.6 })
        .stroke(COLOR.faint)
        .undash()
        .restore();
    }
    doc
      .font("sans")
      .fontSize(numberStyle.size)
      .fillColor(numberStyle.color)
      .text(number, right - numberWidth, baseline, { lineBreak: false, baseline: "alphabetic" });
    doc.goTo(x, y, right - x, TOC_LINE, pageDestination(page.id));
    y += TOC_LINE;
  }
  pageFooter(tocPage++);
  // The reserved page count and the pages drawn must agree, or every page number would be off.
  if (tocPage !== count) throw new Error(`table of contents took ${tocPage} pages, ${count} were reserved`);
}

function footer(doc: PDFKit.PDFDocument, text: TextLayout, fonts: Fonts, title: string, number: number): void {
  const style: TextStyle = { face: "sans", size: SIZE.footer, color: COLOR.faint };
  const baseline = PAGE.height - PAGE.footerBaseline;
  const label = String(number);
  const labelWidth = text.measure(label, style);
  const right = PAGE.marginX + CONTENT_WIDTH;
  const [line] = text.lines([{ kind: "text", text: text.truncate(title, style, CONTENT_WIDTH - labelWidth - 24), style }], {
    width: CONTENT_WIDTH,
    leading: 1.2,
    base: style,
  });
  if (line) paintLine(doc, fonts, line, PAGE.marginX, baseline - line.baseline);
  doc
    .font("sans")
    .fontSize(style.size)
    .fillColor(style.color)
    .text(label, right - labelWidth, baseline, { lineBreak: false, baseline: "alphabetic" });
}

/** Adds a bookmark pointing at the top of the current page. */
function outlineItem(parent: PDFKit.PDFOutline, title: string): PDFKit.PDFOutline {
  // pdfkit computes the bookmark's left edge as "page width minus `left`"; without it viewers
  // scroll to the right edge of the page. (@types/pdfkit only declares `expanded`.)
  const options = { expanded: false, left: PAGE.width, top: 0 };
  return parent.addItem(title || "Untitled", options);
}

// ---------------------------------------------------------------- page heading

function pageHeading(renderer: BlockRenderer, page: PdfPageInput, ctx: BlockContext, paginator: Paginator): void {
  const titleStyle: TextStyle = { face: "sansBold", size: SIZE.pageTitle, color: COLOR.text };
  const { text } = renderer.env;
  for (const line of text.lines([{ kind: "text", text: page.title || "Untitled", style: titleStyle }], {
    width: ctx.width,
    leading: 1.25,
    base: titleStyle,
  })) {
    paginator.place(renderer.lineItem(line, ctx.x, ctx.decos));
  }
  if (page.description) {
    paginator.space(4, ctx.decos);
    const style: TextStyle = { face: "sans", size: SIZE.pageDescription, color: COLOR.muted };
    renderer.paragraph([{ kind: "text", text: page.description, style }], ctx, paginator, 1.4);
  }
  paginator.place({
    height: 22,
    decos: ctx.decos,
    paint: (doc, y) => {
      doc
        .moveTo(ctx.x, y + 9)
        .lineTo(ctx.x + ctx.width, y + 9)
        .lineWidth(0.75)
        .stroke(COLOR.rule);
    },
  });
}

/** A group has no body: list the pages it contains, linked. */
function groupContents(
  renderer: BlockRenderer,
  pages: readonly PdfPageInput[],
  index: number,
  ctx: BlockContext,
  paginator: Paginator,
): void {
  const group = pages[index] as PdfPageInput;
  const style = renderer.baseStyle(ctx);
  for (let i = index + 1; i < pages.length; i++) {
    const page = pages[i] as PdfPageInput;
    if (page.depth <= group.depth) break;
    if (page.depth !== group.depth + 1) continue;
    const runs: InlineRun[] = [
      { kind: "text", text: "→ ", style: { ...style, color: COLOR.muted } },
      { kind: "text", text: page.title || "Untitled", style: { ...style, color: COLOR.link }, link: { dest: pageDestination(page.id) } },
    ];
    const lines: Line[] = renderer.env.text.lines(runs, { width: ctx.width, leading: LEADING, base: style });
    for (const line of lines) paginator.place(renderer.lineItem(line, ctx.x, ctx.decos));
  }
}

// ---------------------------------------------------------------- pre-passes

/** Every heading anchor of the export, so links to them can point inside the PDF. */
function collectAnchors(pages: readonly PdfPageInput[]): Set<string> {
  const anchors = new Set<string>();
  for (const page of pages) {
    if (!page.document) continue;
    walk(page.document, (node) => {
      if (node.type === "heading-1" || node.type === "heading-2" || node.type === "heading-3") {
        const anchor = node.meta?.id ?? dataString(node, "id");
        if (anchor) anchors.add(`${page.id}:${anchor}`);
      }
    });
  }
  return anchors;
}

/** The images a document shows, to load them before laying it out. */
function collectImageRefs(document: JSONDocument): ImageRef[] {
  const refs: ImageRef[] = [];
  walk(document, (node) => {
    if (node.type === "image" || node.type === "inline-image" || node.type === "drawing") {
      const ref = imageRef(dataRef(node));
      if (ref) refs.push(ref);
    } else if (node.type === "table") {
      const definitions = node.data?.definition;
      const records = node.data?.records;
      if (typeof definitions !== "object" || definitions === null || typeof records !== "object" || records === null) return;
      const imageColumns = Object.entries(definitions as Record<string, TableDefinition>)
        .filter(([, definition]) => definition?.type === "image")
        .map(([id]) => id);
      if (imageColumns.length === 0) return;
      for (const record of Object.values(records as Record<string, { values?: Record<string, unknown> }>)) {
        for (const column of imageColumns) {
          const value = record?.values?.[column];
          const ref = imageRef(asContentRef(value) ?? asContentRef((value as { ref?: unknown } | undefined)?.ref));
          if (ref) refs.push(ref);
        }
      }
    }
  });
  return refs;
}

/** Visits every element (blocks, inlines, fragments' children) without recursion. */
function walk(document: JSONDocument, visit: (node: DocumentElement) => void): void {
  // Pushed one by one: spreading a 100,000-row table's fragments into push() would overflow the stack.
  const stack: unknown[] = [];
  const pushAll = (nodes: readonly unknown[]) => {
    for (const node of nodes) stack.push(node);
  };
  pushAll(childNodes(document));
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isElement(node)) continue;
    visit(node);
    for (const fragment of fragmentsOf(node)) pushAll(childNodes(fragment));
    pushAll(childNodes(node));
  }
}
