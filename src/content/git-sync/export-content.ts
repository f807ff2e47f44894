/**
 * From revision content to the files of a GitBook-format repository: README, SUMMARY, one Markdown
 * file per page (at the path it was imported from, or one planned from its slug), assets and
 * includes. Page paths are planned before any page is written, so that links between pages, files
 * and includes become correct relative paths.
 */

import { dirname, repoPathFromRoot } from "../../git/paths.js";
import { PART_OF, withoutParts } from "../document/parts.js";
import type { ContentRef, JSONDocument } from "../document/types.js";
import { ASSETS_DIR, INCLUDES_DIR } from "../gitbook-repo/read.js";
import { relativePath as relativeRepoPath, slugify } from "../gitbook-repo/text.js";
import {
  planPagePaths,
  type WritableContent,
  type WritableFile,
  type WritablePage,
  type WritableReusableContent,
} from "../gitbook-repo/write.js";
import { frontmatterFromPageMetadata, pageMetadataFromFrontmatter, serializeMarkdownPage } from "../markdown/index.js";
import type { PageNode, RevisionContent } from "../revision/model.js";
import { runInWorker } from "../run-in-worker.js";
import { canonicalJson } from "../store/canonical.js";
import type { PageToParse } from "../tasks.js";
import { type ResolveTable, resolverFor } from "./resolve.js";

export interface ExportSources {
  loadDocument(hash: string): Promise<JSONDocument | undefined>;
  loadBlob(hash: string): Promise<Buffer | undefined>;
}

const EMPTY: JSONDocument = { object: "document", data: {}, nodes: [] };

/**
 * The repository content for `content`. `taken` lists root-relative paths that exist in the branch
 * but are not Quire's (new pages and assets avoid them, so an export never overwrites them).
 * `redirects` are the old paths the space keeps from its last import's `.gitbook.yaml`, each
 * written back to the file of its page now (a redirect whose page is gone is dropped).
 */
