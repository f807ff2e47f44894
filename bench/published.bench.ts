/**
 * `npx tsx bench/published.bench.ts [pages]`: a published site over a space imported from a
 * generated GitBook repository (default 1,000 pages, through the real Git import), in process.
 *
 * - cold render: every page requested once right after the space's primary revision changed (a
 *   re-import that edits one page), so nothing is cached: p50/p99/max per page;
 * - crawl: every page's HTML, then every page's Markdown, one after the other (total time);
 * - freshness: a merge-like commit of new text, then the time until a GET shows it;
 * - insights: warm passes over every page with the recorder off and on, alternated (off, on, off,
 *   on) in the same process, pages per second each, and the process's CPU per page with each pass's
 *   write of what it recorded; then the time the recorder's flush takes.
 */
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { commitRevision } from "../src/content/revision/commit.js";
import { loadContent } from "../src/content/revision/storage.js";
import { publishedBenchSite } from "./seed.js";

const PAGES = Number(process.argv[2] ?? 1000);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

async function main() {
  const { app, handle, dataDir, spaceId, root } = await publishedBenchSite({ pages: PAGES, images: 50, tmpPrefix: "quire-bench-site-" });

  // Every page URL, as llms.txt lists them (their .md addresses).
  const llms = await app.inject({ method: "GET", url: `${root}/llms.txt` });
  const markdownUrls = [...llms.body.matchAll(/\]\(http:\/\/localhost:8080([^)]+\.md)\)/g)].map((m) => m[1]!);
  const htmlUrls = markdownUrls.map((u) => u.slice(0, -3));
  if (htmlUrls.length < PAGES * 0.9) throw new Error(`llms.txt lists ${htmlUrls.length} pages`);

  // A new primary revision (one page's title changed): every answer cached so far is stale.
  const changeRevision = async (title: string) => {
    const row = await handle.db
      .selectFrom("spaces")
      .innerJoin("revisions", "revisions.id", "spaces.revisionId")
      .select(["spaces.revisionId", "revisions.treeHash"])
      .where("spaces.id", "=", spaceId)
      .executeTakeFirstOrThrow();
    const content = await loadContent(handle.db, row.treeHash);
    const [first, ...rest] = content.pages;
    const pages = [{ ...first!, title }, ...rest];
    await handle.db.transaction().execute((trx) =>
      commitRevision(trx, {
        spaceId,
        parents: [row.revisionId],
        type: "edits",
        content: { ...content, pages },
        createdBy: null,
        movePrimaryFrom: row.revisionId,
      }),
    );
  };

  const crawl = async (urls: string[]) => {
    const times: number[] = [];
    const bytes: number[] = [];
    const sidebarBytes: number[] = [];
    const started = performance.now();
    for (const url of urls) {
      const t = performance.now();
      const res = await app.inject({ method: "GET", url });
      times.push(performance.now() - t);
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
      bytes.push(res.rawPayload.length);
      const nav = /<nav class="q-sidebar"[\s\S]*?<\/nav>/.exec(res.body);
      sidebarBytes.push(nav ? Buffer.byteLength(nav[0]) : 0);
    }
    const sort = (list: number[]) => list.sort((a, b) => a - b);
    return { total: performance.now() - started, times: sort(times), bytes: sort(bytes), sidebarBytes: sort(sidebarBytes) };
  };

  // Warm-up (V8), then the measured cold pass after a revision change.
  await crawl(htmlUrls.slice(0, 100));
  await changeRevision("Warm-up change");
  const cold = await crawl(htmlUrls);
  const warm = await crawl(htmlUrls);
  await changeRevision("Markdown change");
  const coldMd = await crawl(markdownUrls);

  // Freshness: time from the commit of a new revision to a GET that shows it.
  const started = performance.now();
  await changeRevision("Freshly changed title");
  const after = await app.inject({ method: "GET", url: `${root}/` });
  const freshMs = performance.now() - started;
  if (!after.body.includes("Freshly changed title")) throw new Error("the change did not show");

  // Insights off and on, alternated so that neither gets a warmer process; browser and agent
  // user agents from a few addresses, as readers would be.
  const recorder = app.insights;
  if (!recorder) throw new Error("the app has no insights recorder");
  const agents = ["Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "GPTBot/1.2", "curl/8.5.0"];
  const readerPass = async () => {
    const started = performance.now();
    for (const [i, url] of htmlUrls.entries()) {
      const res = await app.inject({
        method: "GET",
        url,
        headers: { "user-agent": agents[i % agents.length]! },
        remoteAddress: `198.51.100.${i % 200}`,
      });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
    }
    return htmlUrls.length / ((performance.now() - started) / 1000);
  };
  const rates = { off: [] as number[], on: [] as number[] };
  let flushMs = 0;
  const cpuPerPage = { off: [] as number[], on: [] as number[] };
  recorder.enabled = false;
  await readerPass();
  // ABBA order: neither mode always runs first in a round.
  for (const modes of [
    ["off", "on"],
    ["on", "off"],
    ["off", "on"],
    ["on", "off"],
  ] as const) {
    for (const mode of modes) {
      recorder.enabled = mode === "on";
      const cpuBefore = process.cpuUsage();
      rates[mode].push(await readerPass());
      const t = performance.now();
      await recorder.flush(true);
      if (mode === "on") flushMs = Math.max(flushMs, performance.now() - t);
      // The process's CPU over the pass and its write: steadier than pages/s on a shared machine,
      // and it counts the write, which pages/s sees only when the timer's write falls in a pass.
      const cpu = process.cpuUsage(cpuBefore);
      cpuPerPage[mode].push((cpu.user + cpu.system) / htmlUrls.length);
    }
  }
  const written = await handle.db
    .selectFrom("sitePageViews")
    .select((eb) => eb.fn.sum<number | string>("views").as("views"))
    .executeTakeFirst();

  const f = (n: number) => n.toFixed(1);
  console.log(`published site over ${htmlUrls.length} pages (generated repository, imported through Git):`);
  console.log(
    `  cold render after a revision change, per page: p50 ${f(percentile(cold.times, 50))} ms, p99 ${f(percentile(cold.times, 99))} ms, max ${f(cold.times.at(-1)!)} ms; crawl of every page ${f(cold.total / 1000)} s`,
  );
  console.log(
    `  warm pass over every page: p50 ${f(percentile(warm.times, 50))} ms, p90 ${f(percentile(warm.times, 90))} ms, p99 ${f(percentile(warm.times, 99))} ms; ${f(warm.total / 1000)} s`,
  );
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `  HTML page size: p50 ${kb(percentile(cold.bytes, 50))}, max ${kb(cold.bytes.at(-1)!)}; of which sidebar: p50 ${kb(percentile(cold.sidebarBytes, 50))}, max ${kb(cold.sidebarBytes.at(-1)!)}`,
  );
  console.log(`  cold Markdown of every page: p99 ${f(percentile(coldMd.times, 99))} ms; ${f(coldMd.total / 1000)} s`);
  console.log(`  a new revision shows on the next GET: ${f(freshMs)} ms from commit to answer`);
  const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
  console.log(
    `  warm pages with insights off: ${mean(rates.off).toFixed(0)} pages/s (${rates.off.map((r) => r.toFixed(0)).join(", ")}); on: ${mean(rates.on).toFixed(0)} pages/s (${rates.on.map((r) => r.toFixed(0)).join(", ")}); ${f((100 * (mean(rates.on) - mean(rates.off))) / mean(rates.off))}%`,
  );
  const medianOf = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  console.log(
    `  CPU per warm page, its share of the insights write included: off ${medianOf(cpuPerPage.off).toFixed(0)} µs, on ${medianOf(cpuPerPage.on).toFixed(0)} µs (medians of ${cpuPerPage.on.length} passes each); on/off ${(medianOf(cpuPerPage.on) / medianOf(cpuPerPage.off)).toFixed(2)}x`,
  );
  console.log(
    `  insights flush of one pass (${htmlUrls.length} views; ${Number(written?.views ?? 0)} counted in all, earlier passes included): ${f(flushMs)} ms, off the request path`,
  );
  await app.close();
  await handle.destroy?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
