/**
 * From a GitBook-format repository (as read by gitbook-repo/readRepository) to revision content.
 *
 * Identity is kept across imports: a page, file or reusable content imported from the same Git path
 * keeps its id, groups keep theirs by position in the tree, and each page's blocks keep their keys
 * where the block is unchanged or edited in place (so change requests merge at block level).
 * Links between pages and files are resolved to ids of the new revision; unresolved ones stay URLs.
 */
import { dirname, resolveRelative } from "../../git/paths.js";
import { randomBase62 } from "../../lib/ids.js";
import type { JSONDocument } from "../document/types.js";
import { slugify } from "../gitbook-repo/text.js";
import type { DocumentPage, RepoPage, RepositoryContent } from "../gitbook-repo/types.js";
import type { ReferenceKind, ResolvedReference } from "../markdown/index.js";
import { pageMetadataFromFrontmatter, parseMarkdownPage } from "../markdown/index.js";
import type { FileEntry, PageNode, ReusableContentEntry, RevisionContent } from "../revision/model.js";
import { indexPages } from "../revision/model.js";
import { documentHashOf } from "../revision/storage.js";

export interface ImportSources {
  /** Bytes of a file of the repository, by blob id. */
  readBlob(oid: string): Promise<Buffer>;
  /** A document of the previous revision, by hash (for key reconciliation). */
  loadDocument(hash: string): Promise<JSONDocument | undefined>;
  /** Content hash of bytes (blobs are stored under it). */
  blobHash(bytes: Buffer): string;
}

export interface ImportedContent {
  content: RevisionContent;
  /** Documents to store, by hash. */
  documents: Map<string, JSONDocument>;
  /**
   * The bytes of each new file, by hash, read again when stored (`storeImportedBlobs`): holding
   * every file of a repository at once would make an import's memory grow with its assets.
   * Files whose Git blob did not change are not read at all.
   */
  blobs: Map<string, () => Promise<Buffer>>;
  warnings: string[];
}

const newId = () => randomBase62(20);
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

