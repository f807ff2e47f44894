import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  code,
  doc,
  gradientPng,
  heading,
  hint,
  image,
  kitchenSink,
  link,
  listItem,
  makePng,
  orderedList,
  pageLink,
  paragraph,
  table,
  taskItem,
  taskList,
  text,
} from "../../../test/fixtures/pdf/documents.js";
import { missingInOrder, readPdf } from "../../../test/fixtures/pdf/pdf-reader.js";
import type { DocumentElement } from "./document-types.js";
import type { ImageRef, LoadImage } from "./images.js";
import { type PdfPageInput, renderPdf } from "./render-pdf.js";
import { CONTENT_BOTTOM, CONTENT_TOP, PAGE } from "./theme.js";

const jpeg = readFileSync(new URL("../../../test/fixtures/pdf/photo.jpg", import.meta.url));
const png = gradientPng();

/** Serves the fixture images by file id; anything else is missing. */
const fixtureImages: LoadImage = async (ref) => {
  if (ref.kind === "file" && ref.file === "png") return { bytes: png, contentType: "image/png" };
  if (ref.kind === "file" && ref.file === "jpeg") return { bytes: jpeg, contentType: "image/jpeg" };
  return undefined;
};

function page(id: string, title: string, document: PdfPageInput["document"], depth = 0, description?: string): PdfPageInput {
  return { id, title, depth, document, ...(description ? { description } : {}) };
}

/** Image XObjects written to the file (an alpha PNG is two: the colours and their soft mask). */
function imageObjects(pdf: Buffer): number {
  return pdf.toString("latin1").match(/\/Subtype \/Image/g)?.length ?? 0;
}

/** Every text item of every page after the title page lies inside the printable area. */
function textOutsideBody(content: Awaited<ReturnType<typeof readPdf>>): string[] {
  const problems: string[] = [];
  content.pages.forEach((p, index) => {
    if (index === 0) return;
    for (const item of p.items) {
      if (!item.str.trim()) continue;
      const isFooter = Math.abs(item.y - (PAGE.height - PAGE.footerBaseline)) < 1;
      const cut = !isFooter && (item.y > CONTENT_BOTTOM || item.y - item.height * 0.75 < CONTENT_TOP - 1);
      const overflows = item.x < PAGE.marginX - 1 || item.x + item.width > PAGE.width - PAGE.marginX + 1;
      if (cut || overflows)
        problems.push(`page ${index + 1}: "${item.str}" at (${item.x.toFixed(1)}, ${item.y.toFixed(1)}) width ${item.width.toFixed(1)}`);
    }
  });
  return problems;
}

