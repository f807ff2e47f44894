/**
 * readRepository: a repository tree in GitBook's format -> pages, files, reusable contents,
 * variables and redirects. Pure over a virtual tree: it reads blobs through a BlobReader and never
 * touches the filesystem, so it runs the same on a fetched repository and on an in-memory one.
 */
import { parse as parseYaml } from "yaml";
import { GitError } from "../../git/errors.js";
import { DEFAULT_GIT_LIMITS } from "../../git/operation.js";
import {
  basename,
  dirname,
  isWithin,
  repoPathFromRoot,
  resolveClamped,
  resolveRelative,
  rootRelativePath,
  unsafePathReason,
} from "../../git/paths.js";
import { type BlobReader, type TreeEntry, VirtualTree } from "../../git/tree.js";
import { MAX_PAGE_DEPTH, pageTreeDepth } from "../revision/model.js";
import { runInWorker } from "../run-in-worker.js";
import { contentTypeOf, hasDimensions, imageDimensions } from "./media.js";
import type { SummaryNode } from "./summary.js";
import { firstHeading, parseFrontMatter, slugify } from "./text.js";
import {
  type ContentConfig,
  type DocumentPage,
  type RepoFile,
  type RepoPage,
  type RepoReusableContent,
  type RepositoryContent,
  RepositoryFormatError,
  type RepositoryWarning,
} from "./types.js";

export interface ReadOptions {
  /** Directory of the project (where .gitbook.yaml is) inside the repository: `repoProjectDirectory`. */
  projectDirectory?: string;
  /** Limits on what is imported (default: DEFAULT_READ_LIMITS). */
  limits?: Partial<ReadLimits>;
  /**
   * Reads the first bytes of every image the content uses to find its dimensions (default true).
   * An import that reads each file whole anyway measures them then instead (`measureImage`).
   */
  measureImages?: boolean;
}

/**
 * What an import may take. Only what it imports counts: the pages and includes it reads and the
 * files they refer to; a file of the tree no page uses is neither read nor counted.
 */
export interface ReadLimits {
  /** Largest file a page refers to (else the import fails naming it). */
  maxFileBytes: number;
  /** Sum of the pages, includes and files imported. */
  maxRepoBytes: number;
  /** Number of pages, includes and files imported. */
  maxFiles: number;
  /** Largest Markdown page or include: a larger one is left out of the import, with a warning. */
  maxPageBytes: number;
}

export const DEFAULT_READ_LIMITS: ReadLimits = {
  maxFileBytes: DEFAULT_GIT_LIMITS.maxFileBytes,
  maxRepoBytes: DEFAULT_GIT_LIMITS.maxRepoBytes,
  maxFiles: DEFAULT_GIT_LIMITS.maxFiles,
  maxPageBytes: 2 * 1024 * 1024,
};

export const ASSETS_DIR = ".gitbook/assets";
export const INCLUDES_DIR = ".gitbook/includes";
export const VARS_FILE = ".gitbook/vars.yaml";
export const CONFIG_FILE = ".gitbook.yaml";
export const DEFAULT_README = "README.md";
export const DEFAULT_SUMMARY = "SUMMARY.md";

/** Markdown characters scanned for references per worker task (a larger page goes alone). */
const SCAN_BATCH_CHARS = 1024 * 1024;

/** Bytes read from an image to find its dimensions (enough for PNG/GIF/WebP/SVG and most JPEGs). */
const IMAGE_HEAD_BYTES = 256 * 1024;
/** JPEGs whose size marker is further in (large EXIF blocks) are read whole up to this size. */
const IMAGE_FULL_READ_MAX = 32 * 1024 * 1024;

const join = (dir: string, path: string) => (dir ? (path ? `${dir}/${path}` : dir) : path);

/** Normalizes a user-given directory ("./docs/", "/docs", "docs/") to a repository path ("docs"). */
function normalizeDirectory(value: string, base: string): string | undefined {
  return resolveRelative(base, value.replace(/^\/+/, ""));
}

