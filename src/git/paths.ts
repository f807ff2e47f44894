/**
 * Repository paths as untrusted input. A path from a tree, a SUMMARY.md link or a symlink target is
 * only ever used as a key into the virtual tree, never on the filesystem; these checks make sure it
 * also names something inside the repository (or the content root) and cannot be confused with
 * another spelling of a path.
 */
import { GitError } from "./errors.js";

/** Why a repository path is unsafe, or undefined when it is fine. */
export function unsafePathReason(path: string): string | undefined {
  if (path.length === 0) return "it is empty";
  if (path.includes("\0")) return "it contains a NUL character";
  if (path.includes("\\")) return "it contains a backslash";
  if (/[\u0001-\u001f\u007f]/.test(path)) return "it contains control characters";
  if (path.startsWith("/")) return "it is absolute";
  if (/^[A-Za-z]:/.test(path)) return "it is absolute (drive letter)";
  if (path.includes("\uFFFD")) return "it is not valid UTF-8";
  for (const segment of path.split("/")) {
    if (segment === "") return "it contains an empty segment";
    if (segment === "." || segment === "..") return `it contains a "${segment}" segment`;
    if (segment.toLowerCase() === ".git") return 'it contains a ".git" segment';
  }
  return undefined;
}

/** Throws GitError("path_refused") naming the path when it is unsafe. */
export function assertSafePath(path: string, what = "path"): void {
  const reason = unsafePathReason(path);
  if (reason) throw new GitError("path_refused", `Refused ${what} ${JSON.stringify(path)}: ${reason}`);
}

/**
 * Joins a relative reference onto a base directory and normalizes `.` and `..` segments.
 * Returns undefined when the result would leave the repository (above ""). Absolute references
 * (leading "/") are resolved from the repository root.
 */
export function resolveRelative(baseDir: string, reference: string): string | undefined {
  const parts = reference.startsWith("/") ? [] : baseDir.split("/").filter(Boolean);
  for (const segment of reference.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(segment);
  }
  return parts.join("/");
}

/**
 * Joins a relative reference onto a base directory as a URL is resolved: a `..` at the repository
 * root stays there (`../../x` from `docs` is `x`), so the result never leaves the repository.
 * Absolute references (leading "/") are resolved from the repository root.
 */
export function resolveClamped(baseDir: string, reference: string): string {
  const parts = reference.startsWith("/") ? [] : baseDir.split("/").filter(Boolean);
  for (const segment of reference.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") parts.pop();
    else parts.push(segment);
  }
  return parts.join("/");
}

/**
 * A repository path relative to the content root `root`: the path under it, or, for a path outside
 * it, one that climbs out with leading `../` segments (`../examples/x.md` from root `docs`).
 */
export function rootRelativePath(root: string, repoPath: string): string {
  if (isWithin(repoPath, root)) return root ? repoPath.slice(root.length + 1) : repoPath;
  const from = root.split("/");
  const to = repoPath.split("/").filter(Boolean);
  let common = 0;
  while (common < from.length && common < to.length && from[common] === to[common]) common++;
  return [...from.slice(common).map(() => ".."), ...to.slice(common)].join("/");
}

/**
 * The repository path of a root-relative path (one with leading `../` segments names a file outside
 * the root); undefined when it would leave the repository.
 */
export function repoPathFromRoot(root: string, rel: string): string | undefined {
  return resolveRelative(root, rel);
}

/** Why a root-relative path is unsafe: leading `../` segments allowed, the rest as unsafePathReason. */
export function unsafeRootRelativeReason(rel: string): string | undefined {
  return unsafePathReason(rel.replace(/^(\.\.\/)+/, ""));
}

export function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** True when `path` is `dir` itself or inside it ("" is the repository root). */
export function isWithin(path: string, dir: string): boolean {
  return dir === "" || path === dir || path.startsWith(`${dir}/`);
}

/**
 * Where a symlink at `linkPath` points, as a repository path. Throws GitError("path_refused")
 * naming the link when the target is absolute, contains NUL/backslash, or leaves the repository.
 */
export function symlinkTarget(linkPath: string, target: string): string {
  const refuse = (reason: string) =>
    new GitError("path_refused", `Refused symlink ${JSON.stringify(linkPath)} -> ${JSON.stringify(target)}: ${reason}`);
  if (target.length === 0) throw refuse("its target is empty");
  if (target.includes("\0") || target.includes("\\")) throw refuse("its target contains NUL or backslash");
  if (target.startsWith("/") || /^[A-Za-z]:/.test(target)) throw refuse("its target is an absolute path");
  const resolved = resolveRelative(dirname(linkPath), target);
  if (resolved === undefined) throw refuse("its target leaves the repository");
  if (resolved.split("/").some((s) => s.toLowerCase() === ".git")) throw refuse('its target is inside ".git"');
  return resolved;
}
