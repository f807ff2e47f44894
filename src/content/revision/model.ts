/**
 * The content of one revision, in memory: a page tree, files, reusable contents and variables.
 * Page bodies are referenced by `documentHash` (the content address of the JSON document), so a
 * revision's structure can be read and compared without loading any page body.
 */
import type { ContentRef, ContentRefFile, ContentRefURL } from "../document/types.js";

export type PageKind = "document" | "group" | "link";

export interface GitBlobRef {
  oid: string;
  path: string;
}

export interface PageLayout {
  width: "default" | "wide";
  cover: boolean;
  coverSize: "hero" | "full";
  title: boolean;
  description: boolean;
  tableOfContents: boolean;
  outline: boolean;
  pagination: boolean;
  metadata: boolean;
}

export const DEFAULT_LAYOUT: PageLayout = {
  width: "default",
  cover: true,
  coverSize: "hero",
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
};

/** A content reference (`ContentRef` in the spec). */
export type ContentRefValue = ContentRef;

export interface PageCover {
  ref?: ContentRefFile | ContentRefURL;
  refDark?: ContentRefFile | ContentRefURL;
  yPos: number;
  height?: number;
}

/** Everything stored about one page except its children. */
export interface PageMeta {
  /** Stable across revisions (and across re-imports of the same Git path). */
  id: string;
  kind: PageKind;
  title: string;
  /** Slug within the parent; the page's path joins its ancestors' slugs. */
  slug: string;
  emoji?: string;
  icon?: string;
  description?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  layout?: PageLayout;
  cover?: PageCover;
  /** Adaptive-content condition (front matter `if`). */
  condition?: string;
  variables?: Record<string, string>;
  /** Document pages: address of the body; absent for an empty page. */
  documentHash?: string;
  /** Link pages. */
  target?: ContentRefValue;
  href?: string;
  /** Sidebar label (SUMMARY.md link title) when it differs from the page title. */
  label?: string;
  git?: GitBlobRef;
  createdAt: string;
  updatedAt: string;
}

export interface PageNode extends PageMeta {
  children: PageNode[];
}

/**
 * Levels of pages one under another (top-level pages are level 1). Deep enough for any real
 * documentation; bounded because every reader of a page tree (presenters, sidebars, PDF, merge)
 * walks it recursively, and a repository of folders 300 deep made every read of its space fail.
 */
export const MAX_PAGE_DEPTH = 50;

/** How many levels deep a page tree goes (0 when empty), without recursion. */
export function pageTreeDepth(pages: readonly object[]): number {
  let deepest = 0;
  const stack: [readonly object[], number][] = [[pages, 1]];
  while (stack.length) {
    const [list, level] = stack.pop()!;
    if (list.length > 0) deepest = Math.max(deepest, level);
    for (const page of list) {
      const children = (page as { children?: readonly object[] }).children;
      if (children?.length) stack.push([children, level + 1]);
    }
  }
  return deepest;
}

/**
 * Brings a tree read from storage back to MAX_PAGE_DEPTH levels, in place: every page below the
 * deepest level joins the pages of that level, in reading order, right after its ancestor there.
 * Only a tree stored before the bound existed can need it; none stored since does.
 */
export function flattenBelowMaxDepth(pages: PageNode[]): void {
  const stack: [PageNode[], number][] = [[pages, 1]];
  while (stack.length) {
    const [list, level] = stack.pop()!;
    if (level < MAX_PAGE_DEPTH) {
      for (const page of list) stack.push([page.children, level + 1]);
      continue;
    }
    if (!list.some((page) => page.children.length > 0)) continue;
    const flat: PageNode[] = [];
    for (const page of list) {
      const pending = [page];
      while (pending.length) {
        const next = pending.pop()!;
        flat.push(next);
        for (let i = next.children.length - 1; i >= 0; i--) pending.push(next.children[i]!);
        next.children = [];
      }
    }
    list.length = 0;
    for (const page of flat) list.push(page);
  }
}

export interface FileEntry {
  id: string;
  name: string;
  contentType: string;
  size: number;
  /** Address of the bytes in content_blobs. */
  blobHash: string;
  dimensions?: { width: number; height: number };
  git?: GitBlobRef;
}

export interface ReusableContentEntry {
  id: string;
  title: string;
  documentHash?: string;
  git?: GitBlobRef;
}

export interface RevisionContent {
  pages: PageNode[];
  files: FileEntry[];
  reusableContents: ReusableContentEntry[];
  variables: Record<string, string>;
}

export function emptyContent(): RevisionContent {
  return { pages: [], files: [], reusableContents: [], variables: {} };
}

/** A page located in its tree. */
export interface PageLocation {
  page: PageNode;
  parentId: string | null;
  index: number;
  /** Slugs of the ancestors and the page, joined by "/". */
  path: string;
  /** Titles of the ancestors, root first. */
  ancestors: { id: string; title: string }[];
}

/** Every page of a tree by id, in depth-first (reading) order. */
export function indexPages(pages: PageNode[]): Map<string, PageLocation> {
  const index = new Map<string, PageLocation>();
  const walk = (nodes: PageNode[], parent: PageNode | null, prefix: string, ancestors: { id: string; title: string }[]) => {
    nodes.forEach((page, i) => {
      const path = prefix ? `${prefix}/${page.slug}` : page.slug;
      index.set(page.id, { page, parentId: parent?.id ?? null, index: i, path, ancestors });
      walk(page.children, page, path, [...ancestors, { id: page.id, title: page.title }]);
    });
  };
  walk(pages, null, "", []);
  return index;
}