describe("renderPdf", () => {
  it("produces a valid PDF with the title page, contents, page titles and body text in order", async () => {
    const pdf = await renderPdf({
      title: "Quire Handbook",
      subtitle: "Change request #3: Fix typos",
      generatedAt: new Date("2025-03-04T05:06:00Z"),
      pages: [
        page("intro", "Introduction", kitchenSink({ png: "png", jpeg: "jpeg" }), 0, "What this space covers."),
        page("group", "Reference", null),
        page("child", "Configuration", doc(paragraph("Configuration body text.")), 1),
      ],
      loadImage: fixtureImages,
    });

    const raw = pdf.toString("latin1");
    expect(raw.startsWith("%PDF-1.7")).toBe(true);
    expect(raw).toMatch(/trailer\s*<<[\s\S]*\/Root[\s\S]*>>\s*startxref\s*\d+\s*%%EOF\s*$/);

    const content = await readPdf(pdf);
    const missing = missingInOrder(content.text, [
      "Quire Handbook",
      "Change request #3: Fix typos",
      "Generated on 4 March 2025 at 05:06 UTC",
      "Contents",
      "Introduction",
      "Reference",
      "Configuration",
      "Introduction",
      "What this space covers.",
      "Welcome to the guide. Bold, italic, struck, inline code and a clickable link.",
      "Zürich, Ελληνικά, Кириллица, Łódź, Ærøskøbing",
      "• First bullet",
      "◦ Nested bullet",
      "1. Step one",
      "2. Step two",
      "1. Sub-step A",
      "2. Sub-step B",
      "3. Step three",
      "Done task",
      "greet.ts",
      "const answer = 42;",
      "function greet(name: string) {",
      "An info hint with bold text.",
      "A warning hint.",
      "A quoted remark",
      "Name Description Default",
      "timeout How long to wait before giving up, in seconds. 30",
      "A PNG with a caption",
      "[Image not shown: This image does not exist (not found)]",
      "macOS",
      "brew install quire",
      "Linux",
      "apt install quire",
      "More details",
      "Hidden content shown in print.",
      "1 Install",
      "2 Configure",
      "E = mc^2",
      "Embedded content: https://www.youtube.com/watch?v=dQw4w9WgXcQ",
      "https://example.com/reference",
      "space.vars.version",
      "Text inside an unknown block.",
      "Reference",
      "Configuration",
      "Configuration body text.",
    ]);
    expect(missing).toEqual([]);

    // The table of contents gives the PDF page each page starts on, and links to it.
    const toc = content.pages[1];
    const introStart = content.pages.findIndex((p, i) => i > 1 && p.text.startsWith("Introduction")) + 1;
    expect(toc?.text).toContain(`Introduction ${introStart}`);
    expect(toc?.links.filter((l) => l.dest === "page:intro")).toHaveLength(1);
    expect(content.outline).toEqual(["Contents", "Introduction", "Reference", "Configuration"]);
    expect(textOutsideBody(content)).toEqual([]);
  });

  it("embeds PNG (with alpha) and JPEG images once each, even when they are shown on several pages", async () => {
    const withImages = doc(image({ kind: "file", file: "png" }, "Diagram"), image({ kind: "file", file: "jpeg" }));
    const loads: ImageRef[] = [];
    const pdf = await renderPdf({
      title: "Images",
      pages: [page("a", "First", withImages), page("b", "Second", withImages)],
      loadImage: async (ref) => {
        loads.push(ref);
        return fixtureImages(ref);
      },
    });
    // PNG colours + PNG soft mask + JPEG.
    expect(imageObjects(pdf)).toBe(3);
    expect(loads).toHaveLength(2);
    const content = await readPdf(pdf);
    expect(content.pages.slice(2).map((p) => p.imagesPainted)).toEqual([2, 2]);
  });

  it("replaces missing, failing, unsupported and damaged images with a placeholder line", async () => {
    const brokenAlphaPng = Buffer.from(makePng(50, 50, () => [10, 20, 30, 128]));
    // Corrupt the compressed pixel data: pdfkit would only notice in an asynchronous callback.
    const idat = brokenAlphaPng.indexOf("IDAT", 0, "latin1");
    brokenAlphaPng.fill(0x55, idat + 6, idat + 40);
    const sources: Record<string, Buffer> = {
      gif: Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1"),
      svg: Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'),
      broken: brokenAlphaPng,
      garbage: Buffer.from("not an image at all"),
      truncatedJpeg: jpeg.subarray(0, 20),
    };
    const pdf = await renderPdf({
      title: "Broken images",
      pages: [
        page(
          "p",
          "Images",
          doc(
            ...["absent", "throws", "gif", "svg", "broken", "garbage", "truncatedJpeg"].map((file) =>
              image({ kind: "file", file }, `Figure ${file}`),
            ),
            image({ kind: "url", url: "https://example.com/remote.png" }, "Remote figure"),
            paragraph("After the images."),
          ),
        ),
      ],
      loadImage: async (ref) => {
        if (ref.kind === "url") return { bytes: png, contentType: "image/png" };
        if (ref.file === "throws") throw new Error("storage offline");
        const bytes = sources[ref.file];
        return bytes ? { bytes, contentType: "application/octet-stream" } : undefined;
      },
    });
    const content = await readPdf(pdf);
    const body = content.pages
      .slice(2)
      .map((p) => p.text)
      .join("\n");
    expect(body).toContain("[Image not shown: Figure absent (not found)]");
    expect(body).toContain("[Image not shown: Figure throws (could not be loaded: storage offline)]");
    expect(body).toContain("[Image not shown: Figure gif (GIF images cannot be embedded in PDF)]");
    expect(body).toContain("[Image not shown: Figure svg (SVG images cannot be embedded in PDF)]");
    expect(body).toContain("[Image not shown: Figure broken (damaged file (bad compressed data))]");
    expect(body).toContain("[Image not shown: Figure garbage");
    expect(body).toContain("[Image not shown: Figure truncatedJpeg");
    // URL images come from the caller's loader (the renderer never fetches them itself).
    expect(body).toContain("Remote figure");
    expect(body).toContain("After the images.");
    expect(imageObjects(pdf)).toBe(2);
  });

  it("scales large images to the page and names files and users through describeRef", async () => {
    const wide = makePng(2400, 600, (x) => [x % 256, 80, 160, 255], false);
    const pdf = await renderPdf({
      title: "References",
      pages: [
        page(
          "p",
          "References",
          doc(
            image({ kind: "file", file: "wide" }),
            { object: "block", type: "file", isVoid: true, data: { ref: { kind: "file", file: "f1" } } },
            paragraph("Ask ", { object: "inline", type: "mention", isVoid: true, data: { ref: { kind: "user", user: "u1" } } }, "."),
          ),
        ),
      ],
      loadImage: async (ref) => (ref.kind === "file" && ref.file === "wide" ? { bytes: wide, contentType: "image/png" } : undefined),
      describeRef: (ref) =>
        ref.kind === "file"
          ? { text: "report.pdf", url: "https://files.example.com/report.pdf" }
          : ref.kind === "user"
            ? { text: "Ada Lovelace" }
            : undefined,
    });
    const content = await readPdf(pdf);
    const body = content.pages[2];
    expect(body?.imageBoxes).toHaveLength(1);
    const [box] = body?.imageBoxes ?? [];
    expect(box?.width).toBeCloseTo(PAGE.width - 2 * PAGE.marginX, 0);
    expect(box?.height).toBeCloseTo(((PAGE.width - 2 * PAGE.marginX) * 600) / 2400, 0);
    expect(body?.text).toContain("File: report.pdf");
    expect(body?.text).toContain("Ask @Ada Lovelace.");
    expect(body?.links.map((l) => l.url)).toContain("https://files.example.com/report.pdf");
  });

  it("makes links clickable: URLs, pages of the export and headings", async () => {
    const pdf = await renderPdf({
      title: "Links",
      pages: [
        page(
          "a",
          "Alpha",
          doc(
            paragraph(
              "Go to ",
              link("https://example.com/x", "the site"),
              ", to ",
              pageLink("b", "Beta"),
              " or to ",
              {
                object: "inline",
                type: "link",
                data: { ref: { kind: "anchor", page: "b", anchor: "deep" } },
                nodes: [text("its section")],
              },
              ".",
            ),
          ),
        ),
        page("b", "Beta", doc(paragraph("Intro."), heading(2, "Deep section", "deep"))),
      ],
      loadImage: async () => undefined,
    });
    const content = await readPdf(pdf);
    const links = content.pages[2]?.links ?? [];
    expect(links.map((l) => l.url ?? l.dest)).toEqual(["https://example.com/x", "page:b", "anchor:b:deep"]);
    expect(pdf.toString("latin1")).toContain("(anchor:b:deep)");
  });

  it("numbers ordered lists from their start and draws task checkboxes", async () => {
    const pdf = await renderPdf({
      title: "Lists",
      pages: [
        page(
          "p",
          "Lists",
          doc(
            orderedList(7, listItem("Seventh"), listItem("Eighth"), listItem("Ninth")),
            taskList(taskItem(true, "Shipped"), taskItem(false, "Pending")),
          ),
        ),
      ],
      loadImage: async () => undefined,
    });
    const content = await readPdf(pdf);
    expect(missingInOrder(content.pages[2]?.text ?? "", ["7. Seventh", "8. Eighth", "9. Ninth", "Shipped", "Pending"])).toEqual([]);
  });

  it("wraps long code lines and wide tables inside the page, and prints tables too wide to fit record by record", async () => {
    const longLine = `const url = "${"https://example.com/".repeat(12)}"; // ${"x".repeat(150)}`;
    const wide = table(
      Array.from({ length: 14 }, (_, i) => `Heading ${i}`),
      [Array.from({ length: 14 }, (_, i) => `cell-${i}-value`)],
    );
    const crowded = table(
      ["Key", "A fairly long description column", "Notes"],
      [["k", `${"word ".repeat(80)}end-of-cell`, "UnbreakableIdentifierThatIsLongerThanAnyColumnCouldEverBe_".repeat(3)]],
    );
    const pdf = await renderPdf({
      title: "Overflow",
      pages: [page("p", "Overflow", doc(code([longLine], { lineNumbers: true }), wide, crowded))],
      loadImage: async () => undefined,
    });
    const content = await readPdf(pdf);
    expect(textOutsideBody(content)).toEqual([]);
    const body = content.pages
      .slice(2)
      .map((p) => p.text)
      .join("\n");
    expect(body.replace(/\s|↪/g, "")).toContain(longLine.replace(/\s/g, ""));
    for (let i = 0; i < 14; i++) expect(body).toContain(`Heading ${i}`);
    expect(missingInOrder(body, ["Heading 0", "cell-0-value", "Heading 13", "cell-13-value"])).toEqual([]);
    expect(body.replace(/\s/g, "")).toContain("end-of-cell");
  });

  it("draws characters no bundled font has (CJK) as boxes, keeping the real text for copy and search", async () => {
    const pdf = await renderPdf({
      title: "中文标题 and Latin",
      pages: [page("p", "日本語のページ", doc(paragraph("Before 漢字かな交じり文 after."), code(["print('你好')"])))],
      loadImage: async () => undefined,
    });
    const content = await readPdf(pdf);
    expect(content.text).toContain("□□□□ and Latin");
    expect(content.text).toContain("Before □□□□□□□□ after.");
    expect(content.text).toContain("print('□□')");
    expect(textOutsideBody(content)).toEqual([]);
    // The real characters are attached to the boxes as /ActualText, for copy and search.
    const streams = contentStreams(pdf).join("\n");
    expect(streams).toContain(utf16Literal("漢字かな交じり文"));
    expect(streams).toContain(utf16Literal("日本語のページ"));
  });

  it("keeps the text of letters that an earlier render drew as part of another glyph (Cyrillic р is drawn from Latin p)", async () => {
    const render = (text: string) =>
      renderPdf({ title: "Letters", pages: [page("p", "Letters", doc(paragraph(text)))], loadImage: async () => undefined });
    expect((await readPdf(await render("Кириллица"))).text).toContain("Кириллица");
    // The fonts are parsed once per thread and shared by every render that follows.
    expect((await readPdf(await render("plain paper, upper deck"))).text).toContain("plain paper, upper deck");
  });

  it("keeps headings with the block after them and table headers with their first row", async () => {
    // Fillers of growing length put each heading at a different height on the page.
    const nodes = Array.from({ length: 24 }, (_, i) => [
      paragraph(`Filler ${i}. ${"Some words to fill the page. ".repeat(3 + i * 2)}`),
      heading(2, `Heading ${i}`),
      table(
        ["Column A", "Column B"],
        [
          [`first-${i} ${"tall cell ".repeat(40 + i * 4)}`, "b"],
          ["second", "c"],
        ],
      ),
    ]).flat();
    const pdf = await renderPdf({ title: "Keep", pages: [page("k", "Keep together", doc(...nodes))], loadImage: async () => undefined });
    const content = await readPdf(pdf);
    const pageOf = (needle: string) => content.pages.findIndex((p) => p.text.includes(needle));
    for (let i = 0; i < 24; i++) {
      const headingPage = pageOf(`Heading ${i}\n`);
      expect(headingPage, `Heading ${i}`).toBeGreaterThan(1);
      expect(content.pages[headingPage]?.text, `Heading ${i}`).toMatch(new RegExp(`Heading ${i}\\nColumn A Column B\\nfirst-${i} `));
    }
    expect(textOutsideBody(content)).toEqual([]);
  });

  it("survives malformed documents, printing what text it can find", async () => {
    const junk = [
      null,
      42,
      "a bare string",
      { object: "block" },
      { object: "block", type: "paragraph", nodes: "not an array" },
      { object: "text", leaves: null },
      { object: "text", leaves: [null, { text: 5 }, { text: "Leaf survives", marks: "bold" }] },
      { object: "block", type: "paragraph", nodes: [{ object: "inline", type: "link", data: null, nodes: [text("Link without target")] }] },
      { object: "block", type: "heading-2", data: null },
      { object: "block", type: "list-ordered", data: { start: "seven" }, nodes: [text("Item as bare text"), null] },
      { object: "block", type: "code", data: null, nodes: [null, { object: "block", type: "code-line", nodes: [text("code survives")] }] },
      { object: "block", type: "hint", data: { style: 42 }, nodes: [paragraph("Hint survives")] },
      { object: "block", type: "expandable", data: {}, fragments: "nope" },
      { object: "block", type: "images", data: {}, nodes: [{ object: "block", type: "image", data: { ref: { kind: "file" } } }] },
      { object: "block", type: "table", data: { definition: null, records: null, view: null } },
      {
        object: "block",
        type: "table",
        data: {
          view: { type: "grid", columns: "c1" },
          definition: { c1: { type: "select", title: 7, options: { a: 1 } }, c2: { type: "rating", title: "Stars", max: "x" } },
          records: { r1: { orderIndex: 3, values: { c1: ["a"], c2: "five" } }, r2: null },
        },
      },
      { object: "block", type: "mystery", nodes: [{ object: "block", type: "paragraph", nodes: [text("Nested unknown text")] }] },
    ] as unknown as DocumentElement[];
    const pdf = await renderPdf({
      title: "Junk",
      pages: [page("j", "Junk", { object: "document", nodes: junk }), page("n", "No nodes", { object: "document" } as never)],
      loadImage: async () => undefined,
    });
    const content = await readPdf(pdf);
    expect(
      missingInOrder(content.text, [
        "Leaf survives",
        "Link without target",
        "Item as bare text",
        "code survives",
        "Hint survives",
        "Nested unknown text",
        "No nodes",
      ]),
    ).toEqual([]);
  });

  it("prints page descriptions, group pages with their children, and annotations as notes", async () => {
    const annotated = paragraph(
      "A term",
      {
        object: "inline",
        type: "annotation",
        isVoid: false,
        nodes: [text(" with a note")],
        fragments: [{ object: "fragment", type: "annotation-body", nodes: [paragraph("The note body.")] }],
      },
      " continues.",
    );
    const pdf = await renderPdf({
      title: "Structure",
      pages: [
        page("g", "Guides", null, 0, "All the guides."),
        page("c1", "First guide", doc(annotated, hint("success", paragraph("Done."))), 1),
        page("c2", "Second guide", doc(), 1),
      ],
      loadImage: async () => undefined,
    });
    const content = await readPdf(pdf);
    expect(
      missingInOrder(content.text, [
        "Guides",
        "All the guides.",
        "→ First guide",
        "→ Second guide",
        "First guide",
        "A term with a note1 continues.",
        "Done.",
        "1. The note body.",
        "Second guide",
      ]),
    ).toEqual([]);
  });
});

/** Decompressed content streams of the PDF (pdfkit deflates them). */
function contentStreams(pdf: Buffer): string[] {
  const out: string[] = [];
  const raw = pdf.toString("latin1");
  const pattern = /\/Filter \/FlateDecode[\s\S]*?>>\s*stream\r?\n/g;
  for (let match = pattern.exec(raw); match; match = pattern.exec(raw)) {
    const start = match.index + match[0].length;
    const end = raw.indexOf("endstream", start);
    try {
      out.push(inflateSync(pdf.subarray(start, end)).toString("latin1"));
    } catch {
      // Not every deflated stream ends exactly before "endstream"; those are not content streams we need.
    }
  }
  return out;
}

/** How pdfkit writes a non-ASCII string: UTF-16BE after a byte-order mark, as an escaped literal string. */
function utf16Literal(value: string): string {
  const bytes = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(value, "utf16le").swap16()]);
  const escaped = bytes
    .toString("latin1")
    .replace(/[\n\r\t\b\f\\()]/g, (c) => `\\${{ "\n": "n", "\r": "r", "\t": "t", "\b": "b", "\f": "f" }[c] ?? c}`);
  return `/ActualText (${escaped})`;
}
