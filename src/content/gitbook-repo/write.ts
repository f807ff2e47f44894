/**
 * writeRepository: pages, files, reusable contents and variables -> the files of a GitBook-format
 * repository (README.md, SUMMARY.md, one .md per page, .gitbook/assets, .gitbook/includes,
 * .gitbook/vars.yaml, .gitbook.yaml). The Markdown of each page comes from the caller; this module
 * only decides where it goes. Pages keep the path they were imported from; new pages get one from
 * their slug that collides with nothing in the tree or in the repository (`previousPaths`).
 */
import { stringify as stringifyYaml } from "yaml";
import { GitError } from "../../git/errors.js";
import { assertSafePath, basename, dirname, isWithin, repoPathFromRoot, unsafeRootRelativeReason } from "../../git/paths.js";
import { ASSETS_DIR, CONFIG_FILE, DEFAULT_README, DEFAULT_SUMMARY, INCLUDES_DIR, VARS_FILE } from "./read.js";
import { formatSummary, type SummaryEntry } from "./summary.js";
import { slugify, splitFrontMatter } from "./text.js";
import type { ContentConfig, RepositoryContent } from "./types.js";

export type WritablePage =
  | {
      kind: "document";
      title: string;
      label?: string;
      /**
       * Root-relative path it was imported from; absent for a page created in Quire. Leading `../`
       * segments name a file outside the root (a SUMMARY.md entry there): it is written back there,
       * never outside the project directory.
       */
      path?: string;
      slug?: string;
      /** The page's Markdown, from the converter. */
      source: string;
      children: WritablePage[];
      /** A page without file or content: SUMMARY.md's `* Title` line, its children under it. */
      linkless?: boolean;
    }
  | { kind: "group"; title: string; slug?: string; children: WritablePage[] }
  | { kind: "link"; title: string; href: string };

export interface WritableFile {
  /** Root-relative path it was imported from; absent: `.gitbook/assets/<name>`. */
  path?: string;
  name: string;
  data: Buffer;
}

export interface WritableReusableContent {
  path?: string;
  title: string;
  slug?: string;
  source: string;
}

export interface WritableContent {
  projectDirectory?: string;
  config?: Partial<ContentConfig>;
  pages: WritablePage[];
  files?: WritableFile[];
  reusableContents?: WritableReusableContent[];
  variables?: Record<string, string>;
  redirects?: Record<string, string>;
}

export interface WriteOptions {
  /** Repository paths that exist already: new pages and files avoid them. */
  previousPaths?: Iterable<string>;
  /** Overrides content.projectDirectory. */
  projectDirectory?: string;
  /**
   * Redirects of the branch's `.gitbook.yaml` that the content does not define (old path -> file,
   * relative to the root): each stays while its target is still in the repository, written or left
   * untouched, so an export drops no redirect it knows nothing about (to an image, say).
   */
  branchRedirects?: Record<string, string>;
}

const join = (dir: string, path: string) => (dir ? (path ? `${dir}/${path}` : dir) : path);
const normalizeDir = (dir: string | undefined) => (dir ?? "").replace(/^(\.\/)+|^\/+|\/+$/g, "").replace(/^\.$/, "");

/**
 * The root-relative path of every document page: the known one, else the readme for the first
 * page, else `<dir>/<slug>.md`, or `<dir>/<slug>/README.md` for a page with children. The folder of
 * a page's children is its own folder (README) or its name without `.md`; a group's is its slug.
 */