function decodeTarget(target: string): string {
  const bare = target.replace(/[?#].*$/, "");
  try {
    return decodeURIComponent(bare);
  } catch {
    return bare;
  }
}

export async function importContent(
  repo: RepositoryContent,
  previous: RevisionContent,
  sources: ImportSources,
  now: string,
): Promise<ImportedContent> {
  const warnings = repo.warnings.map((w) => w.message);
  const documents = new Map<string, JSONDocument>();
  const blobs = new Map<string, () => Promise<Buffer>>();

  // Previous identities by Git path.
  const previousPages = indexPages(previous.pages);
  const previousByPath = new Map<string, PageNode>();
  for (const { page } of previousPages.values()) if (page.git?.path) previousByPath.set(page.git.path, page);
  const previousFiles = new Map(previous.files.filter((f) => f.git?.path).map((f) => [f.git!.path, f]));
  const previousIncludes = new Map(previous.reusableContents.filter((r) => r.git?.path).map((r) => [r.git!.path, r]));

  // 1. Ids for every page, so links can resolve before any page is converted.
  const ids = new Map<RepoPage, string>();
  const pageIdByPath = new Map<string, string>();
  const assign = (pages: RepoPage[], previousSiblings: PageNode[]) => {
    pages.forEach((page, index) => {
      let id: string | undefined;
      let previousChildren: PageNode[] = [];
      if (page.kind === "document") {
        const before = previousByPath.get(page.path);
        id = before?.id;
        previousChildren = before?.children ?? [];
      } else {
        // Groups and links have no file: the one of the same kind and title (else slug) among the
        // previous siblings keeps its id.
        const before =
          previousSiblings.find((p) => p.kind === page.kind && p.title === page.title) ??
          (page.kind === "group" ? previousSiblings.find((p) => p.kind === "group" && p.slug === page.slug) : undefined) ??
          (previousSiblings[index]?.kind === page.kind ? previousSiblings[index] : undefined);
        id = before?.id;
        previousChildren = before?.children ?? [];
      }
      id ??= newId();
      ids.set(page, id);
      if (page.kind === "document") pageIdByPath.set(page.path, id);
      if (page.kind !== "link") assign(page.children, previousChildren);
    });
  };
  assign(repo.pages, previous.pages);

  // 2. Files: same path keeps its id; unchanged Git blobs are not read again.
  const files: FileEntry[] = [];
  const fileIdByPath = new Map<string, string>();
  for (const file of repo.files) {
    const before = previousFiles.get(file.path);
    let blobHashValue: string;
    if (before && before.git?.oid === file.oid) {
      blobHashValue = before.blobHash;
    } else {
      blobHashValue = sources.blobHash(await sources.readBlob(file.oid));
      const { oid } = file;
      blobs.set(blobHashValue, () => sources.readBlob(oid));
    }
    const id = before?.id ?? newId();
    fileIdByPath.set(file.path, id);
    files.push({
      id,
      name: file.path.slice(file.path.lastIndexOf("/") + 1),
      contentType: file.contentType,
      size: file.size,
      blobHash: blobHashValue,
      ...(file.dimensions ? { dimensions: file.dimensions } : {}),
      git: { oid: file.oid, path: file.path },
    });
  }

  const includeIdByPath = new Map<string, string>();
  for (const include of repo.reusableContents) includeIdByPath.set(include.path, previousIncludes.get(include.path)?.id ?? newId());

  /** Resolves a link target written in the file at `fromPath` (root-relative). */
  const resolverFor =
    (fromPath: string) =>
    (target: string, kind: ReferenceKind): ResolvedReference | undefined => {
      if (EXTERNAL.test(target) || target.startsWith("//")) return undefined;
      const decoded = decodeTarget(target);
      if (!decoded) return undefined;
      const path = resolveRelative(dirname(fromPath), decoded);
      if (path === undefined) return undefined;
      if (kind === "include") {
        const include = includeIdByPath.get(path);
        return include ? { kind: "reusable-content", reusableContent: include } : undefined;
      }
      const page =
        pageIdByPath.get(path) ??
        pageIdByPath.get(`${path}/README.md`) ??
        pageIdByPath.get(`${path}.md`) ??
        (path === "" ? pageIdByPath.get(repo.config.readme) : undefined);
      if (page) return { kind: "page", page };
      const file = fileIdByPath.get(path);
      if (file) return { kind: "file", file };
      return undefined;
    };

  const convert = async (source: string, fromPath: string, previousHash: string | undefined) => {
    const previousDocument = previousHash ? await sources.loadDocument(previousHash) : undefined;
    const parsed = parseMarkdownPage(source, {
      resolve: resolverFor(fromPath),
      ...(previousDocument ? { previous: previousDocument } : {}),
    });
    for (const warning of parsed.warnings) warnings.push(`${fromPath}: ${warning}`);
    const hash = documentHashOf(parsed.document);
    documents.set(hash, parsed.document);
    return { parsed, hash };
  };

  // 3. Reusable contents.
  const reusableContents: ReusableContentEntry[] = [];
  for (const include of repo.reusableContents) {
    const before = previousIncludes.get(include.path);
    const { hash } = await convert(include.source, include.path, before?.documentHash);
    reusableContents.push({
      id: includeIdByPath.get(include.path)!,
      title: include.title,
      documentHash: hash,
      git: { oid: include.oid, path: include.path },
    });
  }

  // 4. Pages.
  const build = async (pages: RepoPage[]): Promise<PageNode[]> => {
    const out: PageNode[] = [];
    for (const page of pages) {
      const id = ids.get(page)!;
      const before = previousPages.get(id)?.page;
      if (page.kind === "link") {
        out.push({
          id,
          kind: "link",
          title: page.title,
          slug: "",
          href: page.href,
          target: { kind: "url", url: page.href },
          createdAt: before?.createdAt ?? now,
          updatedAt: now,
          children: [],
        });
        continue;
      }
      const children = await build(page.children);
      if (page.kind === "group") {
        out.push({
          id,
          kind: "group",
          title: page.title,
          slug: page.slug,
          createdAt: before?.createdAt ?? now,
          updatedAt: before?.updatedAt ?? now,
          children,
        });
        continue;
      }
      out.push(await documentPage(page, id, before, children));
    }
    return out;
  };

  const documentPage = async (page: DocumentPage, id: string, before: PageNode | undefined, children: PageNode[]): Promise<PageNode> => {
    const { parsed, hash } = await convert(page.source, page.path, before?.documentHash);
    const resolveCover = (target: string) => {
      const ref = resolverFor(page.path)(target, "cover");
      return ref?.kind === "file" ? ref : { kind: "url" as const, url: target };
    };
    const meta = pageMetadataFromFrontmatter(parsed.frontmatter, resolveCover);
    // The file's own `#` heading is the page title; SUMMARY's text, when it differs, becomes the
    // sidebar label, so neither is lost and an export writes both back.
    const title = parsed.title?.trim() || page.title;
    const label = page.label ?? (page.title !== title ? page.title : undefined);
    const node: PageNode = {
      id,
      kind: "document",
      title,
      // The root README's slug follows its title (what GitBook does), taken from the file's own
      // heading so that it is the same after an export and re-import.
      slug: page.path === repo.config.readme ? slugify(title) : page.slug,
      ...(label ? { label } : {}),
      ...(meta.icon ? { icon: meta.icon } : {}),
      ...(meta.description ? { description: meta.description } : {}),
      ...(meta.hidden ? { hidden: true } : {}),
      ...(meta.noIndex ? { noIndex: true } : {}),
      ...(meta.noRobotsIndex ? { noRobotsIndex: true } : {}),
      layout: meta.layout,
      ...(meta.cover ? { cover: meta.cover } : {}),
      ...(meta.condition ? { condition: meta.condition.expression } : {}),
      ...(meta.variables ? { variables: Object.fromEntries(Object.entries(meta.variables).map(([k, v]) => [k, String(v)])) } : {}),
      documentHash: hash,
      ...(page.oid ? { git: { oid: page.oid, path: page.path } } : {}),
      createdAt: before?.createdAt ?? now,
      updatedAt: now,
      children,
    };
    // An unchanged page keeps its last edit time.
    if (before && sameMeta(before, node)) node.updatedAt = before.updatedAt;
    return node;
  };

  const pages = await build(repo.pages);
  return { content: { pages, files, reusableContents, variables: repo.variables }, documents, blobs, warnings };
}

function sameMeta(a: PageNode, b: PageNode): boolean {
  const strip = ({ children: _c, updatedAt: _u, createdAt: _d, git: _g, ...rest }: PageNode) => rest;
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}
