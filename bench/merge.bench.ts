/**
 * `npx tsx bench/merge.bench.ts`: times `mergeContent` on a 1,000-page space (20 sections of 50
 * pages, documents of 20 blocks) where the change request edits 10 pages (one also renamed, one
 * moved to another section) and the primary has since edited 10 pages, 3 of them the same pages
 * at other blocks, so 3 documents are merged by block. Documents come from an in-memory map
 * through the `loadDocument` callback. Prints the median (and spread) of 50 runs after a warm-up.
 */
import { performance } from "node:perf_hooks";
import { mergeContent } from "../src/content/merge/merge.js";
import type { PageNode, RevisionContent } from "../src/content/revision/model.js";
import {
  type Block,
  content,
  DocumentStore,
  doc,
  getPage,
  list,
  listItem,
  page,
  paragraph,
  tab,
  tabs,
  text,
} from "../test/helpers/merge/fixtures.js";

const RUNS = 50;
const WARMUP = 5;

function pageDocument(id: string) {
  const blocks: Block[] = [];
  for (let i = 0; i < 17; i++)
    blocks.push(paragraph(`${id}-b${i}`, `Paragraph ${i} of ${id}, with a sentence of ordinary length to be realistic.`));
  blocks.push(
    list(
      `${id}-list`,
      [0, 1, 2, 3, 4].map((j) => listItem(`${id}-li${j}`, `Item ${j}`)),
    ),
  );
  blocks.push(
    tabs(
      `${id}-tabs`,
      [0, 1].map((j) => tab(`${id}-tab${j}`, `Tab ${j}`, [paragraph(`${id}-tab${j}p`, `Tab ${j} body`)])),
    ),
  );
  blocks.push(paragraph(`${id}-end`, "The end."));
  return doc(...blocks);
}

function build(store: DocumentStore): RevisionContent {
  const sections: PageNode[] = [];
  for (let s = 0; s < 20; s++) {
    const children: PageNode[] = [];
    for (let p = 0; p < 49; p++) {
      const id = `s${s}p${p}`;
      children.push(page(id, { documentHash: store.put(pageDocument(id)) }));
    }
    sections.push(page(`s${s}`, { kind: "group", children }));
  }
  return content(sections, { variables: { version: "1.0" } });
}

function edit(store: DocumentStore, c: RevisionContent, id: string, blockKey: string, value: string): void {
  const target = getPage(c.pages, id);
  const document = store.get(target.documentHash!);
  const block = (document.nodes as Block[]).find((b) => b.key === blockKey)!;
  block.nodes = [text(value)];
  target.documentHash = store.put(document);
  target.updatedAt = "2026-02-01T00:00:00.000Z";
}

const store = new DocumentStore();
const base = build(store);
const theirs = structuredClone(base);
for (let i = 0; i < 10; i++) edit(store, theirs, `s${i}p${i}`, `s${i}p${i}-b2`, `Change request edit ${i}`);
getPage(theirs.pages, "s1p1").title = "Renamed by the change request";
const moved = getPage(theirs.pages, "s2p2");
getPage(theirs.pages, "s2").children.splice(getPage(theirs.pages, "s2").children.indexOf(moved), 1);
getPage(theirs.pages, "s19").children.unshift(moved);

const ours = structuredClone(base);
for (let i = 0; i < 3; i++) edit(store, ours, `s${i}p${i}`, `s${i}p${i}-b9`, `Primary edit ${i}`);
for (let i = 10; i < 17; i++) edit(store, ours, `s${i}p${i}`, `s${i}p${i}-b4`, `Primary edit ${i}`);

// Each run gets fresh trees, as loading revisions from storage would give.
const inputs = Array.from({ length: RUNS + WARMUP }, () => ({
  base: structuredClone(base),
  ours: structuredClone(ours),
  theirs: structuredClone(theirs),
}));
const times: number[] = [];
let loads = 0;
let conflicts = 0;
let created = 0;
for (let run = 0; run < RUNS + WARMUP; run++) {
  store.loads = 0;
  const start = performance.now();
  const result = await mergeContent({ ...inputs[run]!, loadDocument: store.load });
  const elapsed = performance.now() - start;
  if (run >= WARMUP) times.push(elapsed);
  loads = store.loads;
  conflicts = result.conflicts.length;
  created = result.documents.size;
}
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
console.log(`mergeContent, 1,000 pages x 20 blocks, change request touching 10 pages, primary 10 (3 shared):`);
console.log(`  median ${at(0.5)} ms   min ${times[0]!.toFixed(2)} ms   p90 ${at(0.9)} ms   (${RUNS} runs)`);
console.log(`  documents loaded per merge: ${loads}   documents created: ${created}   conflicts: ${conflicts}`);
if (conflicts !== 0 || created !== 3) throw new Error("The benchmark scenario should merge cleanly into 3 new documents");