/** A long path for a message: its start and its end. */
function shortPath(path: string): string {
  return path.length <= 160 ? path : `${path.slice(0, 80)}…${path.slice(-70)}`;
}

function stem(path: string): string {
  return basename(path).replace(/\.md$/i, "");
}

const isReadmeName = (name: string) => /^readme\.md$/i.test(name);
const isMarkdown = (path: string) => /\.md$/i.test(path);
/** Hidden folders (.github, .gitbook, ...) and node_modules never hold pages. */
const isHiddenPath = (rel: string) => rel.split("/").some((s) => s.startsWith(".") || s === "node_modules");

export async function readRepository(
  entries: readonly TreeEntry[],
  reader: BlobReader,
  options: ReadOptions = {},
): Promise<RepositoryContent> {
  const warnings: RepositoryWarning[] = [];
  const limits: ReadLimits = { ...DEFAULT_READ_LIMITS, ...options.limits };

  // Project directory ----------------------------------------------------------------------------
  const projectDirectory = normalizeDirectory(options.projectDirectory ?? "", "");
  const projectReason = projectDirectory ? unsafePathReason(projectDirectory) : undefined;
  if (projectDirectory === undefined || projectReason) {
    throw new RepositoryFormatError(
      "project_directory_invalid",
      `The project directory ${JSON.stringify(options.projectDirectory)} ${projectReason ?? "leaves the repository"}`,
    );
  }
  const tree = await VirtualTree.load(entries, reader, projectDirectory);
  if (!tree.dirs.has(projectDirectory)) {
    throw new RepositoryFormatError(
      "project_directory_not_found",
      `The project directory ${JSON.stringify(projectDirectory)} does not exist in the repository`,
    );
  }

  const readText = async (oids: string[]) => (await reader.readBlobs(oids)).map((b) => b.toString("utf8").replace(/^\uFEFF/, ""));

  // .gitbook.yaml --------------------------------------------------------------------------------
  const configEntry = tree.file(join(projectDirectory, CONFIG_FILE));
  let rawConfig: Record<string, unknown> = {};
  if (configEntry) {
    const [text] = await readText([configEntry.oid]);
    let parsed: unknown;
    try {
      parsed = parseYaml(text as string);
    } catch (error) {
      throw new RepositoryFormatError("config_invalid", `${CONFIG_FILE} is not valid YAML: ${(error as Error).message.split("\n")[0]}`);
    }
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== "object" || Array.isArray(parsed)) {
        throw new RepositoryFormatError("config_invalid", `${CONFIG_FILE} must be a mapping (root, structure, redirects)`);
      }
      rawConfig = parsed as Record<string, unknown>;
    }
  }
  const stringSetting = (value: unknown, name: string, fallback: string): string => {
    if (value === undefined || value === null) return fallback;
    if (typeof value !== "string" || value.trim() === "") {
      throw new RepositoryFormatError("config_invalid", `${CONFIG_FILE}: ${name} must be a non-empty string`);
    }
    return value.trim();
  };
  const structure = rawConfig.structure ?? {};
  if (typeof structure !== "object" || Array.isArray(structure)) {
    throw new RepositoryFormatError("config_invalid", `${CONFIG_FILE}: structure must be a mapping (readme, summary)`);
  }
  const rootSetting = stringSetting(rawConfig.root, "root", "./");
  const root = normalizeDirectory(rootSetting, projectDirectory);
  if (root === undefined || !isWithin(root, projectDirectory)) {
    throw new RepositoryFormatError(
      "root_invalid",
      `${CONFIG_FILE}: root ${JSON.stringify(rootSetting)} leaves the ${projectDirectory ? "project directory" : "repository"}`,
    );
  }
  if (root && unsafePathReason(root)) {
    throw new RepositoryFormatError("root_invalid", `${CONFIG_FILE}: root ${JSON.stringify(rootSetting)} is not a valid path`);
  }
  if (!tree.dirs.has(root)) {
    throw new RepositoryFormatError(
      "root_not_found",
      `${CONFIG_FILE}: root ${JSON.stringify(rootSetting)} does not exist in the repository`,
    );
  }
  // Every symlink in the content must stay in it (a link to ../../etc/passwd fails the import).
  tree.checkSymlinks(root);

  /** A root-relative path from a setting or link, or undefined when it leaves the root. */
  const rootRelative = (value: string, baseRepoDir = root): string | undefined => {
    const repoPath = resolveRelative(baseRepoDir, value);
    if (repoPath === undefined || !isWithin(repoPath, root)) return undefined;
    return root ? repoPath.slice(root.length + 1) : repoPath;
  };
  const structureSetting = (name: "readme" | "summary", fallback: string) => {
    const value = stringSetting((structure as Record<string, unknown>)[name], `structure.${name}`, fallback);
    const rel = rootRelative(value);
    if (!rel || unsafePathReason(rel)) {
      throw new RepositoryFormatError(
        "config_invalid",
        `${CONFIG_FILE}: structure.${name} ${JSON.stringify(value)} is not a path inside the root`,
      );
    }
    return rel;
  };
  const config: ContentConfig = {
    root: projectDirectory ? root.slice(projectDirectory.length).replace(/^\//, "") : root,
    readme: structureSetting("readme", DEFAULT_README),
    summary: structureSetting("summary", DEFAULT_SUMMARY),
  };

  /** Finds a root-relative file; for README/SUMMARY also under another letter case. */
  const lookup = (rel: string, anyCase = false): { rel: string; entry: TreeEntry } | undefined => {
    const entry = tree.file(join(root, rel), root);
    if (entry) return { rel, entry };
    if (!anyCase) return undefined;
    const dir = dirname(rel);
    const wanted = basename(rel).toLowerCase();
    for (const path of tree.files.keys()) {
      const candidate = root ? path.slice(root.length + 1) : path;
      if (isWithin(path, root) && dirname(candidate) === dir && basename(candidate).toLowerCase() === wanted) {
        return { rel: candidate, entry: tree.files.get(path) as TreeEntry };
      }
    }
    return undefined;
  };

  // Markdown files under the root that could be pages.
  const markdownFiles: string[] = [];
  for (const path of tree.files.keys()) {
    if (!isWithin(path, root) || !isMarkdown(path)) continue;
    const rel = root ? path.slice(root.length + 1) : path;
    if (!isHiddenPath(rel)) markdownFiles.push(rel);
  }

  const readme = lookup(config.readme, config.readme === DEFAULT_README);
  const summary = lookup(config.summary, config.summary === DEFAULT_SUMMARY);
  const documents: DocumentPage[] = [];
  const documentEntries = new Map<DocumentPage, TreeEntry>();
  const newDocument = (rel: string, entry: TreeEntry | undefined, title: string, label?: string): DocumentPage => {
    const page: DocumentPage = {
      kind: "document",
      path: rel,
      oid: entry?.oid ?? null,
      slug: "",
      title,
      ...(label ? { label } : {}),
      source: "",
      children: [],
    };
    documents.push(page);
    if (entry) documentEntries.set(page, entry);
    return page;
  };

  let pages: RepoPage[];
  if (summary) {
    const [text] = await readText([summary.entry.oid]);
    // In a worker thread: a large table of contents takes hundreds of milliseconds to parse.
    const parsed = await runInWorker("parseSummary", { text: text as string, path: summary.rel, maxDepth: MAX_PAGE_DEPTH });
    if (parsed.tooDeep) {
      throw new RepositoryFormatError(
        "page_tree_too_deep",
        `${summary.rel} line ${parsed.tooDeep.line} nests pages more than ${MAX_PAGE_DEPTH} levels deep, the most Quire keeps; list them less deep`,
      );
    }
    warnings.push(...parsed.warnings);
    const listed = new Set<string>();
    const summaryDir = dirname(join(root, summary.rel));
    /**
     * A SUMMARY.md entry outside the root (`../examples/x/README.md` from `docs/`) is a page, as
     * GitBook publishes it, when it names a Markdown file of the project directory: its path climbs
     * out of the root (`../examples/x/README.md`), and an export writes it back where it is.
     */
    const outsidePage = (target: string, base: string): { rel: string; entry: TreeEntry } | undefined => {
      const repoPath = resolveRelative(base, target);
      if (repoPath === undefined || !isWithin(repoPath, projectDirectory) || unsafePathReason(repoPath) || !isMarkdown(repoPath)) {
        return undefined;
      }
      try {
        const entry = tree.file(repoPath, projectDirectory);
        return entry ? { rel: rootRelativePath(root, repoPath), entry } : undefined;
      } catch {
        return undefined;
      }
    };
    const convert = (nodes: SummaryNode[]): RepoPage[] =>
      nodes.flatMap((node): RepoPage[] => {
        if (node.kind === "link") return [{ kind: "link", title: node.title, href: node.href }];
        if (node.kind === "empty") {
          const children = convert(node.children);
          return [
            { kind: "document", path: "", oid: null, slug: slugify(node.title), title: node.title, source: "", children, linkless: true },
          ];
        }
        if (node.kind === "group") {
          return [{ kind: "group", title: node.title, slug: node.slug ?? slugify(node.title), children: convert(node.children) }];
        }
        let rel = rootRelative(node.target, summaryDir);
        const where = `${summary.rel} line ${node.line}`;
        let outside: { rel: string; entry: TreeEntry } | undefined;
        if (rel === undefined || unsafePathReason(rel)) {
          outside = outsidePage(node.target, summaryDir);
          if (!outside) {
            warnings.push({
              code: "reference_outside_root",
              message: `${where}: "${node.title}" points to ${JSON.stringify(node.target)}, outside the content root and not a Markdown file of the ${projectDirectory ? "project directory" : "repository"}; ignored`,
            });
            return convert(node.children);
          }
          rel = outside.rel;
        }
        if (!isMarkdown(rel)) {
          warnings.push({
            code: "summary_item_ignored",
            message: `${where}: "${node.title}" points to ${JSON.stringify(rel)}, not a Markdown file; ignored`,
          });
          return convert(node.children);
        }
        if (listed.has(rel)) {
          warnings.push({
            code: "duplicate_page",
            message: `${where}: ${JSON.stringify(rel)} is listed more than once; only its first entry is a page`,
            paths: [rel],
          });
          return convert(node.children);
        }
        listed.add(rel);
        const found = outside ?? lookup(rel);
        if (!found) {
          warnings.push({
            code: "missing_page",
            message: `${where}: ${JSON.stringify(rel)} does not exist; the page is empty`,
            paths: [rel],
          });
        }
        const page = newDocument(rel, found?.entry, node.title, node.label);
        page.children = convert(node.children);
        return [page];
      });
    pages = convert(parsed.nodes);
    if (readme && !listed.has(readme.rel)) {
      warnings.push({
        code: "readme_not_listed",
        message: `${readme.rel} is not listed in ${summary.rel}; it is added as the first page`,
        paths: [readme.rel],
      });
      listed.add(readme.rel);
      pages.unshift(newDocument(readme.rel, readme.entry, ""));
    }
    const unlisted = markdownFiles.filter((rel) => !listed.has(rel) && rel !== summary.rel).sort();
    if (unlisted.length > 0) {
      warnings.push({
        code: "unlisted_pages",
        message: `${unlisted.length} Markdown file(s) are not listed in ${summary.rel} and were ignored: ${unlisted.slice(0, 20).join(", ")}${unlisted.length > 20 ? ", ..." : ""}`,
        paths: unlisted,
      });
    }
  } else {
    pages = inferPages(markdownFiles, readme?.rel, config.summary, (rel) => lookup(rel)?.entry, newDocument, warnings);
  }
  // SUMMARY's groups add a level above its lists.
  const depth = pageTreeDepth(pages);
  if (depth > MAX_PAGE_DEPTH) {
    throw new RepositoryFormatError(
      "page_tree_too_deep",
      `The page tree ${summary ? `of ${summary.rel}` : "of the folders"} is ${depth} levels deep, more than the ${MAX_PAGE_DEPTH} levels Quire keeps; nest the pages less deep`,
    );
  }
  if (!readme) {
    warnings.push({
      code: "missing_readme",
      message: `${config.readme} does not exist at the content root; the first listed page is the home page`,
    });
  }

  // Pages and includes over the per-page limit are left out (their children move up a level): an
  // empty page in their place would be written back over the file by the next export.
  const tooLarge = (rel: string, entry: TreeEntry | undefined | null) => {
    if (!entry || entry.size <= limits.maxPageBytes) return false;
    warnings.push({
      code: "page_too_large",
      message: `${rel} is ${entry.size} bytes of Markdown, over the limit of ${limits.maxPageBytes} bytes per page (QUIRE_IMPORT_MAX_PAGE_BYTES); it was not imported`,
      paths: [rel],
    });
    return true;
  };
  const oversized = new Set(documents.filter((d) => d.oid !== null && tooLarge(d.path, documentEntries.get(d))));
  if (oversized.size > 0) {
    const prune = (list: RepoPage[]): RepoPage[] =>
      list.flatMap((page): RepoPage[] => {
        if (page.kind === "link") return [page];
        page.children = prune(page.children);
        return page.kind === "document" && oversized.has(page) ? page.children : [page];
      });
    pages = prune(pages);
    documents.splice(0, documents.length, ...documents.filter((d) => !oversized.has(d)));
  }

  // Page sources, titles and slugs --------------------------------------------------------------
  const includeEntries = [...tree.files.entries()].filter(
    ([path, entry]) =>
      isWithin(path, join(root, INCLUDES_DIR)) && isMarkdown(path) && !tooLarge(root ? path.slice(root.length + 1) : path, entry),
  );
  const withBlob = documents.filter((d) => d.oid !== null);
  // Read one by one through a reused buffer (forEachBlob): only the decoded text is kept.
  const sources: string[] = [];
  await reader.forEachBlob(
    [
      ...withBlob.map((d) => ({ oid: d.oid as string, size: documentEntries.get(d)?.size ?? 0 })),
      ...includeEntries.map(([, e]) => ({ oid: e.oid, size: e.size })),
    ],
    async (_oid, bytes) => {
      sources.push(bytes.toString("utf8").replace(/^\uFEFF/, ""));
    },
  );
  withBlob.forEach((doc, i) => {
    doc.source = sources[i] as string;
  });
  const frontMatterTitle = (source: string, rel: string): string | undefined => {
    try {
      const title = parseFrontMatter(source)?.title;
      return typeof title === "string" && title.trim() ? title.trim() : undefined;
    } catch {
      warnings.push({ code: "invalid_front_matter", message: `${rel}: the front matter is not valid YAML`, paths: [rel] });
      return undefined;
    }
  };
  for (const doc of documents) {
    const name = isReadmeName(basename(doc.path)) && dirname(doc.path) ? basename(dirname(doc.path)) : stem(doc.path);
    if (!doc.title) doc.title = firstHeading(doc.source) ?? frontMatterTitle(doc.source, doc.path) ?? name;
    doc.slug = isReadmeName(basename(doc.path)) && !dirname(doc.path) ? slugify(doc.title) : slugify(name);
  }
  const reusableContents: RepoReusableContent[] = includeEntries.map(([path, entry], i) => {
    const source = sources[withBlob.length + i] as string;
    const rel = root ? path.slice(root.length + 1) : path;
    return {
      path: rel,
      oid: entry.oid,
      title: frontMatterTitle(source, rel) ?? firstHeading(source) ?? stem(rel),
      source,
    };
  });

  // Files: the non-Markdown files the pages and includes refer to (assets or any other file) -----
  const files = new Map<string, RepoFile>();
  const addFile = (rel: string, entry: TreeEntry) => {
    if (!files.has(rel)) files.set(rel, { path: rel, oid: entry.oid, size: entry.size, contentType: contentTypeOf(rel) });
  };
  // Files that exist but are not imported: outside the root, or Markdown that is not a page.
  const external = new Set<string>();
  const pagePaths = new Set(documents.map((d) => d.path));
  const includePaths = new Set(includeEntries.map(([path]) => path));
  const existsInProject = (repoPath: string) => {
    try {
      return isWithin(repoPath, projectDirectory) && tree.file(repoPath, projectDirectory) !== undefined;
    } catch {
      return false;
    }
  };
  const scan = (rel: string, references: string[]) => {
    const fromDir = dirname(repoPathFromRoot(root, rel) ?? root);
    for (const reference of references) {
      // As a URL resolves (and as resolve.ts does): `..` stops at the repository's top; an
      // absolute path is from the content root.
      const repoPath = reference.startsWith("/") ? resolveClamped(root, reference.slice(1)) : resolveClamped(fromDir, reference);
      if (!repoPath || unsafePathReason(repoPath)) continue;
      const target = rootRelativePath(root, repoPath);
      if (!isWithin(repoPath, root)) {
        if (!pagePaths.has(target) && existsInProject(repoPath)) external.add(repoPath);
        continue;
      }
      if (isMarkdown(target)) {
        if (!pagePaths.has(target) && !includePaths.has(repoPath) && existsInProject(repoPath)) external.add(repoPath);
        continue;
      }
      try {
        const entry = tree.file(repoPath, root);
        if (entry) addFile(target, entry);
      } catch (error) {
        if (!(error instanceof GitError)) throw error;
        warnings.push({ code: "reference_unresolvable", message: `${rel}: ${error.message}`, paths: [rel] });
      }
    }
  };
  // Finding the references means reading every page whole: done in a worker thread, by batches.
  const scanned = [...documents.map((d) => ({ path: d.path, source: d.source })), ...reusableContents];
  for (let start = 0; start < scanned.length; ) {
    let end = start;
    let chars = 0;
    while (end < scanned.length && (end === start || chars + (scanned[end] as { source: string }).source.length <= SCAN_BATCH_CHARS)) {
      chars += (scanned[end] as { source: string }).source.length;
      end++;
    }
    const batch = scanned.slice(start, end);
    const found = await runInWorker("pageReferences", { sources: batch.map((page) => page.source) });
    batch.forEach((page, i) => {
      scan(page.path, found[i] ?? []);
    });
    start = end;
  }
  // Assets no page uses are not imported (a repository may hold thousands): counted, not read.
  const unused = [...tree.files.keys()].filter(
    (path) => isWithin(path, join(root, ASSETS_DIR)) && !files.has(root ? path.slice(root.length + 1) : path),
  );
  if (unused.length > 0) {
    const rels = unused.map((path) => (root ? path.slice(root.length + 1) : path)).sort();
    warnings.push({
      code: "unused_files",
      message: `${unused.length} file(s) under ${ASSETS_DIR} are not used by any page and were not imported: ${rels.slice(0, 20).join(", ")}${rels.length > 20 ? ", ..." : ""}`,
      paths: rels,
    });
  }
  checkLimits(limits, documents, reusableContents, includeEntries, [...files.values()]);
  if (options.measureImages !== false) await measureImages([...files.values()], reader);

  return {
    projectDirectory,
    root,
    config,
    hasConfigFile: configEntry !== undefined,
    hasSummary: summary !== undefined,
    pages,
    files: [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    externalFiles: [...external].sort(),
    reusableContents,
    variables: await readVariables(lookup(VARS_FILE)?.entry, readText, warnings),
    redirects: readRedirects(rawConfig.redirects, rootRelative, warnings),
    warnings,
  };
}

/**
 * The page tree of a repository without SUMMARY.md: the root README first, then each folder's
 * Markdown files and subfolders sorted by name; a folder's README.md is the folder's page.
 */
function inferPages(
  markdownFiles: string[],
  readmeRel: string | undefined,
  summaryRel: string,
  entryFor: (rel: string) => TreeEntry | undefined,
  newDocument: (rel: string, entry: undefined | TreeEntry, title: string) => DocumentPage,
  warnings: RepositoryWarning[],
): RepoPage[] {
  const byDir = new Map<string, { files: string[]; dirs: Set<string> }>();
  const dirOf = (dir: string) => {
    let node = byDir.get(dir);
    if (!node) byDir.set(dir, (node = { files: [], dirs: new Set() }));
    return node;
  };
  for (const rel of markdownFiles) {
    // Any SUMMARY.md is a table of contents (of this or another project), not a page.
    if (rel === readmeRel || rel === summaryRel || /^summary\.md$/i.test(basename(rel))) continue;
    dirOf(dirname(rel)).files.push(rel);
    for (let dir = dirname(rel); dir; dir = dirname(dir)) dirOf(dirname(dir)).dirs.add(dir);
  }
  const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });
  // `level`: the level of the pages of `dir` (a folder's page is one level above its files).
  const build = (dir: string, level: number): RepoPage[] => {
    const node = byDir.get(dir);
    if (!node) return [];
    if (level > MAX_PAGE_DEPTH) {
      throw new RepositoryFormatError(
        "page_tree_too_deep",
        `The folder ${JSON.stringify(shortPath(dir))} is ${dir.split("/").length} folders deep: its pages would be ${level} levels deep, more than the ${MAX_PAGE_DEPTH} levels Quire keeps (each folder is a page over its files); move it up, or list the pages in a SUMMARY.md`,
      );
    }
    const items = [
      ...node.files
        .filter((f) => !(dir && isReadmeName(basename(f))))
        .map((f) => ({ name: stem(f), file: f as string | undefined, dir: undefined as string | undefined })),
      ...[...node.dirs].map((d) => ({ name: basename(d), file: undefined, dir: d })),
    ].sort((a, b) => collator.compare(a.name, b.name) || (a.file ? -1 : 1));
    return items.map((item) => {
      if (item.file) return newDocument(item.file, entryFor(item.file), "");
      const sub = item.dir as string;
      const readme = byDir.get(sub)?.files.find((f) => isReadmeName(basename(f)));
      if (!readme) {
        warnings.push({
          code: "folder_without_readme",
          message: `The folder ${JSON.stringify(sub)} has no README.md; its page has no content, only the pages under it`,
          paths: [sub],
        });
        // A page without a file, as a SUMMARY.md item without a link: an export writes no README.md
        // into the folder (the repository did not have one), only the item over its pages.
        const title = basename(sub);
        return {
          kind: "document",
          path: "",
          oid: null,
          slug: slugify(title),
          title,
          source: "",
          children: build(sub, level + 1),
          linkless: true,
        };
      }
      const page = newDocument(readme, entryFor(readme), "");
      page.children = build(sub, level + 1);
      return page;
    });
  };
  return [...(readmeRel ? [newDocument(readmeRel, entryFor(readmeRel), "")] : []), ...build("", 1)];
}

