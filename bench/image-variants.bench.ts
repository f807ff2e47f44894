/**
 * `npx tsx bench/image-variants.bench.ts <bare repository> [sample] [ref]`: what making a
 * repository's images at the widths pages show them costs (the `image-variants` work,
 * content/images/variants.ts, with its one libvips thread). Reads every PNG, JPEG, GIF and WebP file
 * of the ref's tree, counts the distinct ones (Quire stores a blob once, so identical files are made
 * once), makes every width of `sample` of them (all by default; a sample is drawn evenly through the
 * list sorted by blob id, so reruns pick the same) and prints the CPU time of this process (all
 * threads) and the wall time per image, the bytes in and out, and the whole repository's estimate.
 * Also times the one width a reader's first request asks for (deriveOneWidth, 800 px).
 */
import { execFileSync } from "node:child_process";
import { deriveOneWidth, deriveVariants } from "../src/content/images/variants.js";
import { cpuMicros } from "./proc-cpu.js";

const repo = process.argv[2];
const sample = process.argv[3] ? Number(process.argv[3]) : Number.POSITIVE_INFINITY;
const ref = process.argv[4] ?? "HEAD";
if (!repo) throw new Error("Give a bare repository's path.");

const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { maxBuffer: 1 << 30 });
const entries = git("ls-tree", "-r", "-l", "-z", ref)
  .toString("utf8")
  .split("\0")
  .filter(Boolean)
  .map((line) => {
    const [meta, path] = line.split("\t") as [string, string];
    const [, type, hash, size] = meta.split(/\s+/);
    return { type, hash: hash!, size: Number(size), path };
  })
  .filter((e) => e.type === "blob" && /\.(png|jpe?g|gif|webp)$/i.test(e.path));
const distinct = [...new Map(entries.map((e) => [e.hash, e])).values()].sort((a, b) => a.hash.localeCompare(b.hash));
const step = Math.max(1, distinct.length / Math.min(sample, distinct.length));
const chosen: typeof distinct = [];
for (let at = 0; at < distinct.length && chosen.length < sample; at += step) chosen.push(distinct[Math.floor(at)]!);

console.log(
  `${entries.length} image files, ${distinct.length} distinct (${(distinct.reduce((n, e) => n + e.size, 0) / 1e6).toFixed(0)} MB); making every width of ${chosen.length}`,
);
const costs: { cpuMs: number; wallMs: number }[] = [];
const firstRequest: number[] = [];
let bytesIn = 0;
let bytesOut = 0;
let failed = 0;
for (const entry of chosen) {
  const source = git("cat-file", "blob", entry.hash);
  bytesIn += source.length;
  let cpu = cpuMicros(process.pid)!;
  let wall = performance.now();
  try {
    const variants = await deriveVariants(source);
    bytesOut += variants.reduce((n, v) => n + (v.data?.length ?? 0), 0);
  } catch {
    failed++;
  }
  costs.push({ cpuMs: (cpuMicros(process.pid)! - cpu) / 1000, wallMs: performance.now() - wall });
  cpu = cpuMicros(process.pid)!;
  wall = performance.now();
  await deriveOneWidth(source, 800);
  firstRequest.push(performance.now() - wall);
}
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const at = (values: number[], q: number) => sorted(values)[Math.min(values.length - 1, Math.floor(values.length * q))] ?? 0;
const cpuAll = costs.reduce((n, c) => n + c.cpuMs, 0);
const wallAll = costs.reduce((n, c) => n + c.wallMs, 0);
console.log(
  `every width: CPU ${(cpuAll / 1000).toFixed(1)} s for ${chosen.length} images (${failed} served as stored); per image p50 ${at(
    costs.map((c) => c.cpuMs),
    0.5,
  ).toFixed(0)} ms, p90 ${at(
    costs.map((c) => c.cpuMs),
    0.9,
  ).toFixed(0)} ms, max ${at(
    costs.map((c) => c.cpuMs),
    1,
  ).toFixed(0)} ms of CPU; wall ${(wallAll / 1000).toFixed(1)} s`,
);
console.log(`bytes: ${(bytesIn / 1e6).toFixed(1)} MB of sources, ${(bytesOut / 1e6).toFixed(1)} MB of WebP at every width`);
console.log(
  `estimate for the ${distinct.length} distinct images: ${(((cpuAll / chosen.length) * distinct.length) / 60_000).toFixed(1)} min of CPU (one core); ` +
    `with the job's rest after each image, ${(((wallAll / chosen.length) * distinct.length * 2) / 60_000).toFixed(1)} min of wall time`,
);
console.log(
  `one width on a reader's request (800 px): wall p50 ${at(firstRequest, 0.5).toFixed(0)} ms, p90 ${at(firstRequest, 0.9).toFixed(0)} ms, max ${at(firstRequest, 1).toFixed(0)} ms`,
);