export function planPagePaths(
  pages: WritablePage[],
  options: { readme?: string; taken?: Iterable<string> } = {},
): Map<WritablePage, string> {
  const readme = options.readme ?? DEFAULT_README;
  const planned = new Map<WritablePage, string>();
  // Case-insensitive: the same repository is checked out on macOS and Windows too.
  const used = new Set([...(options.taken ?? [])].map((p) => p.toLowerCase()));
  const walk = (list: WritablePage[], visit: (page: Extract<WritablePage, { kind: "document" }>) => void) => {
    for (const page of list) {
      if (page.kind === "document") visit(page);
      if (page.kind !== "link") walk(page.children, visit);
    }
  };
  walk(pages, (page) => {
    if (page.path && !page.linkless) {
      const reason = unsafeRootRelativeReason(page.path);
      if (reason) throw new GitError("path_refused", `Refused page path ${JSON.stringify(page.path)}: ${reason}`);
      planned.set(page, page.path);
      used.add(page.path.toLowerCase());
    }
  });
  let first: WritablePage | undefined;
  walk(pages, (page) => {
    if (!page.linkless) first ??= page;
  });
  const unique = (make: (suffix: string) => string) => {
    for (let n = 1; ; n++) {
      const candidate = make(n === 1 ? "" : `-${n}`);
      if (!used.has(candidate.toLowerCase())) {
        used.add(candidate.toLowerCase());
        return candidate;
      }
    }
  };
  const childDir = (path: string) => (/^readme\.md$/i.test(basename(path)) ? dirname(path) : path.replace(/\.md$/i, ""));
  const assign = (list: WritablePage[], dir: string) => {
    for (const page of list) {
      if (page.kind === "link") continue;
      if (page.kind === "group" || page.linkless) {
        assign(page.children, join(dir, slugify(page.slug ?? page.title)));
        continue;
      }
      let path = planned.get(page);
      if (!path) {
        const slug = slugify(page.slug ?? page.title);
        if (page === first && !used.has(readme.toLowerCase())) path = unique(() => readme);
        else if (page.children.length > 0) path = unique((s) => join(dir, `${slug}${s}/README.md`));
        else path = unique((s) => join(dir, `${slug}${s}.md`));
        planned.set(page, path);
      }
      assign(page.children, childDir(path));
    }
  };
  assign(pages, "");
  return planned;
}

/** `name.ext`, `name (1).ext`, `name (2).ext`, ... as GitBook names uploads that share a name. */
function uniqueAssetPath(name: string, used: ReadonlySet<string>): string {
  const dot = name.lastIndexOf(".");
  const base = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : "";
  for (let n = 0; ; n++) {
    const candidate = `${ASSETS_DIR}/${n === 0 ? name : `${base} (${n})${ext}`}`;
    if (!used.has(candidate.toLowerCase())) return candidate;
  }
}

