/**
 * `npx tsx bench/render.bench.ts`: times renderDocument on a 1,000-block page (paragraphs with
 * marks and links, headings, lists, hints, code in several languages, a table, math) and reports
 * it as a ratio to JSON.stringify of the same document measured in the same run (these machines
 * are noisy; only same-run ratios compare). Prints medians of 50 runs after a warm-up.
 */
import { performance } from "node:perf_hooks";
import type { JSONDocument } from "../src/content/document/types.js";
import { clearHighlightCache } from "../src/content/html/code.js";
import { renderDocument } from "../src/content/html/index.js";
import { clearMathCache } from "../src/content/html/math.js";
import { block, code, doc, h, inline, li, p, testEnv, text, urlRef } from "../test/helpers/render-documents.js";

const RUNS = 50;
const WARMUP = 5;

const SNIPPETS: Array<[string, string]> = [
  [
    "javascript",
    'import { readFile } from "node:fs/promises";\n\nexport async function load(path) {\n  const text = await readFile(path, "utf8");\n  return JSON.parse(text); // may throw\n}',
  ],
  ["python", 'def greet(name: str) -> str:\n    """Say hello."""\n    return f"Hello, {name}!"\n\nprint(greet("world"))'],
  ["bash", 'curl -H "Authorization: Bearer $TOKEN" \\\n  https://api.example.com/v1/pets | jq ".[] | .name"'],
  ["json", '{\n  "id": "p_123",\n  "name": "Rex",\n  "tags": ["dog", "good"]\n}'],
];

function thousandBlocks(): JSONDocument {
  const nodes: any[] = [];
  for (let i = 0; nodes.length < 1_000; i++) {
    if (i % 25 === 0) nodes.push(h((1 + (i % 3)) as 1 | 2 | 3, `Section ${i}: getting things done`));
    nodes.push(
      p(
        `Paragraph ${i} explains how the feature works, `,
        text("with emphasis", "bold"),
        " and ",
        text("inline code", "code"),
        ", then ",
        inline("link", { ref: { kind: "page", page: `p${i % 40}` } }, [text("links to another page")]),
        " before it ends with an ordinary sentence of realistic length.",
      ),
    );
    if (i % 10 === 3) nodes.push(block("list-unordered", {}, [li(p("First point")), li(p("Second point")), li(p("Third point"))]));
    if (i % 12 === 5) nodes.push(block("hint", { style: "info" }, [p("Remember to save your work before closing.")]));
    if (i % 8 === 7) {
      const [syntax, source] = SNIPPETS[i % SNIPPETS.length]!;
      nodes.push(code(syntax, source));
    }
    if (i % 100 === 50) nodes.push(block("math", { formula: "\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}" }));
    if (i % 100 === 99) nodes.push(p(inline("link", { ref: urlRef("https://example.com") }, [text("External reference")])));
  }
  return doc(...nodes.slice(0, 1_000));
}

function time(fn: () => unknown): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

function medianOf(fn: () => unknown): { median: number; min: number; max: number } {
  for (let i = 0; i < WARMUP; i++) fn();
  const times = Array.from({ length: RUNS }, () => time(fn)).sort((a, b) => a - b);
  return { median: times[Math.floor(RUNS / 2)]!, min: times[0]!, max: times[RUNS - 1]! };
}

const document = thousandBlocks();
const env = testEnv();
const html = renderDocument(document, env).html;
const baseline = medianOf(() => JSON.stringify(document));
const cold = medianOf(() => {
  clearHighlightCache();
  clearMathCache();
  renderDocument(document, env);
});
const render = medianOf(() => renderDocument(document, env));
const withoutCode = { ...document, nodes: document.nodes.filter((n) => n.type !== "code" && n.type !== "math") };
const renderNoCode = medianOf(() => renderDocument(withoutCode, env));

const ms = (t: { median: number; min: number; max: number }) => `${t.median.toFixed(2)} ms (${t.min.toFixed(2)}–${t.max.toFixed(2)})`;
console.log(
  `document: ${document.nodes.length} top-level blocks, ${JSON.stringify(document).length} bytes of JSON, ${html.length} bytes of HTML`,
);
console.log(`JSON.stringify (baseline):        ${ms(baseline)}`);
console.log(`renderDocument, nothing cached:   ${ms(cold)}  = ${(cold.median / baseline.median).toFixed(1)}× the baseline`);
console.log(`renderDocument, code+math cached: ${ms(render)}  = ${(render.median / baseline.median).toFixed(1)}× the baseline`);
console.log(`renderDocument without code/math: ${ms(renderNoCode)}  = ${(renderNoCode.median / baseline.median).toFixed(1)}× the baseline`);
