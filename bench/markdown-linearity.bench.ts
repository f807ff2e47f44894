/**
 * `npx tsx bench/markdown-linearity.bench.ts [maxKB] [shape...]`: times parseMarkdownPage +
 * serializeMarkdownPage (the import/API round trip) on hostile single-block shapes at sizes
 * N, 2N, 4N ... up to maxKB (default 1024), and prints the CPU time per size and the growth ratio
 * t(2N)/t(N). Linear work gives ratios near 2; a shape whose time passes 60 s stops growing.
 */
import { parseMarkdownPage } from "../src/content/markdown/parse.js";
import { serializeMarkdownPage } from "../src/content/markdown/serialize.js";
import { SHAPES } from "./markdown-shapes.js";

/** CPU milliseconds of this thread's process (less disturbed than wall time on a shared machine). */
function cpu(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function time(markdown: string): number {
  const start = cpu();
  const parsed = parseMarkdownPage(markdown);
  serializeMarkdownPage({ title: parsed.title, frontmatter: parsed.frontmatter, document: parsed.document });
  return cpu() - start;
}

const maxKB = Number(process.argv[2] ?? 1024);
const only = process.argv.slice(3);
const sizes: number[] = [];
for (let kb = 128; kb <= maxKB; kb *= 2) sizes.push(kb * 1024);

time(SHAPES["headings + paragraphs"]!(64 * 1024)); // warm-up
console.log(`shape                          ${sizes.map((s) => `${s / 1024} KB`.padStart(10)).join("")}   t(2N)/t(N)`);
for (const [name, make] of Object.entries(SHAPES)) {
  if (only.length && !only.some((o) => name.includes(o))) continue;
  const totals: number[] = [];
  for (const size of sizes) {
    if (totals.length && totals[totals.length - 1]! > 60_000) break;
    try {
      totals.push(time(make(size)));
    } catch (error) {
      console.log(`${name}: ${size / 1024} KB throws ${(error as Error).message}`);
      break;
    }
  }
  const ratios = totals.slice(1).map((t, i) => (t / totals[i]!).toFixed(2));
  console.log(
    `${name.padEnd(30)} ${totals.map((t) => `${t.toFixed(0)} ms`.padStart(10)).join("")}${"".padStart(10 * (sizes.length - totals.length))}   ${ratios.join(" ")}`,
  );
}
