/**
 * How Quire reads real GitBook repositories: each bare repository of a directory is imported as a
 * Git import does (readRepository + importContent, the job's own code, without a database), then
 * exported as an export does (exportContent against the same branch), and one row per repository
 * is printed as a Markdown table:
 *
 * - pages imported against the SUMMARY.md entries that name a file (and the entries left out);
 * - links between pages and to files: resolved, or broken with the reason;
 * - `page#anchor` links: whether the anchor is one of the target page's headings (GitBook's rule);
 * - pages an export writes back byte for byte, and those Quire's own Markdown already gives
 *   byte for byte (without keeping the branch's file).
 *
 *   npm run corpus -- <directory of bare repositories>    (bench/bare-snapshot.sh makes one from a mirror)
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { withHeadingAnchors } from "../src/content/document/anchor.js";
import type { JSONDocument } from "../src/content/document/types.js";
import { exportContent } from "../src/content/git-sync/export-content.js";
import { importContent } from "../src/content/git-sync/import-content.js";
import { readRepository } from "../src/content/gitbook-repo/read.js";
import { parseSummary, type SummaryNode } from "../src/content/gitbook-repo/summary.js";
import { emptyContent, type PageNode } from "../src/content/revision/model.js";
import { blobHash } from "../src/content/store/canonical.js";
import { DEFAULT_GIT_LIMITS } from "../src/git/operation.js";
import { withFetchedRef } from "../src/git/repo.js";
import { closeWorkerThreads, configureWorkerThreads } from "../src/workers/pool.js";

const dir = process.argv[2];
/** CORPUS_SHOW_CHANGED=1 names, on stderr, each page an export does not write back byte for byte. */
const SHOW_CHANGED = process.env.CORPUS_SHOW_CHANGED === "1";
if (!dir || !fs.existsSync(dir)) {
  console.error("usage: npm run corpus -- <directory of bare repositories>");
  process.exit(2);
}
configureWorkerThreads(1);

interface Row {
  repo: string;
  pages: number;
  summaryEntries: number;
  resolved: number;
  broken: Map<string, number>;
  anchors: number;
  anchorsMatched: number;
  roundTrip: number;
  ownMarkdown: number;
  seconds: number;
}

const headRef = (repo: string) => execFileSync("git", ["-C", repo, "symbolic-ref", "HEAD"], { encoding: "utf8" }).trim();

function countSummary(nodes: SummaryNode[]): number {
  return nodes.reduce(
    (n, node) =>
      n +
      (node.kind === "page"
        ? 1 + countSummary(node.children)
        : node.kind === "group" || node.kind === "empty"
          ? countSummary(node.children)
          : 0),
    0,
  );
}

type Loose = {
  object?: string;
  type?: string;
  data?: Record<string, unknown>;
  nodes?: Loose[];
  fragments?: Loose[];
  meta?: { id?: string };
};

function walkNodes(node: Loose, visit: (n: Loose) => void): void {
  visit(node);
  for (const child of node.nodes ?? []) walkNodes(child, visit);
  for (const child of node.fragments ?? []) walkNodes(child, visit);
}