async function readVariables(
  entry: TreeEntry | undefined,
  readText: (oids: string[]) => Promise<string[]>,
  warnings: RepositoryWarning[],
): Promise<Record<string, string>> {
  if (!entry) return {};
  const [text] = await readText([entry.oid]);
  let parsed: unknown;
  try {
    parsed = parseYaml(text as string);
  } catch {
    warnings.push({ code: "invalid_vars", message: `${VARS_FILE} is not valid YAML; no variables were imported` });
    return {};
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    warnings.push({ code: "invalid_vars", message: `${VARS_FILE} must map variable names to values` });
    return {};
  }
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (value === null || typeof value === "object") {
      warnings.push({
        code: "invalid_vars",
        message: `${VARS_FILE}: the variable ${JSON.stringify(name)} is not a text, number or boolean; ignored`,
      });
      continue;
    }
    variables[name] = String(value);
  }
  return variables;
}

function readRedirects(
  raw: unknown,
  rootRelative: (value: string) => string | undefined,
  warnings: RepositoryWarning[],
): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    warnings.push({ code: "invalid_redirect", message: `${CONFIG_FILE}: redirects must map old paths to files; ignored` });
    return {};
  }
  const redirects: Record<string, string> = {};
  for (const [from, to] of Object.entries(raw as Record<string, unknown>)) {
    const target = typeof to === "string" ? rootRelative(to.trim()) : undefined;
    const source = from.trim().replace(/^\/+/, "");
    if (!source || target === undefined || !target || unsafePathReason(target)) {
      warnings.push({
        code: "invalid_redirect",
        message: `${CONFIG_FILE}: the redirect ${JSON.stringify(from)} -> ${JSON.stringify(to)} is not a path inside the root; ignored`,
      });
      continue;
    }
    redirects[source] = target;
  }
  return redirects;
}

