/**
 * How an import resolves the link targets written in a page: plain data (paths to ids), so a page
 * can be converted in a worker thread with the same answers as on the main thread.
 */
import { dirname, repoPathFromRoot, resolveClamped, rootRelativePath } from "../../git/paths.js";
import type { ReferenceKind, ResolvedReference } from "../markdown/index.js";

/**
 * The ids of the new revision by root-relative Git path (a page listed from outside the root has a
 * path that climbs out of it: `../examples/x.md`).
 */
export interface ResolveTable {
  pages: Map<string, string>;
  files: Map<string, string>;
  includes: Map<string, string>;
  /** Root-relative path of the first page (`structure.readme`). */
  readme: string;
  /** Repository path of the content root ("" when it is the repository's top). */
  root?: string;
  /**
   * Files of the repository that are not imported (outside the root, or Markdown that SUMMARY.md does
   * not list), by root-relative path: the web address a link to them becomes.
   */
  external?: Map<string, string>;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/**
 * The web address of a repository file: `repoTreeURL` (GitBook's "prefix for external file
 * references", e.g. `https://github.com/o/r/blob/main`) and the file's path from the repository's
 * top, each segment percent-encoded.
 */
export function repositoryWebUrl(repoTreeURL: string, repoPath: string): string {
  return `${repoTreeURL.replace(/\/+$/, "")}/${repoPath.split("/").map(encodeURIComponent).join("/")}`;
}

/** `external` of a ResolveTable: the files' web addresses by root-relative path. */
export function externalLinks(root: string, repoPaths: readonly string[], repoTreeURL: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!repoTreeURL) return out;
  for (const repoPath of repoPaths) out.set(rootRelativePath(root, repoPath), repositoryWebUrl(repoTreeURL, repoPath));
  return out;
}

function decodeTarget(target: string): string {
  const bare = target.replace(/[?#].*$/, "");
  try {
    return decodeURIComponent(bare);
  } catch {
    return bare;
  }
}

/** Resolves a link target written in the file at `fromPath` (root-relative). */
export function resolverFor(table: ResolveTable, fromPath: string) {
  return (target: string, kind: ReferenceKind): ResolvedReference | undefined => {
    if (EXTERNAL.test(target) || target.startsWith("//")) return undefined;
    const decoded = decodeTarget(target);
    if (!decoded) return undefined;
    // As a URL resolves: in repository paths, a `..` at the repository's top stays there, so a link
    // that leaves the root and comes back in (`../../docs/x.md`), or climbs one folder too many,
    // names the file it does for GitBook. An absolute target is from the content root.
    const root = table.root ?? "";
    const fromDir = repoPathFromRoot(root, dirname(fromPath));
    if (fromDir === undefined) return undefined;
    const repoPath = decoded.startsWith("/") ? resolveClamped(root, decoded.slice(1)) : resolveClamped(fromDir, decoded);
    const path = rootRelativePath(root, repoPath);
    if (kind === "include") {
      const include = table.includes.get(path);
      return include ? { kind: "reusable-content", reusableContent: include } : undefined;
    }
    const page =
      table.pages.get(path) ??
      table.pages.get(`${path}/README.md`) ??
      table.pages.get(`${path}.md`) ??
      (path === "" ? table.pages.get(table.readme) : undefined);
    if (page) return { kind: "page", page };
    const file = table.files.get(path);
    if (file) return { kind: "file", file };
    const url = table.external?.get(path);
    if (url) return { kind: "url", url };
    return undefined;
  };
}
