/**
 * From a GitBook-format repository (as read by gitbook-repo/readRepository) to revision content.
 *
 * Identity is kept across imports: a page, file or reusable content imported from the same Git path
 * keeps its id, groups keep theirs by position in the tree, and each page's blocks keep their keys
 * where the block is unchanged or edited in place (so change requests merge at block level).
 * Links between pages and files are resolved to ids of the new revision; unresolved ones stay URLs.
 */
import { randomBase62 } from "../../lib/ids.js";
import { slugify } from "../gitbook-repo/text.js";
import type { DocumentPage, RepoFile, RepoPage, RepositoryContent } from "../gitbook-repo/types.js";
import { pageMetadataFromFrontmatter } from "../markdown/index.js";
import type { FileEntry, PageNode, ReusableContentEntry, RevisionContent } from "../revision/model.js";
import { indexPages } from "../revision/model.js";
import { runInWorker } from "../run-in-worker.js";
import type { PageToParse, ParsedPage } from "../tasks.js";
import { externalLinks, type ResolveTable, resolverFor } from "./resolve.js";

/** A file an import stored (`ImportSources.storeFiles`). */
export interface StoredFile {
  /** Content hash the bytes are stored under. */
  hash: string;
  /** Of an image, when they could be read. */
  dimensions?: { width: number; height: number } | undefined;
}

export interface ImportSources {
  /** Bytes of a file of the repository, by blob id. */
  readBlob(oid: string): Promise<Buffer>;
  /**
   * Stores the new files of the import, each read once, one after another, and answers their
   * hashes (and the dimensions of images) by blob id. Without it the files are read to hash them
   * and listed in `ImportedContent.blobs`, for the caller to store.
   */
  storeFiles?(files: readonly RepoFile[]): Promise<Map<string, StoredFile>>;
  /**
   * Stores converted documents (JSON by hash) as they are converted, outside the revision's
   * transaction: content-addressed, they are harmless if the import then fails. Without it they
   * are returned in `ImportedContent.documents` for the caller to store.
   */
  storeDocuments?(documents: ReadonlyMap<string, string>): Promise<void>;
  /** The JSON of a document of the previous revision, by hash (for key reconciliation). */
  loadDocumentJson(hash: string): Promise<string | undefined>;
  /** Content hash of bytes (blobs are stored under it). */
  blobHash(bytes: Buffer): string;
}

export interface ImportedContent {
  content: RevisionContent;
  /** Documents to store: their canonical JSON by object hash (`saveDocumentJson`). */
  documents: Map<string, string>;
  /**
   * The bytes of each new file, by hash, read again when stored (`storeImportedBlobs`): holding
   * every file of a repository at once would make an import's memory grow with its assets.
   * Files whose Git blob did not change are not read at all.
   */
  blobs: Map<string, () => Promise<Buffer>>;
  warnings: string[];
}

const newId = () => randomBase62(20);

/**
 * Pages converted per worker task, and their Markdown characters at most (a larger page goes alone).
 * Small batches keep what is in flight between threads (sources in, documents out) small; fewer
 * round trips saved nothing measurable (an 800-page import: same CPU, peak RSS a few % lower).
 */
const CONVERT_BATCH_PAGES = 20;
const CONVERT_BATCH_CHARS = 256 * 1024;

/**
 * Converts `repo` into revision content keeping the identities of `previous`. Consumes `repo`: the
 * Markdown sources of its pages and includes are emptied as they are converted.
 */
