/**
 * Where Markdown sent to the API is worth converting in a worker thread (content/markdown/off-thread.ts):
 * for pages of growing size, the time to convert inline against a round trip to a warm worker
 * thread (median of runs), with the link table of a 1,000-page content; and what building that
 * table costs the request thread.
 *
 *   tsx bench/markdown-api.bench.ts [pages]        (default 1000)
 */
import { performance } from "node:perf_hooks";
import type { ContentLinkTable } from "../src/content/markdown/content-links.js";
import { convertMarkdownNow } from "../src/content/markdown/off-thread.js";
import { indexPages, type PageNode } from "../src/content/revision/model.js";
import { runInWorker } from "../src/content/run-in-worker.js";
import { closeWorkerThreads } from "../src/workers/pool.js";

const pageCount = Number(process.argv[2] ?? 1000);

function section(i: number): string {
  return (
    `## Section ${i}\n\nSome *emphasis*, **bold** and \`code\` with [a page](/pages/page-${i % pageCount}), ` +
    `[by path](./group-${i % 10}/page-${i % pageCount}.md) and [nothing](./missing-${i}.md).\n` +
    "A second line of the paragraph, with more words to fill the line up to a usual length.\n\n" +
    `* item one ${i}\n* item two with [a link](https://example.com/${i})\n\n` +
    `{% hint style="info" %}\nA hint ${i}\n{% endhint %}\n\n\`\`\`js\nconst x = ${i};\n\`\`\`\n\n`
  );
}
function markdownOf(chars: number): string {
  let text = "# A page\n\n";
  for (let i = 0; text.length < chars; i++) text += section(i);
  return text;
}

const now = "2026-01-01T00:00:00.000Z";
const node = (id: string, slug: string, children: PageNode[] = []): PageNode => ({
  id,
  kind: "document",
  title: slug,
  slug,
  createdAt: now,
  updatedAt: now,
  children,
});
const groups = Array.from({ length: 10 }, (_, g) =>
  node(
    `group-${g}`,
    `group-${g}`,
    Array.from({ length: pageCount / 10 }, (_, i) => node(`page-${g * (pageCount / 10) + i}`, `page-${g * (pageCount / 10) + i}`)),
  ),
);

function buildTable(): ContentLinkTable {
  const byPath = new Map<string, string>();
  const index = indexPages(groups);
  for (const [id, location] of index) if (!byPath.has(location.path)) byPath.set(location.path, id);
  return {
    directory: "",
    firstPage: groups[0]?.id,
    pagesByPath: byPath,
    pageIds: new Set(index.keys()),
    fileIds: new Set(),
    pageRefs: new Map(),
    fileRefs: new Map(),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function time(runs: number, fn: () => unknown): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    out.push(performance.now() - started);
  }
  return median(out);
}

const tableMs = await time(21, () => structuredClone(buildTable()));
console.log(`link table of ${pageCount} pages: built and copied in ${tableMs.toFixed(2)} ms (median)`);

const table = buildTable();
// Warm both: the thread's start (loading the converter) is paid once per pool, not per request.
for (let i = 0; i < 5; i++) {
  convertMarkdownNow({ markdown: markdownOf(8000), links: table });
  await runInWorker("convertMarkdown", { markdown: markdownOf(8000), links: table });
}
console.log("chars\tinline ms\tworker round trip ms");
for (const kb of [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 256]) {
  const markdown = markdownOf(kb * 1024);
  const runs = kb >= 64 ? 5 : 21;
  const inline = await time(runs, () => convertMarkdownNow({ markdown, links: table }));
  const worker = await time(runs, () => runInWorker("convertMarkdown", { markdown, links: { ...table } }));
  console.log(`${kb} KB\t${inline.toFixed(1)}\t${worker.toFixed(1)}`);
}
await closeWorkerThreads();
