/**
 * What a large document costs the thread that handles it, step by step: parsing its stored JSON,
 * cloning it, reconciling block keys, canonicalizing and hashing, rendering it to HTML. Used to
 * decide which paths of the content API and the web app hand documents to a worker thread, and
 * where the inline/worker threshold of HTML rendering lies (content/html/off-thread.ts).
 *
 *   tsx bench/document-costs.bench.ts
 */
import { performance } from "node:perf_hooks";
import { reconcileKeys } from "../src/content/document/keys.js";
import type { JSONDocument } from "../src/content/document/types.js";
import { renderDocument } from "../src/content/html/index.js";
import { parseMarkdownPage } from "../src/content/markdown/index.js";
import { canonicalJson, objectHash } from "../src/content/store/canonical.js";

function section(i: number): string {
  return (
    `## Section ${i}\n\nSome *emphasis*, **bold** and \`code\` with [a link](https://example.com/${i}).\n` +
    "A second line of the paragraph, with more words to fill the line up to a usual length.\n\n" +
    `* item one ${i}\n* item two\n  * nested item\n\n` +
    `{% hint style="info" %}\nA hint ${i}\n{% endhint %}\n\n\`\`\`js\nconst x = ${i};\n\`\`\`\n\n| a | b |\n|---|---|\n| ${i} | two |\n\n`
  );
}
export function markdownOf(chars: number): string {
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

console.log(
  "markdown chars | JSON chars | JSON.parse | JSON.stringify | structuredClone | reconcileKeys | canonical+hash | renderDocument",
);
for (const chars of [2_000, 8_000, 32_000, 128_000, 1_000_000]) {
  const document = parseMarkdownPage(markdownOf(chars)).document;
  const json = canonicalJson(document);
  const runs = chars > 100_000 ? 5 : 21;
  const parsed = JSON.parse(json) as JSONDocument;
  const row = [
    chars,
    json.length,
    median(() => JSON.parse(json), runs),
    median(() => JSON.stringify(parsed), runs),
    median(() => structuredClone(parsed), runs),
    median(() => reconcileKeys(parsed, parsed), runs),
    median(() => objectHash("document", canonicalJson(parsed)), runs),
    median(() => renderDocument(parsed, env), runs),
  ];
  console.log(row.map((v) => (typeof v === "number" && !Number.isInteger(v) ? `${v.toFixed(2)} ms` : String(v))).join(" | "));
}