/** The imported pages, includes and files against the limits: GitError("limit_exceeded") naming the first one over. */
function checkLimits(
  limits: ReadLimits,
  documents: readonly DocumentPage[],
  includes: readonly RepoReusableContent[],
  includeEntries: readonly [string, TreeEntry][],
  files: readonly RepoFile[],
): void {
  const count = documents.filter((d) => d.oid !== null).length + includes.length + files.length;
  if (count > limits.maxFiles) {
    throw new GitError("limit_exceeded", `The import has ${count} pages and files, over the limit of ${limits.maxFiles} (maxFiles)`);
  }
  let total = 0;
  for (const doc of documents) total += Buffer.byteLength(doc.source);
  for (const [, entry] of includeEntries) total += entry.size;
  for (const file of files) {
    if (file.size > limits.maxFileBytes) {
      throw new GitError(
        "limit_exceeded",
        `The file ${JSON.stringify(file.path)} is ${file.size} bytes, over the limit of ${limits.maxFileBytes} bytes (maxFileBytes)`,
      );
    }
    total += file.size;
  }
  if (total > limits.maxRepoBytes) {
    throw new GitError(
      "limit_exceeded",
      `The pages and files to import are ${total} bytes, over the limit of ${limits.maxRepoBytes} bytes in total (maxRepoBytes)`,
    );
  }
}

