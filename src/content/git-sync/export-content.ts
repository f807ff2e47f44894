/**
 * From revision content to the files of a GitBook-format repository: README, SUMMARY, one Markdown
 * file per page (at the path it was imported from, or one planned from its slug), assets and
 * includes. Page paths are planned before any page is written, so that links between pages, files
 * and includes become correct relative paths.
 */
import { dirname } from "../../git/paths.js";
import type { ContentRef, JSONDocument } from "../document/types.js";
import { ASSETS_DIR, INCLUDES_DIR } from "../gitbook-repo/read.js";
import { relativePath, slugify } from "../gitbook-repo/text.js";
import {
  planPagePaths,
  type WritableContent,
  type WritableFile,
  type WritablePage,
  type WritableReusableContent,
} from "../gitbook-repo/write.js";
import { frontmatterFromPageMetadata, serializeMarkdownPage } from "../markdown/index.js";
import type { PageNode, RevisionContent } from "../revision/model.js";

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
  options: { taken?: string[]; redirects?: readonly { fromPath: string; pageId: string }[] } = {},
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

  /** A ref as a path relative to the file being written (undefined: the converter writes URLs itself). */
  const pathFor =
    (fromPath: string) =>
    (ref: ContentRef): string | undefined => {
      const from = dirname(fromPath);
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

  const serialize = async (node: PageNode, path: string) => {
    const document = (node.documentHash ? await sources.loadDocument(node.documentHash) : undefined) ?? EMPTY;
    const coverPath = (ref: { kind: "file"; file: string } | { kind: "url"; url: string }) =>
      ref.kind === "url" ? ref.url : pathFor(path)(ref);
    const frontmatter = frontmatterFromPageMetadata(
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
    return serializeMarkdownPage({ title: node.title, frontmatter, document }, { pathFor: pathFor(path) });
  };

  for (const [writable, path] of planned) {
    const node = nodeOf.get(writable);
    if (writable.kind === "document" && node) writable.source = await serialize(node, path);
  }

  const reusableContents: WritableReusableContent[] = [];
  for (const include of content.reusableContents) {
    const path = includePath.get(include.id)!;
    const document = (include.documentHash ? await sources.loadDocument(include.documentHash) : undefined) ?? EMPTY;
    reusableContents.push({ path, title: include.title, source: serializeMarkdownPage({ document }, { pathFor: pathFor(path) }) });
  }

  return {
    pages,
    files,
    reusableContents,
    variables: content.variables,
    ...(Object.keys(redirects).length > 0 ? { redirects } : {}),
  };
}
