import { describe, expect, it } from "vitest";
import {
  doc,
  gradientPng,
  hint,
  image,
  listItem,
  paragraph,
  quote,
  table,
  typicalPage,
  unorderedList,
} from "../../../test/fixtures/pdf/documents.js";
import { readPdf } from "../../../test/fixtures/pdf/pdf-reader.js";
import { withCpuTimeAsync } from "../../../test/helpers/cpu-time.js";
import type { DocumentElement } from "./document-types.js";
import { type PdfPageInput, renderPdf } from "./render-pdf.js";
import { CONTENT_BOTTOM, PAGE } from "./theme.js";

/**
 * Size, depth, time and cancellation limits of the PDF export. These renders are large on purpose;
 * each test states the bound it checks.
 */

const noImages = async () => undefined;

function typicalPages(count: number): PdfPageInput[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `p${i}`,
    title: `Page ${i + 1}`,
    depth: i % 4 === 0 ? 0 : 1,
    document: typicalPage(i),
  }));
}

/** Lists, quotes and hints nested inside each other `depth` times around one paragraph. */
function nested(depth: number): DocumentElement {
  let node: DocumentElement = paragraph("Deepest item");
  for (let i = 0; i < depth; i++) {
    node = i % 3 === 0 ? unorderedList(listItem(paragraph(`Level ${depth - i}`), node)) : i % 3 === 1 ? quote(node) : hint("info", node);
  }
  return node;
}

function bigTable(rows: number): DocumentElement {
  return table(
    ["#", "Name", "Description"],
    Array.from({ length: rows }, (_, r) => [
      String(r + 1),
      `row-${r + 1}`,
      `Description of row ${r + 1}, long enough to wrap in the third column of the table.`,
    ]),
  );
}