async function measure(repoDir: string): Promise<Row> {
  const started = performance.now();
  return withFetchedRef(
    `file://${fs.realpathSync(repoDir)}`,
    headRef(repoDir),
    { allowFile: true, fileRoot: path.dirname(fs.realpathSync(repoDir)), limits: DEFAULT_GIT_LIMITS },
    async (local) => {
      const entries = await local.listTree("");
      const repository = await readRepository(entries, local, { measureImages: false });
      const treePaths = new Set(entries.map((e) => e.path));
      let summaryEntries = 0;
      if (repository.hasSummary) {
        const summaryPath = [repository.root, repository.config.summary].filter(Boolean).join("/");
        const [text] = await local.readBlobs([entries.find((e) => e.path === summaryPath)!.oid]);
        summaryEntries = countSummary(parseSummary(text!.toString("utf8"), summaryPath).nodes);
      }
      const originals = new Map<string, string>();
      const walkRepo = (pages: typeof repository.pages) => {
        for (const page of pages) {
          if (page.kind === "document" && page.oid !== null) originals.set(page.path, page.source);
          if (page.kind !== "link") walkRepo(page.children);
        }
      };
      walkRepo(repository.pages);
      for (const include of repository.reusableContents) originals.set(include.path, include.source);

      const imported = await importContent(
        repository,
        emptyContent(),
        {
          readBlob: async (oid) => (await local.readBlobs([oid]))[0]!,
          // Files are not needed to measure pages: named by their blob id instead of being read.
          storeFiles: async (files) => new Map(files.map((f) => [f.oid, { hash: f.oid }])),
          loadDocumentJson: async () => undefined,
          blobHash,
        },
        new Date().toISOString(),
      );
      const documents = new Map([...imported.documents].map(([hash, json]) => [hash, JSON.parse(json) as JSONDocument]));
      const pages: PageNode[] = [];
      const walk = (list: PageNode[]) => {
        for (const page of list) {
          pages.push(page);
          walk(page.children);
        }
      };
      walk(imported.content.pages);
      const byId = new Map(pages.map((p) => [p.id, p]));
      const anchorsOf = new Map<string, Set<string>>();
      const anchorSet = (page: PageNode) => {
        let set = anchorsOf.get(page.id);
        if (!set) {
          set = new Set();
          const doc = page.documentHash ? documents.get(page.documentHash) : undefined;
          if (doc) walkNodes(withHeadingAnchors(doc) as Loose, (n) => n.meta?.id && n.type?.startsWith("heading") && set!.add(n.meta.id));
          anchorsOf.set(page.id, set);
        }
        return set;
      };

      const row: Row = {
        repo: path.basename(repoDir),
        pages: pages.filter((p) => p.kind === "document").length,
        summaryEntries,
        resolved: 0,
        broken: new Map(),
        anchors: 0,
        anchorsMatched: 0,
        roundTrip: 0,
        ownMarkdown: 0,
        seconds: 0,
      };
      const brokenBecause = (reason: string) => row.broken.set(reason, (row.broken.get(reason) ?? 0) + 1);
      const rootPrefix = repository.root ? `${repository.root}/` : "";
      for (const page of pages) {
        const doc = page.documentHash ? documents.get(page.documentHash) : undefined;
        if (!doc || !page.git) continue;
        const from = path.posix.dirname(`${rootPrefix}${page.git.path}`);
        walkNodes(doc as Loose, (node) => {
          const ref = node.data?.ref as { kind: string; url?: string; page?: string; anchor?: string } | undefined;
          if (!ref || (node.type !== "link" && node.type !== "image" && node.type !== "content-ref")) return;
          if (ref.kind === "url") {
            const url = ref.url ?? "";
            if (/^[a-z][a-z0-9+.-]*:|^\/\/|^#/i.test(url) || url === "") return;
            const bare = decodeURIComponent(url.replace(/[?#].*$/, "").replace(/^<|>$/g, ""));
            const target = path.posix.normalize(path.posix.join(from, bare)).replace(/\/$/, "");
            if (target.startsWith("..")) brokenBecause("above the repository");
            else if (!rootPrefix || target.startsWith(rootPrefix) || target === repository.root) {
              if (treePaths.has(target) && /\.md$/i.test(target)) brokenBecause("Markdown not in SUMMARY");
              else if (
                treePaths.has(target) ||
                treePaths.has(`${target}/README.md`) ||
                [...treePaths].some((p) => p.startsWith(`${target}/`))
              )
                brokenBecause(/\.md$/i.test(target) ? "Markdown not in SUMMARY" : "folder");
              else brokenBecause("missing");
            } else if (treePaths.has(target) || [...treePaths].some((p) => p.startsWith(`${target}/`))) brokenBecause("outside the root");
            else brokenBecause("missing");
            return;
          }
          row.resolved++;
          if (ref.kind === "anchor") {
            row.anchors++;
            const target = ref.page ? byId.get(ref.page) : page;
            if (target && ref.anchor && anchorSet(target).has(ref.anchor)) row.anchorsMatched++;
          }
        });
      }

      const sources = { loadDocument: async (hash: string) => documents.get(hash), loadBlob: async () => undefined };
      const own = await exportContent(imported.content, sources);
      const back = await exportContent(imported.content, sources, { branch: { sources: originals, readme: repository.config.readme } });
      const compare = (list: typeof own.pages, count: () => void, show = false) => {
        const visit = (items: typeof own.pages) => {
          for (const item of items) {
            // A page without a file (a folder without README.md, a SUMMARY.md item without a link)
            // is written as no file, only its SUMMARY.md line: nothing to differ.
            if (item.kind === "document" && (item.linkless || (item.path && originals.get(item.path) === item.source))) count();
            else if (show && item.kind === "document")
              console.error(`${row.repo}: ${item.path ?? "(no path)"} does not come back unchanged`);
            if (item.kind !== "link") visit(item.children);
          }
        };
        visit(list);
      };
      compare(own.pages, () => row.ownMarkdown++);
      compare(back.pages, () => row.roundTrip++, SHOW_CHANGED);
      row.seconds = (performance.now() - started) / 1000;
      return row;
    },
  );
}

const repos = fs
  .readdirSync(dir)
  .map((d) => path.join(dir, d))
  .filter((d) => fs.existsSync(path.join(d, "HEAD")))
  .sort();
console.log(
  "| repository | pages / SUMMARY entries | links resolved | broken (reasons) | anchors matching | round trip unchanged | Quire's Markdown identical | s |",
);
console.log("|---|---:|---:|---|---:|---:|---:|---:|");
for (const repo of repos) {
  try {
    const r = await measure(repo);
    const broken = [...r.broken.values()].reduce((a, b) => a + b, 0);
    const reasons = [...r.broken]
      .sort((a, b) => b[1] - a[1])
      .map(([reason, n]) => `${n} ${reason}`)
      .join(", ");
    console.log(
      `| ${r.repo} | ${r.pages} / ${r.summaryEntries} | ${r.resolved} | ${broken}${reasons ? ` (${reasons})` : ""} | ${r.anchorsMatched} / ${r.anchors} | ${r.roundTrip} / ${r.pages} | ${r.ownMarkdown} / ${r.pages} | ${r.seconds.toFixed(1)} |`,
    );
  } catch (error) {
    console.log(`| ${path.basename(repo)} | failed: ${(error as Error).message.slice(0, 200)} | | | | | | |`);
  }
}
await closeWorkerThreads();
