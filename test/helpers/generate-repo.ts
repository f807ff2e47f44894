/**
 * Generates GitBook-format repositories of any size (nested pages with a SUMMARY.md, PNG images
 * referenced from the pages), and measures reading one:
 *
 *   npx tsx test/helpers/generate-repo.ts --pages 1000 --images 2000
 *
 * prints the fetch, list and readRepository times and the peak RSS of the process.
 */
import os from "node:os";
import { encodePng } from "./png.js";

/** A valid PNG of the given size (each seed its own colours), as image-size and browsers read it. */
export function makePng(width: number, height: number, seed = 0): Buffer {
  return encodePng(width, height, (x) => [(seed * 37) & 255, (seed * 91 + x) & 255, (seed * 13) & 255, 255], false);
}

/** A minimal baseline JPEG header (SOI, APP0, SOF0, EOI): enough for dimension readers. */
export function makeJpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const sof0 = Buffer.from([
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 255,
    width >> 8,
    width & 255,
    0x03,
    0x01,
    0x22,
    0x00,
    0x02,
    0x11,
    0x01,
    0x03,
    0x11,
    0x01,
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof0, Buffer.from([0xff, 0xd9])]);
}

/** A minimal GIF89a header with a logical screen of the given size. */
export function makeGif(width: number, height: number): Buffer {
  const b = Buffer.alloc(13);
  b.write("GIF89a", 0, "latin1");
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  return Buffer.concat([b, Buffer.from([0x3b])]);
}

/** A WebP (VP8X) header of the given size. */
export function makeWebp(width: number, height: number): Buffer {
  const vp8x = Buffer.alloc(18);
  vp8x.write("VP8X", 0, "latin1");
  vp8x.writeUInt32LE(10, 4);
  vp8x.writeUIntLE(width - 1, 12, 3);
  vp8x.writeUIntLE(height - 1, 15, 3);
  const riff = Buffer.alloc(12);
  riff.write("RIFF", 0, "latin1");
  riff.writeUInt32LE(4 + vp8x.length, 4);
  riff.write("WEBP", 8, "latin1");
  return Buffer.concat([riff, vp8x]);
}

export interface GenerateOptions {
  pages: number;
  images: number;
  /** Pages per group (top-level sections). Default 50. */
  pagesPerGroup?: number;
  /** Children per parent page inside a group. Default 5. */
  childrenPerPage?: number;
}

/**
 * The files of a GitBook-format repository: `pages` Markdown pages in groups of nested pages
 * (folder READMEs with children), listed in SUMMARY.md, and `images` PNGs in .gitbook/assets,
 * each referenced from one page.
 */
export function generateRepo(options: GenerateOptions): Record<string, Buffer> {
  const { pages, images } = options;
  const perGroup = options.pagesPerGroup ?? 50;
  const perParent = options.childrenPerPage ?? 5;
  const files: Record<string, Buffer> = {};
  const summary = ["# Table of contents", "", "* [Home](README.md)", ""];
  const pagePaths: string[] = ["README.md"];
  files["README.md"] = Buffer.from("# Home\n\nWelcome.\n");
  let made = 1;
  for (let g = 0; made < pages; g++) {
    summary.push(`## Section ${g + 1} <a href="#section-${g + 1}" id="section-${g + 1}"></a>`, "");
    for (let inGroup = 0; inGroup < perGroup && made < pages; ) {
      const parent = `section-${g + 1}/topic-${inGroup + 1}`;
      pagePaths.push(`${parent}/README.md`);
      summary.push(`* [Topic ${g + 1}.${inGroup + 1}](${parent}/README.md)`);
      made++;
      inGroup++;
      for (let c = 0; c < perParent && made < pages && inGroup < perGroup; c++) {
        const path = `${parent}/page-${c + 1}.md`;
        pagePaths.push(path);
        summary.push(`  * [Page ${g + 1}.${inGroup}.${c + 1}](${path})`);
        made++;
        inGroup++;
      }
    }
    summary.push("");
  }
  files["SUMMARY.md"] = Buffer.from(`${summary.join("\n")}\n`);
  const imageLinks = new Map<string, string[]>();
  for (let i = 0; i < images; i++) {
    const name = `image-${i}${i % 10 === 0 ? " (1)" : ""}.png`;
    files[`.gitbook/assets/${name}`] = makePng(8 + (i % 64), 8 + (i % 32), i);
    const page = pagePaths[i % pagePaths.length] as string;
    const depth = page.split("/").length - 1;
    const link = `<figure><img src="${"../".repeat(depth)}.gitbook/assets/${name}" alt="Image ${i}"><figcaption></figcaption></figure>`;
    imageLinks.set(page, [...(imageLinks.get(page) ?? []), link]);
  }
  for (const path of pagePaths.slice(1)) {
    const title = path.replace(/\.md$/, "").replace(/\//g, " ");
    const body = [
      "---",
      `description: Generated page ${path}`,
      "---",
      "",
      `# ${title}`,
      "",
      "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(20),
      "",
      "## Details",
      "",
      "* one\n* two\n* three",
      "",
      "```js\nconsole.log('hello');\n```",
      "",
      ...(imageLinks.get(path) ?? []),
      "",
    ];
    files[path] = Buffer.from(body.join("\n"));
  }
  const readmeImages = imageLinks.get("README.md");
  if (readmeImages) files["README.md"] = Buffer.from(`# Home\n\nWelcome.\n\n${readmeImages.join("\n")}\n`);
  return files;
}

async function measure(pages: number, images: number): Promise<void> {
  const { createBareRepo } = await import("./git.js");
  const { fetchRef } = await import("../../src/git/repo.js");
  const { readRepository } = await import("../../src/content/gitbook-repo/read.js");
  const files = generateRepo({ pages, images });
  const bytes = Object.values(files).reduce((sum, b) => sum + b.length, 0);
  const repo = createBareRepo(files);
  try {
    const rssBefore = process.memoryUsage().rss;
    const t0 = performance.now();
    const local = await fetchRef(repo.url, "refs/heads/main", { allowFile: true, fileRoot: os.tmpdir() });
    const t1 = performance.now();
    const entries = await local.listTree();
    const t2 = performance.now();
    const content = await readRepository(entries, local);
    const t3 = performance.now();
    await local.dispose();
    const count = (list: typeof content.pages): number =>
      list.reduce((n, p) => n + (p.kind === "document" ? 1 : 0) + (p.kind === "link" ? 0 : count(p.children)), 0);
    const peakRss = process.resourceUsage().maxRSS * 1024;
    console.log(
      JSON.stringify(
        {
          pages: count(content.pages),
          files: content.files.length,
          withDimensions: content.files.filter((f) => f.dimensions).length,
          repoFiles: entries.length,
          repoBytes: bytes,
          fetchMs: Math.round(t1 - t0),
          listTreeMs: Math.round(t2 - t1),
          readRepositoryMs: Math.round(t3 - t2),
          totalMs: Math.round(t3 - t0),
          rssBeforeMiB: +(rssBefore / 2 ** 20).toFixed(1),
          peakRssMiB: +(peakRss / 2 ** 20).toFixed(1),
          warnings: content.warnings.length,
        },
        null,
        2,
      ),
    );
  } finally {
    repo.cleanup();
  }
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  measure(arg("pages", 1000), arg("images", 2000)).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
