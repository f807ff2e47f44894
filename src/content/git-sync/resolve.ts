/**
 * How an import resolves the link targets written in a page: plain data (paths to ids), so a page
 * can be converted in a worker thread with the same answers as on the main thread.
 */
import { dirname, resolveRelative } from "../../git/paths.js";
import type { ReferenceKind, ResolvedReference } from "../markdown/index.js";

/** The ids of the new revision by root-relative Git path. */
export interface ResolveTable {
  pages: Map<string, string>;
  files: Map<string, string>;
  includes: Map<string, string>;
  /** Root-relative path of the first page (`structure.readme`). */
  readme: string;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

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
    const path = resolveRelative(dirname(fromPath), decoded);
    if (path === undefined) return undefined;
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
    return undefined;
  };
}