describe("renderPdf limits", () => {
  it("renders 200 pages of mixed content in a few seconds", async () => {
    // CPU time: other processes on a loaded machine do not stretch it (test/helpers/cpu-time.ts).
    const { result: pdf, ms: elapsed } = await withCpuTimeAsync(() =>
      renderPdf({ title: "Performance", pages: typicalPages(200), loadImage: noImages }),
    );
    const { numPages } = await readPdf(pdf, []);
    const content = await readPdf(pdf, [numPages - 2, numPages - 1, numPages]);
    console.info(`200 pages of mixed content: ${Math.round(elapsed)} ms of CPU, ${numPages} PDF pages, ${pdf.length} bytes`);
    expect(content.text).toContain("Page 199 explains one feature");
    // A few seconds of CPU; the bound leaves room for a slower machine.
    expect(elapsed).toBeLessThan(15_000);
  }, 120_000);

  it("renders a 1,000-page space without its memory growing with the page count", async () => {
    let peak = 0;
    const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 20);
    const before = process.memoryUsage().heapUsed;
    let pdf: Buffer;
    try {
      pdf = await renderPdf({ title: "Large space", pages: typicalPages(1000), loadImage: noImages });
    } finally {
      clearInterval(sample);
    }
    // Pages are written out as they are finished; keeping them all (pdfkit's bufferPages) peaked
    // at more than 300 MB for this space.
    expect(peak - before).toBeLessThan(200 * 1024 * 1024);
    const { numPages, outline } = await readPdf(pdf, []);
    expect(outline).toHaveLength(1001);
    // Title page, contents, then at least two pages per page of the space.
    expect(numPages).toBeGreaterThan(2000);
    // 1,000 entries fill about 24 contents pages, right after the title page.
    const contents = Array.from({ length: 28 }, (_, i) => i + 2);
    const content = await readPdf(pdf, [...contents, numPages - 2, numPages - 1, numPages]);
    expect(content.text).toContain("Page 999 explains one feature");
    // The contents list every page, the last one with the number of the PDF page it starts on.
    const lastStart = content.pages.filter((p) => p.number >= numPages - 2).find((p) => p.text.startsWith("Page 1000"))?.number;
    expect(lastStart).toBeDefined();
    expect(content.text).toContain(`Page 1000 ${lastStart}`);
  }, 180_000);

  it("renders documents nested 200 levels deep (and 5,000, as text past a depth limit)", async () => {
    for (const depth of [200, 5000]) {
      const pdf = await renderPdf({
        title: "Deep",
        pages: [{ id: "d", title: "Deep", depth: 0, document: doc(nested(depth)) }],
        loadImage: noImages,
      });
      const content = await readPdf(pdf);
      expect(content.text).toContain("Deepest item");
      expect(content.text).toContain("Level 1");
      for (const page of content.pages.slice(2)) {
        for (const item of page.items) expect(item.x + item.width).toBeLessThanOrEqual(PAGE.width - PAGE.marginX + 1);
      }
    }
  }, 60_000);

  it("renders a 10,000-row table across pages, repeating its header on each", async () => {
    const pdf = await renderPdf({
      title: "Rows",
      pages: [{ id: "t", title: "Table", depth: 0, document: doc(bigTable(10_000)) }],
      loadImage: noImages,
    });
    const { numPages } = await readPdf(pdf, []);
    expect(numPages).toBeGreaterThan(100);
    // Every 10th page and the last ones are read back (reading all of them takes longer than rendering).
    const sample = [3, 4, ...Array.from({ length: Math.floor(numPages / 10) }, (_, i) => 10 * (i + 1)), numPages - 1, numPages];
    const content = await readPdf(
      pdf,
      [...new Set(sample)].sort((a, b) => a - b),
    );
    const tablePages = content.pages;
    for (const page of tablePages) expect(page.text).toContain("# Name Description");
    expect(content.text).toContain("1 row-1 Description of row 1,");
    expect(content.text).toContain("10000 row-10000 Description of row 10000,");
    for (const page of tablePages) {
      for (const item of page.items) {
        if (Math.abs(item.y - (PAGE.height - PAGE.footerBaseline)) > 1) expect(item.y).toBeLessThanOrEqual(CONTENT_BOTTOM);
      }
    }
  }, 120_000);

  it("renders several exports at once (they share the parsed fonts)", async () => {
    const [first, second] = await Promise.all([
      renderPdf({ title: "First export", pages: typicalPages(30), loadImage: noImages }),
      renderPdf({
        title: "Второй экспорт",
        pages: [{ id: "x", title: "Ελληνικά", depth: 0, document: doc(paragraph("Zürich Кириллица ".repeat(400))) }],
        loadImage: noImages,
      }),
    ]);
    const a = await readPdf(first, [3, 4]);
    const b = await readPdf(second);
    expect(a.text).toContain("Page 0 explains one feature");
    expect(b.text).toContain("Второй экспорт");
    expect(b.text).toContain("Zürich Кириллица Zürich");
  }, 60_000);

  it("rejects at once when the signal is already aborted", async () => {
    let loads = 0;
    const controller = new AbortController();
    controller.abort();
    await expect(
      renderPdf({
        title: "Never",
        pages: [{ id: "p", title: "P", depth: 0, document: doc(image({ kind: "file", file: "x" })) }],
        loadImage: async () => {
          loads++;
          return undefined;
        },
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(loads).toBe(0);
  });

  it("stops loading and laying out pages once aborted", async () => {
    const controller = new AbortController();
    const png = gradientPng();
    const requested: string[] = [];
    const pages = typicalPages(200).map((page, i) => ({
      ...page,
      document: doc(image({ kind: "file", file: `img-${i}` }), ...(page.document?.nodes ?? [])),
    }));
    await expect(
      renderPdf({
        title: "Aborted",
        pages,
        signal: controller.signal,
        loadImage: async (ref) => {
          requested.push(ref.kind === "file" ? ref.file : ref.url);
          if (requested.length === 10) controller.abort();
          return { bytes: png, contentType: "image/png" };
        },
      }),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(requested).toHaveLength(10);
  });

  it("stops waiting for an image loader that never answers once aborted", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(
      renderPdf({
        title: "Hanging loader",
        pages: [{ id: "p", title: "P", depth: 0, document: doc(image({ kind: "url", url: "https://example.com/slow.png" })) }],
        loadImage: () => new Promise(() => {}),
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ name: "AbortError" });
  });

  it("yields to the event loop, so an abort from a timer stops a long render early", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { ms } = await withCpuTimeAsync(() =>
      expect(
        renderPdf({
          title: "Timer",
          pages: [{ id: "t", title: "Table", depth: 0, document: doc(bigTable(10_000)) }],
          loadImage: noImages,
          signal: controller.signal,
        }),
      ).rejects.toMatchObject({ name: "AbortError" }),
    );
    // The whole render takes several seconds of CPU; stopping must take a fraction of that (CPU time:
    // on a loaded machine the timer fires late in wall time, but never after more CPU than that).
    expect(ms).toBeLessThan(1500);
  }, 60_000);
});