export async function exportContent(
  content: RevisionContent,
  sources: ExportSources,
  options: {
    taken?: string[];
    redirects?: readonly { fromPath: string; pageId: string }[];
    /**
     * The Markdown of the branch's pages and includes by root-relative path, and its first page.
     * A file that reads back as exactly what the space holds is written back as it is, byte for
     * byte, rather than in Quire's own spelling of the same content.
     */
    branch?: { sources: ReadonlyMap<string, string>; readme: string };
    /**
     * Repository path of the content root: pages listed from outside it (`../x.md`) link to and
     * from the others through it.
     */
    root?: string;
    /** Web addresses of the branch's files that are not imported, by root-relative path (ResolveTable.external). */
    external?: Map<string, string>;
    /**
     * Pages and includes (by id) whose file in the branch is written back as it is, whatever the
     * space holds: those in conflict, whose Git side must not be overwritten until a person chooses.
     */
    keepBranch?: ReadonlySet<string>;
  } = {},
): Promise<WritableContent> {
  // Writable pages, with their Markdown filled in below once every path is known.
  const nodeOf = new Map<WritablePage, PageNode>();
  const toWritable = (pages: PageNode[]): WritablePage[] =>
    pages.map((page) => {
      const writable: WritablePage =
        page.kind === "link"
          ? { kind: "link", title: page.title, href: page.href ?? (page.target?.kind === "url" ? page.target.url : "") }
          : page.kind === "group"
            ? { kind: "group", title: page.title, slug: page.slug, children: toWritable(page.children) }
            : !page.git?.path && !page.documentHash && page.children.length > 0
              ? // No file and no content, with pages under it: SUMMARY.md's `* Title` line.
                { kind: "document", title: page.title, slug: page.slug, source: "", children: toWritable(page.children), linkless: true }
              : {
                  kind: "document",
                  title: page.title,
                  ...(page.label ? { label: page.label } : {}),
                  ...(page.git?.path ? { path: page.git.path } : {}),
                  slug: page.slug,
                  source: "",
                  children: toWritable(page.children),
                };
      nodeOf.set(writable, page);
      return writable;
    });
  const pages = toWritable(content.pages);
  const planned = planPagePaths(pages, { taken: options.taken ?? [] });
  const pagePath = new Map<string, string>();
  for (const [writable, path] of planned) {
    if (writable.kind === "document") writable.path = path;
    const node = nodeOf.get(writable);
    if (node) pagePath.set(node.id, path);
  }
  // Like GitBook's, both sides are relative to the content root: the old path and the page's file.
  const redirects: Record<string, string> = {};
  for (const { fromPath, pageId } of options.redirects ?? []) {
    const target = pagePath.get(pageId);
    if (target && fromPath) redirects[fromPath] = target;
  }

  // Assets keep their imported path; new ones go to .gitbook/assets/ without clobbering anything.
  const used = new Set([...(options.taken ?? []), ...planned.values()].map((p) => p.toLowerCase()));
  const unique = (wanted: string) => {
    let candidate = wanted;
    for (let n = 1; used.has(candidate.toLowerCase()); n++) {
      const dot = wanted.lastIndexOf(".");
      candidate = dot > wanted.lastIndexOf("/") ? `${wanted.slice(0, dot)} (${n})${wanted.slice(dot)}` : `${wanted} (${n})`;
    }
    used.add(candidate.toLowerCase());
    return candidate;
  };
  const filePath = new Map<string, string>();
  const files: WritableFile[] = [];
  for (const file of content.files) {
    const path = file.git?.path ?? unique(`${ASSETS_DIR}/${file.name}`);
    filePath.set(file.id, path);
    const data = await sources.loadBlob(file.blobHash);
    if (data) files.push({ path, name: file.name, data });
  }
  const includePath = new Map<string, string>();
  for (const include of content.reusableContents) {
    includePath.set(include.id, include.git?.path ?? unique(`${INCLUDES_DIR}/${slugify(include.title)}.md`));
  }

  const root = options.root ?? "";
  /** A root-relative path as a repository path, so paths that climb out of the root relate correctly. */
  const repo = (path: string) => repoPathFromRoot(root, path) ?? path;
  const relativePath = (fromDir: string, target: string) => relativeRepoPath(fromDir, repo(target));
  /** A ref as a path relative to the file being written (undefined: the converter writes URLs itself). */
  const pathFor =
    (fromPath: string) =>
    (ref: ContentRef): string | undefined => {
      const from = dirname(repo(fromPath));
      switch (ref.kind) {
        case "page": {
          const target = pagePath.get(ref.page);
          return target ? relativePath(from, target) : undefined;
        }
        case "anchor": {
          const target = ref.page ? pagePath.get(ref.page) : undefined;
          if (!ref.page) return `#${ref.anchor}`;
          return target ? `${relativePath(from, target)}#${ref.anchor}` : undefined;
        }
        case "file": {
          const target = filePath.get(ref.file);
          return target ? relativePath(from, target) : undefined;
        }
        case "reusable-content": {
          const target = includePath.get(ref.reusableContent);
          return target ? relativePath(from, target) : undefined;
        }
        default:
          return undefined;
      }
    };

  const frontmatterOf = (node: Partial<PageNode>, path: string) => {
    const coverPath = (ref: { kind: "file"; file: string } | { kind: "url"; url: string }) =>
      ref.kind === "url" ? ref.url : pathFor(path)(ref);
    return frontmatterFromPageMetadata(
      {
        ...(node.description ? { description: node.description } : {}),
        ...(node.icon ? { icon: node.icon } : {}),
        ...(node.cover ? { cover: node.cover } : {}),
        ...(node.layout ? { layout: node.layout } : {}),
        hidden: !!node.hidden,
        noIndex: !!node.noIndex,
        noRobotsIndex: !!node.noRobotsIndex,
        ...(node.condition ? { condition: { expression: node.condition } } : {}),
        ...(node.variables ? { variables: node.variables } : {}),
      },
      coverPath as never,
    );
  };
  const serialize = async (node: PageNode, path: string) => {
    const document = (node.documentHash ? await sources.loadDocument(node.documentHash) : undefined) ?? EMPTY;
    return serializeMarkdownPage({ title: node.title, frontmatter: frontmatterOf(node, path), document }, { pathFor: pathFor(path) });
  };

  const kept = options.branch ? await unchangedInBranch(options.branch) : new Set<string>();
  for (const [writable, path] of planned) {
    const node = nodeOf.get(writable);
    if (writable.kind !== "document" || !node) continue;
    const branchSource = options.branch?.sources.get(path);
    const keep = kept.has(path) || (branchSource !== undefined && !!options.keepBranch?.has(node.id));
    writable.source = keep ? (branchSource as string) : await serialize(node, path);
  }

  const reusableContents: WritableReusableContent[] = [];
  for (const include of content.reusableContents) {
    const path = includePath.get(include.id)!;
    const branchSource = options.branch?.sources.get(path);
    if (kept.has(path) || (branchSource !== undefined && !!options.keepBranch?.has(include.id))) {
      reusableContents.push({ path, title: include.title, source: branchSource as string });
      continue;
    }
    const document = (include.documentHash ? await sources.loadDocument(include.documentHash) : undefined) ?? EMPTY;
    reusableContents.push({ path, title: include.title, source: serializeMarkdownPage({ document }, { pathFor: pathFor(path) }) });
  }

  /**
   * The paths whose file in the branch converts, with the links of the content as it is now, to
   * the very document (same hash once the block keys are reconciled) and page settings the space
   * holds: nothing was edited there since, so the file is written back unchanged.
   */
  async function unchangedInBranch(branch: { sources: ReadonlyMap<string, string>; readme: string }): Promise<Set<string>> {
    const table: ResolveTable = {
      pages: new Map([...pagePath].map(([id, path]) => [path, id])),
      files: new Map([...filePath].map(([id, path]) => [path, id])),
      includes: new Map([...includePath].map(([id, path]) => [path, id])),
      readme: branch.readme,
      root,
      ...(options.external ? { external: options.external } : {}),
    };
    const candidates: { path: string; node?: PageNode; documentHash?: string | undefined; title?: string }[] = [];
    for (const [writable, path] of planned) {
      const node = nodeOf.get(writable);
      if (writable.kind === "document" && node && branch.sources.has(path))
        candidates.push({ path, node, documentHash: node.documentHash });
    }
    for (const include of content.reusableContents) {
      const path = includePath.get(include.id)!;
      if (branch.sources.has(path)) candidates.push({ path, documentHash: include.documentHash });
    }
    const out = new Set<string>();
    for (let start = 0; start < candidates.length; start += 20) {
      const batch = candidates.slice(start, start + 20);
      const pages: PageToParse[] = [];
      const previousJson: (string | undefined)[] = [];
      for (const item of batch) {
        const previous = item.documentHash ? await sources.loadDocument(item.documentHash) : undefined;
        previousJson.push(previous ? canonicalJson(previous) : undefined);
        pages.push({
          source: branch.sources.get(item.path) as string,
          fromPath: item.path,
          previousJson: previousJson[previousJson.length - 1],
        });
      }
      const parsed = await runInWorker("parsePages", { table, pages });
      batch.forEach((item, i) => {
        const result = parsed[i];
        if (!result) return;
        const empty = !item.documentHash && JSON.parse(result.json).nodes?.length === 0;
        // Imported before blocks moved out of a container were marked (document/parts.ts), the
        // stored document is the same one without the marks: the page was not edited either.
        const unmarkedSame = () =>
          result.json.includes(`"${PART_OF}"`) && canonicalJson(withoutParts(JSON.parse(result.json))) === previousJson[i];
        if (result.hash !== item.documentHash && !empty && !unmarkedSame()) return;
        if (item.node) {
          // A file without its own `#` title takes the page's from SUMMARY.md, which the export writes.
          const title = result.title?.trim();
          if (title && title !== item.node.title) return;
          const resolveCover = (target: string) => {
            const ref = resolverFor(table, item.path)(target, "cover");
            return ref?.kind === "file" ? ref : { kind: "url" as const, url: target };
          };
          const meta = pageMetadataFromFrontmatter(result.frontmatter, resolveCover);
          const fromFile: Partial<PageNode> = {
            ...(meta.icon ? { icon: meta.icon } : {}),
            ...(meta.description ? { description: meta.description } : {}),
            ...(meta.hidden ? { hidden: true } : {}),
            ...(meta.noIndex ? { noIndex: true } : {}),
            ...(meta.noRobotsIndex ? { noRobotsIndex: true } : {}),
            layout: meta.layout,
            ...(meta.cover ? { cover: meta.cover } : {}),
            ...(meta.condition ? { condition: meta.condition.expression } : {}),
            ...(meta.variables ? { variables: Object.fromEntries(Object.entries(meta.variables).map(([k, v]) => [k, String(v)])) } : {}),
          };
          if (canonicalJson(frontmatterOf(fromFile, item.path)) !== canonicalJson(frontmatterOf(item.node, item.path))) return;
        }
        out.add(item.path);
      });
    }
    return out;
  }

  return {
    pages,
    files,
    reusableContents,
    variables: content.variables,
    ...(Object.keys(redirects).length > 0 ? { redirects } : {}),
  };
}