/** Images whose dimensions are read from their first bytes at once, at most this many bytes in flight. */
const MEASURE_BATCH_BYTES = 16 * 1024 * 1024;

/** Adds `dimensions` to the images among `files`, reading only the first bytes of each, a batch at a time. */
async function measureImages(files: RepoFile[], reader: BlobReader): Promise<void> {
  const images = files.filter((f) => hasDimensions(f.contentType));
  const retry: RepoFile[] = [];
  const perBatch = Math.max(1, Math.floor(MEASURE_BATCH_BYTES / IMAGE_HEAD_BYTES));
  for (let start = 0; start < images.length; start += perBatch) {
    const batch = images.slice(start, start + perBatch);
    const heads = await reader.readBlobs(
      batch.map((f) => f.oid),
      { maxBytes: IMAGE_HEAD_BYTES },
    );
    batch.forEach((file, i) => {
      const dimensions = imageDimensions(heads[i] as Buffer);
      if (dimensions) file.dimensions = dimensions;
      else if (file.size > IMAGE_HEAD_BYTES && file.size <= IMAGE_FULL_READ_MAX) retry.push(file);
    });
  }
  // One at a time: these can be tens of megabytes each.
  for (const file of retry) {
    const [whole] = await reader.readBlobs([file.oid]);
    const dimensions = imageDimensions(whole as Buffer);
    if (dimensions) file.dimensions = dimensions;
  }
}
