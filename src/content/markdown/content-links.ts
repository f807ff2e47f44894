/**
 * How links in Markdown given to the content API (a change request's content edits) resolve to the
 * pages and files of the content being edited: `/pages/<id or path>`, Git style paths
 * (`/pages/guide.md`, `/pages/guide/README.md`, `/pages/README.md` = the first page), paths relative
 * to the page, `./<ref>` for a page or file inserted by the same batch, and `/files/<id>`. The
 * content is given as plain data (ContentLinkTable), so that a large page can be converted in a
 * worker thread with the same answers as on the request thread.
 */
import type { AnyNode } from "../document/find.js";
import { normalizeInlines } from "../document/nodes.js";
import type { JSONDocument } from "../document/types.js";
import type { ReferenceKind, ResolvedReference } from "./references.js";

/** What a link can point at, seen from one page. */
export interface ContentLinkTable {
  /** Git directory of the page the Markdown is for (relative links start there). */
  directory: string;
  /** The first page's id (`/pages/README.md`, `/pages/`). */
  firstPage: string | undefined;
  /** Page ids by slug path (`guide/setup`); the first page in tree order where two share a path. */
  pagesByPath: ReadonlyMap<string, string>;
  pageIds: ReadonlySet<string>;
  fileIds: ReadonlySet<string>;
  /** Ids of the pages and files the batch inserts, by the `ref` it gave them. */
  pageRefs: ReadonlyMap<string, string>;
  fileRefs: ReadonlyMap<string, string>;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** Turns a link target written in the page into a ref; undefined when it names nothing of the content. */
export function contentLinkResolver(table: ContentLinkTable): (target: string, kind: ReferenceKind) => ResolvedReference | undefined {
  const pageAt = (path: string): string | undefined => {
    const clean = path.replace(/^\/+|\/+$/g, "");
    if (clean === "" || clean === "README.md" || clean === "README") return table.firstPage;
    const stripped = clean.replace(/\/README(\.md)?$/i, "").replace(/\.md$/i, "");
    return table.pagesByPath.get(stripped);
  };
  const pageById = (id: string) => table.pageRefs.get(id) ?? (table.pageIds.has(id) ? id : undefined);
  const fileById = (id: string) => table.fileRefs.get(id) ?? (table.fileIds.has(id) ? id : undefined);
  return (target, kind) => {
    if (EXTERNAL.test(target) || target.startsWith("//") || kind === "include") return undefined;
    const raw = decode(target.replace(/[?#].*$/, ""));
    if (!raw) return undefined;
    const page = (id: string | undefined): ResolvedReference | undefined => (id ? { kind: "page", page: id } : undefined);
    const file = (id: string | undefined): ResolvedReference | undefined => (id ? { kind: "file", file: id } : undefined);
    // `/files/<id>` or `/files/<id>/<name>` (the name is there for people; the id decides).
    if (raw.startsWith("/files/")) return file(fileById(raw.slice(7).split("/")[0] ?? ""));
    if (raw.startsWith("/pages/")) {
      const rest = raw.slice(7);
      return page(pageById(rest) ?? pageAt(rest));
    }
    if (raw.startsWith("/")) return undefined;
    const relative = raw.replace(/^\.\//, "");
    const ref = relative.replace(/\/$/, "");
    if (table.pageRefs.has(ref)) return page(table.pageRefs.get(ref));
    if (table.fileRefs.has(ref)) return file(table.fileRefs.get(ref));
    const joined = joinPath(table.directory, raw);
    return joined === undefined ? undefined : page(pageAt(joined));
  };
}

/** Unresolved internal links (the parser keeps them as URL refs) become their plain text. */
export function unwrapUnresolvedLinks(document: JSONDocument): void {
  const visit = (node: AnyNode) => {
    for (const field of ["nodes", "fragments"] as const) {
      const list = node[field];
      if (!Array.isArray(list)) continue;
      let unwrapped = false;
      const out: AnyNode[] = [];
      for (const child of list) {
        const ref = (child.data as { ref?: { kind?: string; url?: string } } | undefined)?.ref;
        const internal =
          ref?.kind === "url" &&
          typeof ref.url === "string" &&
          !EXTERNAL.test(ref.url) &&
          !ref.url.startsWith("//") &&
          !ref.url.startsWith("#");
        if (child.object === "inline" && child.type === "link" && internal) {
          out.push(...((child.nodes as AnyNode[]) ?? []));
          unwrapped = true;
        } else {
          visit(child);
          out.push(child);
        }
      }
      node[field] = unwrapped ? (normalizeInlines(out as never) as unknown as AnyNode[]) : out;
    }
  };
  visit(document as unknown as AnyNode);
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `directory` + a relative path, normalized; undefined when it climbs above the root. */
function joinPath(directory: string, relative: string): string | undefined {
  const parts = directory ? directory.split("/") : [];
  for (const part of relative.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join("/");
}
