/**
 * The editor model's law on real repositories: every page of a GitBook-format repository, converted
 * as a Git import converts it (readRepository + importContent, the job's own code, without a
 * database), goes through the editor and back, directly and through Yjs, and must come back
 * identical. Prints one row per repository: pages (and reusable contents), identical, different
 * (with the first difference), and how many blocks the editor could only keep opaque or had to
 * keep their inline source for; then the conversion time on the largest page and on a generated
 * 1 MB page.
 *
 *   npx tsx bench/editor-roundtrip.ts [bare repository ...]     (default: every repository in /work/corpus)
 *
 * A repository is read at its HEAD (bench/bare-snapshot.sh makes one from a fetched mirror).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import * as Y from "yjs";
import { normalizeInlines } from "../src/content/document/nodes.js";
import type { InlineContent, JSONDocument } from "../src/content/document/types.js";
import { type EditorNode, fromEditorDoc, toEditorDoc } from "../src/content/editor/convert.js";
import { editorSchema } from "../src/content/editor/schema.js";
import { documentToYDoc, readDocumentFromYDoc } from "../src/content/editor/yjs.js";
import { importContent } from "../src/content/git-sync/import-content.js";
import { readRepository } from "../src/content/gitbook-repo/read.js";
import { emptyContent, type PageNode } from "../src/content/revision/model.js";
import { blobHash } from "../src/content/store/canonical.js";
import { DEFAULT_GIT_LIMITS } from "../src/git/operation.js";
import { withFetchedRef } from "../src/git/repo.js";
import { closeWorkerThreads, configureWorkerThreads } from "../src/workers/pool.js";
import { firstDifference } from "./json-diff.js";

const CORPUS = "/work/corpus";
const repos =
  process.argv.length > 2 ? process.argv.slice(2) : fs.existsSync(CORPUS) ? fs.readdirSync(CORPUS).map((d) => path.join(CORPUS, d)) : [];
if (repos.length === 0) {
  console.error(`usage: tsx bench/editor-roundtrip.ts <bare repository> ... (no repository given and none in ${CORPUS})`);
  process.exit(2);
}
// The conversion runs on this thread: the figures are the editor model's, not a pool's.
configureWorkerThreads(0);

interface Row {
  repo: string;
  pages: number;
  includes: number;
  identical: number;
  different: number;
  yjsDifferent: number;
  invalidForSchema: number;
  opaque: number;
  inlineSource: number;
  firstDifference?: string;
  largest?: { name: string; json: string };
}

function countIn(node: EditorNode, counts: { opaque: number; inlineSource: number }): void {
  if (node.type === "opaqueBlock" || node.type === "opaqueInline") {
    counts.opaque++;
    // BENCH_OPAQUE=1 shows what the editor could only keep opaque.
    if (process.env.BENCH_OPAQUE) console.error(`  opaque: ${JSON.stringify(node.attrs?.raw).slice(-300)}`);
  }
  if (node.attrs?.inlineSource) counts.inlineSource++;
  for (const child of node.content ?? []) countIn(child, counts);
}

function headRef(repo: string): string {
  return execFileSync("git", ["-C", repo, "symbolic-ref", "HEAD"], { encoding: "utf8" }).trim();
}

async function documentsOf(repo: string): Promise<{ pages: Array<[string, string]>; includes: Array<[string, string]> }> {
  return withFetchedRef(
    `file://${fs.realpathSync(repo)}`,
    headRef(repo),
    { allowFile: true, fileRoot: path.dirname(fs.realpathSync(repo)), limits: DEFAULT_GIT_LIMITS },
    async (local) => {
      const entries = await local.listTree("");
      const repository = await readRepository(entries, local, { measureImages: false });
      const imported = await importContent(
        repository,
        emptyContent(),
        { readBlob: async (oid) => (await local.readBlobs([oid]))[0]!, loadDocumentJson: async () => undefined, blobHash },
        new Date().toISOString(),
      );
      const pages: Array<[string, string]> = [];
      const walk = (list: PageNode[], prefix: string) => {
        for (const page of list) {
          const at = `${prefix}/${page.slug}`;
          if (page.documentHash) pages.push([page.git?.path ?? at, imported.documents.get(page.documentHash)!]);
          walk(page.children, at);
        }
      };
      walk(imported.content.pages, "");
      const includes = imported.content.reusableContents
        .filter((rc) => rc.documentHash)
        .map((rc): [string, string] => [rc.git?.path ?? rc.id, imported.documents.get(rc.documentHash!)!]);
      return { pages, includes };
    },
  );
}

function check(row: Row, name: string, json: string): void {
  const document = JSON.parse(json) as JSONDocument;
  const editorDoc = toEditorDoc(document);
  countIn(editorDoc, row);
  try {
    editorSchema().nodeFromJSON(editorDoc).check();
  } catch {
    row.invalidForSchema++;
  }
  const back = fromEditorDoc(editorDoc);
  const direct = firstDifference(back, document);
  const ydoc = new Y.Doc();
  Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(documentToYDoc(document)));
  const viaYjs = firstDifference(readDocumentFromYDoc(ydoc), document);
  if (direct || viaYjs) {
    row.different++;
    if (viaYjs && !direct) row.yjsDifferent++;
    row.firstDifference ??= `${name}: ${direct ?? `(via Yjs) ${viaYjs}`}`;
  } else row.identical++;
  if (!row.largest || json.length > row.largest.json.length) row.largest = { name, json };
}

/** Time of toEditorDoc + fromEditorDoc: the median of `runs`, after five warm-up runs. */
function timeRoundTrip(document: JSONDocument, runs = 7): number {
  for (let i = 0; i < 5; i++) fromEditorDoc(toEditorDoc(document));
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    fromEditorDoc(toEditorDoc(document));
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

/** Time of the Yjs path the collaboration server takes: Y.Doc from the document, its update applied to another, read back. */
function timeThroughYjs(document: JSONDocument, runs = 5): number {
  const times: number[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const started = performance.now();
    const other = new Y.Doc();
    Y.applyUpdate(other, Y.encodeStateAsUpdate(documentToYDoc(document)));
    readDocumentFromYDoc(other);
    if (i > 0) times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

/** A page of about `bytes` of JSON: sections of headings, marked paragraphs with links, lists, code, hints. */
function generatedPage(bytes: number): JSONDocument {
  const text = (t: string, ...marks: string[]) => ({
    object: "text",
    leaves: [{ object: "leaf", text: t, marks: marks.map((type) => ({ object: "mark", type })) }],
  });
  // In the normal form stored documents have (texts merged, one around every inline).
  const p = (...nodes: unknown[]) => ({
    object: "block",
    type: "paragraph",
    key: `k${n++}`,
    nodes: normalizeInlines(nodes as InlineContent[]),
  });
  let n = 0;
  const nodes: unknown[] = [];
  while (JSON.stringify(nodes).length < bytes) {
    nodes.push(
      { object: "block", type: "heading-2", key: `k${n++}`, data: {}, nodes: [text(`Section ${n}`)] },
      p(
        text("Plain words and "),
        text("bold ones", "bold"),
        text(", then "),
        {
          object: "inline",
          type: "link",
          key: `k${n++}`,
          data: { ref: { kind: "url", url: "https://example.com" } },
          nodes: [text("a link")],
        },
        text(" and "),
        text("code", "code"),
        text("."),
      ),
      {
        object: "block",
        type: "list-unordered",
        key: `k${n++}`,
        nodes: [1, 2, 3].map((i) => ({ object: "block", type: "list-item", key: `k${n++}`, nodes: [p(text(`Item ${i}`))] })),
      },
      {
        object: "block",
        type: "code",
        key: `k${n++}`,
        data: { syntax: "js" },
        nodes: ["const a = 1;", "console.log(a);"].map((line) => ({
          object: "block",
          type: "code-line",
          key: `k${n++}`,
          data: {},
          nodes: [text(line)],
        })),
      },
      { object: "block", type: "hint", key: `k${n++}`, data: { style: "info" }, nodes: [p(text("A hint."))] },
    );
  }
  return { object: "document", data: {}, nodes } as unknown as JSONDocument;
}

const rows: Row[] = [];
let largest: { name: string; json: string } | undefined;
for (const repo of repos) {
  const row: Row = {
    repo: path.basename(repo),
    pages: 0,
    includes: 0,
    identical: 0,
    different: 0,
    yjsDifferent: 0,
    invalidForSchema: 0,
    opaque: 0,
    inlineSource: 0,
  };
  try {
    const { pages, includes } = await documentsOf(repo);
    row.pages = pages.length;
    row.includes = includes.length;
    for (const [name, json] of [...pages, ...includes]) check(row, name, json);
  } catch (error) {
    row.firstDifference = `import failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  rows.push(row);
  if (row.largest && (!largest || row.largest.json.length > largest.json.length))
    largest = { ...row.largest, name: `${row.repo}/${row.largest.name}` };
  console.error(`${row.repo}: ${row.pages} pages done`);
}
await closeWorkerThreads();

console.log(
  "| repository | pages | includes | identical | different | of which only via Yjs | opaque nodes | kept inline sources | first difference |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---|");
for (const r of rows) {
  console.log(
    `| ${r.repo} | ${r.pages} | ${r.includes} | ${r.identical} | ${r.different} | ${r.yjsDifferent} | ${r.opaque} | ${r.inlineSource} | ${r.firstDifference?.replaceAll("|", "\\|") ?? ""} |`,
  );
}
const total = rows.reduce((sum, r) => sum + r.pages + r.includes, 0);
const identical = rows.reduce((sum, r) => sum + r.identical, 0);
const invalid = rows.reduce((sum, r) => sum + r.invalidForSchema, 0);
console.log(`\n${identical} of ${total} documents identical; ${invalid} editor documents rejected by the schema's check().`);

if (largest) {
  const document = JSON.parse(largest.json) as JSONDocument;
  console.log(
    `largest page ${largest.name} (${(largest.json.length / 1024).toFixed(0)} KB of JSON): toEditorDoc+fromEditorDoc ${timeRoundTrip(document).toFixed(1)} ms (median of 7); through Yjs ${timeThroughYjs(document).toFixed(1)} ms (median of 5)`,
  );
}
const generated = generatedPage(1024 * 1024);
console.log(
  `generated page (${(JSON.stringify(generated).length / 1024).toFixed(0)} KB of JSON): toEditorDoc+fromEditorDoc ${timeRoundTrip(generated).toFixed(1)} ms (median of 7); through Yjs ${timeThroughYjs(generated).toFixed(1)} ms (median of 5)`,
);