export async function importContent(
  repo: RepositoryContent,
  previous: RevisionContent,
  sources: ImportSources,
  now: string,
  options: {
    /** Prefix of the repository's web addresses (`repoTreeURL`): links to files not imported point there. */
    repoTreeURL?: string | undefined;
  } = {},
): Promise<ImportedContent> {
  const warnings = repo.warnings.map((w) => w.message);
  if (repo.externalFiles.length > 0 && !options.repoTreeURL) {
    const names = repo.externalFiles;
    warnings.push(
      `Links to ${names.length} file(s) of the repository that are not imported (outside the content root, or Markdown that SUMMARY.md does not list) stay as written: give the import the repository's web address (repoTreeURL) to link them there: ${names.slice(0, 20).join(", ")}${names.length > 20 ? ", ..." : ""}`,
    );
  }
  const documents = new Map<string, string>();
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
      if (page.kind === "document" && !page.linkless) {
        const before = previousByPath.get(page.path);
        id = before?.id;
        previousChildren = before?.children ?? [];
      } else {
        // Groups, links and pages without a file (SUMMARY items without a link) have no file: the
        // one of the same kind and title (else slug) among the previous siblings keeps its id.
        const before =
          previousSiblings.find((p) => p.kind === page.kind && !p.git && p.title === page.title) ??
          (page.kind === "group" ? previousSiblings.find((p) => p.kind === "group" && p.slug === page.slug) : undefined) ??
          // (never a page that has a file: that one's id is its file's)
          (previousSiblings[index]?.kind === page.kind && !previousSiblings[index]?.git ? previousSiblings[index] : undefined);
        id = before?.id;
        previousChildren = before?.children ?? [];
      }
      id ??= newId();
      ids.set(page, id);
      if (page.kind === "document" && !page.linkless) pageIdByPath.set(page.path, id);
      if (page.kind !== "link") assign(page.children, previousChildren);
    });
  };
  assign(repo.pages, previous.pages);

  // 2. Files: same path keeps its id; unchanged Git blobs are not read again.
  const unchanged = (file: RepoFile) => {
    const before = previousFiles.get(file.path);
    return before && before.git?.oid === file.oid ? before : undefined;
  };
  const stored = sources.storeFiles ? await sources.storeFiles(repo.files.filter((f) => !unchanged(f))) : undefined;
  const files: FileEntry[] = [];
  const fileIdByPath = new Map<string, string>();
  for (const file of repo.files) {
    const before = previousFiles.get(file.path);
    const kept = unchanged(file);
    let blobHashValue: string;
    let dimensions = file.dimensions ?? kept?.dimensions;
    if (kept) {
      blobHashValue = kept.blobHash;
    } else if (stored) {
      const result = stored.get(file.oid);
      if (!result) throw new Error(`The file ${file.path} was not stored`);
      blobHashValue = result.hash;
      dimensions ??= result.dimensions;
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
      ...(dimensions ? { dimensions } : {}),
      git: { oid: file.oid, path: file.path },
    });
  }

  const includeIdByPath = new Map<string, string>();
  for (const include of repo.reusableContents) includeIdByPath.set(include.path, previousIncludes.get(include.path)?.id ?? newId());

  // 3. Every page and include converted in worker threads, in batches of bounded size (a batch's
  // sources, previous documents and results are what is in flight at once).
  const table: ResolveTable = {
    pages: pageIdByPath,
    files: fileIdByPath,
    includes: includeIdByPath,
    readme: repo.config.readme,
    root: repo.root,
    external: externalLinks(repo.root, repo.externalFiles, options.repoTreeURL),
  };
  // `from` is the page or include whose Markdown is converted: its source is let go once sent to
  // the worker (all of a repository's Markdown, as UTF-16 strings, was ~20 MB of the heap until the
  // end of the import).
  const toConvert: { from: { source: string }; length: number; fromPath: string; previousHash: string | undefined }[] = [];
  for (const include of repo.reusableContents) {
    toConvert.push({
      from: include,
      length: include.source.length,
      fromPath: include.path,
      previousHash: previousIncludes.get(include.path)?.documentHash,
    });
  }
  const walk = (pages: RepoPage[]) => {
    for (const page of pages) {
      if (page.kind === "document" && !page.linkless) {
        const id = ids.get(page) as string;
        toConvert.push({
          from: page,
          length: page.source.length,
          fromPath: page.path,
          previousHash: previousPages.get(id)?.page.documentHash,
        });
      }
      if (page.kind !== "link") walk(page.children);
    }
  };
  walk(repo.pages);
  const converted = new Map<string, ParsedPage>();
  const batches: (typeof toConvert)[] = [];
  let batchBytes = 0;
  for (const item of toConvert) {
    const last = batches.at(-1);
    if (!last || last.length >= CONVERT_BATCH_PAGES || batchBytes + item.length > CONVERT_BATCH_CHARS) {
      batches.push([item]);
      batchBytes = item.length;
    } else {
      last.push(item);
      batchBytes += item.length;
    }
  }
  // Two batches at a time keep a thread busy while the next one's previous documents load.
  let index = 0;
  // The first failure (a batch that ran out of the worker's heap, a database error) stops both
  // runners, and the import fails only once neither is still converting or storing.
  let failure: { error: unknown } | undefined;
  const runBatches = async () => {
    try {
      await convertBatches();
    } catch (error) {
      failure ??= { error };
    }
  };
  const convertBatches = async () => {
    while (index < batches.length && !failure) {
      const batch = batches[index++] as typeof toConvert;
      const pages: PageToParse[] = [];
      for (const item of batch) {
        const previousJson = item.previousHash ? await sources.loadDocumentJson(item.previousHash) : undefined;
        pages.push({ source: item.from.source, fromPath: item.fromPath, previousJson });
        item.from.source = "";
      }
      const results = await runInWorker("parsePages", { table, pages });
      if (sources.storeDocuments) {
        // Stored now, so an import holds one batch of documents at a time, not all of them.
        await sources.storeDocuments(new Map(results.map((r) => [r.hash, r.json])));
        for (const result of results) result.json = "";
      }
      batch.forEach((item, i) => {
        converted.set(item.fromPath, results[i] as ParsedPage);
      });
    }
  };
  await Promise.all([runBatches(), runBatches()]);
  if (failure) throw failure.error;

  const convert = (fromPath: string) => {
    const parsed = converted.get(fromPath);
    if (!parsed) throw new Error(`The page ${fromPath} was not converted`);
    for (const warning of parsed.warnings) warnings.push(`${fromPath}: ${warning}`);
    if (!sources.storeDocuments) documents.set(parsed.hash, parsed.json);
    return { parsed, hash: parsed.hash };
  };

  // 3. Reusable contents.
  const reusableContents: ReusableContentEntry[] = [];
  for (const include of repo.reusableContents) {
    const { hash } = convert(include.path);
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
      if (page.linkless) {
        // No file, no content: written back as the same `* Title` line of SUMMARY.md.
        out.push({
          id,
          kind: "document",
          title: page.title,
          slug: page.slug,
          createdAt: before?.createdAt ?? now,
          updatedAt: before && !before.documentHash && before.title === page.title ? before.updatedAt : now,
          children,
        });
        continue;
      }
      out.push(await documentPage(page, id, before, children));
    }
    return out;
  };

  const documentPage = async (page: DocumentPage, id: string, before: PageNode | undefined, children: PageNode[]): Promise<PageNode> => {
    const { parsed, hash } = convert(page.path);
    const resolveCover = (target: string) => {
      const ref = resolverFor(table, page.path)(target, "cover");
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
