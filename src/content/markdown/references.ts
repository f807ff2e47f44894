/**
 * How the converter talks to the importer and exporter about links between pages, files and
 * reusable content. Parsing reports every target it meets (`ContentReferenceFound`) and asks the
 * importer's resolver to turn a raw target into a ref of the revision; serializing asks the inverse,
 * a ref → a path relative to the page being written.
 *
 * Written into the document:
 * - a link to a page → `{kind: "page", page}`; with `#anchor` → `{kind: "anchor", anchor, page}`;
 *   a bare `#anchor` → `{kind: "anchor", anchor}` (current page, no resolver call);
 * - a file, image or cover → `{kind: "file", file}`;
 * - an include → `{kind: "reusable-content", reusableContent}`;
 * - anything the resolver leaves undefined (external URLs, unknown paths) → `{kind: "url", url}`
 *   with the target exactly as written, so an unresolved internal link survives an export unchanged.
 */
import type {
  ContentRef,
  ContentRefAnchor,
  ContentRefFile,
  ContentRefPage,
  ContentRefReusableContent,
  ContentRefURL,
} from "../document/types.js";

/** What kind of construct a target was found in; it tells the resolver what to look for. */
export type ReferenceKind =
  | "link" // [text](target) and <a href>
  | "mention" // [text](target "mention")
  | "content-ref" // {% content-ref url %}, {% page-ref page %}
  | "image" // ![](target), <img src>, <source srcset>
  | "file" // {% file src %}
  | "include" // {% include "target" %}
  | "embed" // {% embed url %}
  | "openapi" // {% openapi src %}, {% swagger src %}
  | "button" // <a class="button" href>
  | "card-target" // cards table: the link of a card
  | "card-cover" // cards table: the cover image of a card
  | "cover"; // front matter `cover:`

export type ResolvedReference = ContentRefPage | ContentRefFile | ContentRefURL | ContentRefReusableContent | ContentRefAnchor;

/** The importer's lookup: a raw target (path relative to the page, or URL) → a ref, or undefined. */
export type ReferenceResolver = (target: string, kind: ReferenceKind) => ResolvedReference | undefined;

/** The exporter's lookup: a ref → a path relative to the page being written, or undefined. */
export type ReferencePathResolver = (ref: ContentRef) => string | undefined;

export interface ContentReferenceFound {
  kind: ReferenceKind;
  /** The target exactly as written in the Markdown. */
  target: string;
  /** Key of the innermost block that holds the reference; absent for front matter (`cover`). */
  blockKey?: string;
  /** Key of the inline node (link, mention, image, button) that holds it, when it is one. */
  inlineKey?: string;
  /** The ref written into the document for it. */
  ref?: ContentRef;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** True for `https://…`, `mailto:…` and other targets with a scheme. */
export function isExternalTarget(target: string): boolean {
  return EXTERNAL.test(target);
}

/**
 * The ref for a link target: anchors of the current page stay local, `page.md#x` becomes an anchor
 * in the resolved page, and anything unresolved stays the URL as written.
 */
export function resolveLinkTarget(target: string, kind: ReferenceKind, resolver: ReferenceResolver | undefined): ContentRef {
  if (target.startsWith("#") && target.length > 1) return { kind: "anchor", anchor: decodeSafe(target.slice(1)) };
  const hash = target.indexOf("#");
  if (resolver && hash > 0 && !isExternalTarget(target)) {
    const base = resolver(target.slice(0, hash), kind);
    const anchor = decodeSafe(target.slice(hash + 1));
    if (base?.kind === "page" && anchor) return { kind: "anchor", anchor, page: base.page, ...(base.space ? { space: base.space } : {}) };
    // A file's web address (outside what was imported) keeps the fragment written.
    if (base?.kind === "url") return { kind: "url", url: `${base.url}${target.slice(hash)}` };
    if (base) return base;
  }
  const resolved = resolver?.(target, kind);
  return resolved ?? { kind: "url", url: target };
}

/** The ref for an image source: only files and URLs are valid there. */
export function resolveImageTarget(
  target: string,
  kind: ReferenceKind,
  resolver: ReferenceResolver | undefined,
): ContentRefFile | ContentRefURL {
  const resolved = resolver?.(target, kind);
  if (resolved?.kind === "file" || resolved?.kind === "url") return resolved;
  return { kind: "url", url: target };
}

function decodeSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Default inverse for refs the exporter could not map: URLs as they are, others by id. */
export function fallbackPath(ref: ContentRef): string {
  switch (ref.kind) {
    case "url":
      return ref.url;
    case "anchor":
      return `#${ref.anchor}`;
    case "page":
      return `page:${ref.page}`;
    case "file":
      return `file:${ref.file}`;
    case "reusable-content":
      return `reusable-content:${ref.reusableContent}`;
    case "openapi":
      return ref.spec;
    case "user":
      return `user:${ref.user}`;
    case "collection":
      return `collection:${ref.collection}`;
    case "space":
      return `space:${ref.space}`;
  }
}

/** Path for a ref through the exporter's resolver, anchors appended to their page's path. */
export function pathForRef(ref: ContentRef, resolver: ReferencePathResolver | undefined): string {
  if (ref.kind === "url") return ref.url;
  if (ref.kind === "anchor") {
    if (!ref.page) return `#${ref.anchor}`;
    const page: ContentRefPage = { kind: "page", page: ref.page, ...(ref.space ? { space: ref.space } : {}) };
    return `${resolver?.(page) ?? fallbackPath(page)}#${ref.anchor}`;
  }
  return resolver?.(ref) ?? fallbackPath(ref);
}
