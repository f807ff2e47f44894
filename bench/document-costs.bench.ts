/**
 * What a large document costs the thread that handles it, step by step: parsing its stored JSON,
 * cloning it, reconciling block keys, canonicalizing and hashing, rendering it to HTML. Used to
 * decide which paths of the content API and the web app hand documents to a worker thread, and
 * where the inline/worker threshold of HTML rendering lies (content/html/off-thread.ts).
 *
 *   tsx bench/document-costs.bench.ts
 */
import { performance } from "node:perf_hooks";
import { MessageChannel } from "node:worker_threads";
import { reconcileKeys } from "../src/content/document/keys.js";
import { prepareDocumentNow } from "../src/content/document/off-thread.js";
import type { JSONDocument } from "../src/content/document/types.js";
import { renderDocument } from "../src/content/html/index.js";
import { type HtmlEnvData, type HtmlRenderHost, renderHtmlNow } from "../src/content/html/off-thread.js";
import { parseMarkdownPage } from "../src/content/markdown/index.js";
import { runInWorker } from "../src/content/run-in-worker.js";
import { canonicalJson, objectHash } from "../src/content/store/canonical.js";
import { closeWorkerThreads } from "../src/workers/pool.js";

function section(i: number): string {
  return (
    `## Section ${i}\n\nSome *emphasis*, **bold** and \`code\` with [a link](https://example.com/${i}).\n` +
    "A second line of the paragraph, with more words to fill the line up to a usual length.\n\n" +
    `* item one ${i}\n* item two\n  * nested item\n\n` +
    `{% hint style="info" %}\nA hint ${i}\n{% endhint %}\n\n\`\`\`js\nconst x = ${i};\n\`\`\`\n\n| a | b |\n|---|---|\n| ${i} | two |\n\n`
  );
}
function markdownOf(chars: number): string {
  let text = "# A page\n\n";
  for (let i = 0; text.length < chars; i++) text += section(i);
  return text;
}

function median(fn: () => unknown, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    fn();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const env = {
  link: () => undefined,
  file: () => undefined,
  reusableContent: () => undefined,
  expression: () => "",
  condition: () => true,
};

async function medianAsync(fn: () => Promise<unknown>, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const ms = (v: number) => `${v.toFixed(2)} ms`;
const sizes = [2_000, 4_000, 8_000, 16_000, 32_000, 128_000, 1_000_000];

console.log("1. Each step on the calling thread (median)");
console.log(
  "markdown chars | JSON chars | JSON.parse | JSON.stringify | structuredClone | reconcileKeys | canonical+hash | renderDocument",
);
for (const chars of sizes) {
  const document = parseMarkdownPage(markdownOf(chars)).document;
  const json = canonicalJson(document);
  const runs = chars > 100_000 ? 5 : 21;
  const parsed = JSON.parse(json) as JSONDocument;
  for (let i = 0; i < 3; i++) reconcileKeys(parsed, parsed); // warm
  const row = [
    String(chars),
    String(json.length),
    ms(median(() => JSON.parse(json), runs)),
    ms(median(() => JSON.stringify(parsed), runs)),
    ms(median(() => structuredClone(parsed), runs)),
    ms(median(() => reconcileKeys(parsed, parsed), runs)),
    ms(median(() => objectHash("document", canonicalJson(parsed)), runs)),
    ms(median(() => renderDocument(parsed, env), runs)),
  ];
  console.log(row.join(" | "));
}

const host: HtmlRenderHost = { files: async () => new Map(), reusableContents: async () => new Map() };
const data: HtmlEnvData = {
  spaceId: "s",
  pageIds: [],
  hrefs: { page: "/p/{page}", space: "/s/{space}", collection: "/c/{collection}" },
  vars: { space: {}, page: {} },
};

console.log("\n2. The whole job inline against a round trip to a warm worker thread (median)");
console.log("JSON chars | prepareDocument inline | in a worker | renderHtml inline | in a worker");
await runInWorker("prepareDocument", { documentJson: '{"object":"document","data":{},"nodes":[]}' });
for (const chars of sizes) {
  const json = canonicalJson(parseMarkdownPage(markdownOf(chars)).document);
  const runs = chars > 100_000 ? 5 : 21;
  const input = { documentJson: json, previousJson: json };
  const render = { documentJson: json, env: data };
  const row = [
    String(json.length),
    ms(median(() => prepareDocumentNow(input), runs)),
    ms(await medianAsync(() => runInWorker("prepareDocument", input), runs)),
    ms(await medianAsync(() => renderHtmlNow(render, host), runs)),
    ms(
      await medianAsync(async () => {
        // What renderHtml does over the threshold, whatever the size.
        const channel = new MessageChannel();
        try {
          return await runInWorker("renderHtml", { ...render, host: channel.port2 }, { transferList: [channel.port2] });
        } finally {
          channel.port1.close();
        }
      }, runs),
    ),
  ];
  console.log(row.join(" | "));
}
await closeWorkerThreads();