/** The files of the repository (repository path -> content) for `content`. */
export function writeRepository(content: WritableContent, options: WriteOptions = {}): Map<string, Buffer> {
  const projectDirectory = normalizeDir(options.projectDirectory ?? content.projectDirectory);
  const config: ContentConfig = {
    root: normalizeDir(content.config?.root),
    readme: content.config?.readme ?? DEFAULT_README,
    summary: content.config?.summary ?? DEFAULT_SUMMARY,
  };
  const base = join(projectDirectory, config.root);
  for (const dir of [projectDirectory, base]) if (dir) assertSafePath(dir, "directory");
  const toRel = (repoPath: string) => (base && repoPath.startsWith(`${base}/`) ? repoPath.slice(base.length + 1) : undefined);
  const taken = [...(options.previousPaths ?? [])].flatMap((p) => toRel(p) ?? (base ? [] : [p]));
  taken.push(config.summary);

  const out = new Map<string, Buffer>();
  // Root-relative paths in use, lowercased (case-insensitive file systems check the repository out too).
  const used = new Set(taken.map((p) => p.toLowerCase()));
  const put = (rel: string, data: Buffer | string) => {
    if (rel.startsWith("../")) {
      // A page listed from outside the root goes back to its file, inside the project directory.
      const repoPath = repoPathFromRoot(base, rel);
      const reason = unsafeRootRelativeReason(rel);
      if (reason || repoPath === undefined || !isWithin(repoPath, projectDirectory) || repoPath === projectDirectory) {
        throw new GitError(
          "path_refused",
          `Refused page path ${JSON.stringify(rel)}: ${reason ?? `it leaves the ${projectDirectory ? "project directory" : "repository"}`}`,
        );
      }
      assertSafePath(repoPath);
      out.set(repoPath, Buffer.isBuffer(data) ? data : Buffer.from(data, "utf8"));
      return;
    }
    assertSafePath(rel);
    used.add(rel.toLowerCase());
    out.set(join(base, rel), Buffer.isBuffer(data) ? data : Buffer.from(data, "utf8"));
  };

  const paths = planPagePaths(content.pages, { readme: config.readme, taken });
  const toEntries = (list: WritablePage[]): SummaryEntry[] =>
    list.map((page): SummaryEntry => {
      if (page.kind === "link") return { kind: "link", title: page.title, href: page.href };
      if (page.kind === "group") {
        return { kind: "group", title: page.title, slug: page.slug ?? slugify(page.title), children: toEntries(page.children) };
      }
      if (page.linkless) return { kind: "page", title: page.title, children: toEntries(page.children) };
      const path = paths.get(page) as string;
      put(path, page.source);
      return {
        kind: "page",
        title: page.title,
        ...(page.label ? { label: page.label } : {}),
        path,
        children: toEntries(page.children),
      };
    });
  const entries = toEntries(content.pages);
  put(config.summary, formatSummary(entries, dirname(config.summary)));

  for (const file of content.files ?? []) {
    put(file.path ?? uniqueAssetPath(file.name.replace(/[/\\]/g, "_"), used), file.data);
  }

  for (const include of content.reusableContents ?? []) {
    let rel = include.path;
    if (!rel) {
      const slug = slugify(include.slug ?? include.title);
      rel = `${INCLUDES_DIR}/${slug}.md`;
      for (let n = 2; used.has(rel.toLowerCase()); n++) rel = `${INCLUDES_DIR}/${slug}-${n}.md`;
    }
    // The title of a reusable block lives in its front matter.
    const hasFrontMatter = splitFrontMatter(include.source).yaml !== undefined;
    put(rel, hasFrontMatter ? include.source : `---\n${stringifyYaml({ title: include.title }).trimEnd()}\n---\n\n${include.source}`);
  }

  if (content.variables && Object.keys(content.variables).length > 0) put(VARS_FILE, stringifyYaml(content.variables));

  const redirects = { ...(content.redirects ?? {}) };
  for (const [from, target] of Object.entries(options.branchRedirects ?? {})) {
    if (!(from in redirects) && used.has(target.toLowerCase())) redirects[from] = target;
  }
  const nonDefault = config.root !== "" || config.readme !== DEFAULT_README || config.summary !== DEFAULT_SUMMARY;
  if (nonDefault || Object.keys(redirects).length > 0) {
    const yaml: Record<string, unknown> = { root: config.root ? `./${config.root}/` : "./" };
    yaml.structure = { readme: config.readme, summary: config.summary };
    if (Object.keys(redirects).length > 0) yaml.redirects = redirects;
    const path = join(projectDirectory, CONFIG_FILE);
    assertSafePath(path);
    out.set(path, Buffer.from(stringifyYaml(yaml), "utf8"));
  }
  return out;
}

/**
 * Repository paths of everything `content` was read from (pages, SUMMARY.md, assets and referenced
 * files, includes, vars.yaml): what an export owns. Paths among these that the next export does
 * not write are its deletions; files the import ignored (code, unlisted Markdown) are never touched.
 */
export function repositoryPaths(content: RepositoryContent): string[] {
  const base = content.root;
  const paths = new Set<string>();
  const walk = (pages: RepositoryContent["pages"]) => {
    for (const page of pages) {
      if (page.kind === "document" && page.oid !== null) paths.add(repoPathFromRoot(base, page.path) ?? join(base, page.path));
      if (page.kind !== "link") walk(page.children);
    }
  };
  walk(content.pages);
  if (content.hasSummary) paths.add(join(base, content.config.summary));
  for (const file of content.files) paths.add(join(base, file.path));
  for (const include of content.reusableContents) paths.add(join(base, include.path));
  if (Object.keys(content.variables).length > 0) paths.add(join(base, VARS_FILE));
  return [...paths];
}
