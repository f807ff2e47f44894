/**
 * A published site in memory: its structure (sections, groups, variants) and, for each variant, the
 * page tree of its space's primary revision with every page's URL path. Built once per state of the
 * site's rows (see site.loader.ts) and shared by every reader; what a given reader may see
 * (conditions on variants, sections and pages) is decided over it per request, with `visibleTo`.
 */

import type { PageLocation, PageNode, RevisionContent } from "../../content/revision/model.js";
import type { SiteRow, SiteSectionGroupRow, SiteSectionRow } from "../../db/schema.js";
import {
  defaultSectionId,
  defaultSiteSpaceId,
  hasSections,
  type ModelSiteSpace,
  type SiteModel,
  sectionsInOrder,
  siteSpaceSegments,
  visibleSiteSpacesOf,
} from "../../modules/sites/structure.model.js";
import { conditionHolds, type Reader } from "./reader.model.js";
import type { SiteCustomizations } from "./site-customization.model.js";

export interface VariantView {
  siteSpace: ModelSiteSpace;
  section: SiteSectionRow | null;
  content: RevisionContent;
  /** The space's primary revision when the view was built. */
  revisionId: string;
  /** URL segments of the variant from the site's root: none for the default variant of the home section. */
  segments: string[];
  /** Every page by id, in reading order, with its path (slugs joined by "/"). */
  pages: Map<string, PageLocation>;
  /** Page id by path. */
  byPath: Map<string, string>;
  /** Document pages in reading order (the order of previous/next links). */
  readingOrder: string[];
}

export interface SiteView {
  site: SiteRow;
  model: SiteModel;
  /** Variants by site space id, in reading order (sections first to last, variants in order). */
  variants: Map<string, VariantView>;
  /** A key that changes whenever anything this view was built from changes. */
  key: string;
  /** The site's customization and each site space's, resolved once for the view. */
  customization: SiteCustomizations;
}

/** Builds the view of a site from its model and the content of each shown space. */
export function buildSiteView(
  site: SiteRow,
  model: SiteModel,
  contents: Map<string, { revisionId: string; content: RevisionContent; index: Map<string, PageLocation> }>,
  key: string,
  customization: SiteCustomizations,
): SiteView {
  const variants = new Map<string, VariantView>();
  const add = (section: SiteSectionRow | null) => {
    for (const siteSpace of visibleSiteSpacesOf(model, section?.id ?? null)) {
      const loaded = contents.get(siteSpace.spaceId);
      if (!loaded) continue;
      const segments = siteSpaceSegments(model, siteSpace);
      const byPath = new Map<string, string>();
      const readingOrder: string[] = [];
      for (const [id, location] of loaded.index) {
        if (!byPath.has(location.path)) byPath.set(location.path, id);
        if (location.page.kind === "document") readingOrder.push(id);
      }
      variants.set(siteSpace.id, {
        siteSpace,
        section,
        content: loaded.content,
        revisionId: loaded.revisionId,
        segments,
        pages: loaded.index,
        byPath,
        readingOrder,
      });
    }
  };
  if (hasSections(model)) for (const section of sectionsInOrder(model)) add(section);
  else add(null);
  return { site, model, variants, key, customization };
}

// What one reader sees.

/** A short, stable key for a reader's variant of the site (their claims change what they see). */
const versions = new WeakMap<SiteView, number>();
let nextVersion = 1;

/** A number naming this view (a site's view is rebuilt when anything it shows changes), for cache keys. */
export function versionOf(view: SiteView): number {
  let version = versions.get(view);
  if (version === undefined) versions.set(view, (version = nextVersion++));
  return version;
}

export function readerKey(reader: Reader): string {
  const variant = (reader as Reader & { variantKey?: string }).variantKey;
  return `${reader.member ? "m" : "v"}${reader.indexable ? "i" : "n"}:${variant ?? JSON.stringify(reader.claims)}`;
}

/** The pages of a variant one reader's claims let through, computed once per variant and reader key. */
interface ReaderPages {
  /** Pages whose condition and every ancestor's condition hold. */
  visible: Set<string>;
  /** Visible document pages, not hidden (nor under a hidden page), in reading order. */
  listed: string[];
  listedSet: Set<string>;
  first: string | undefined;
}

const readerPagesMemo = new WeakMap<VariantView, Map<string, ReaderPages>>();
const MAX_READER_KEYS = 256;

function readerPages(variant: VariantView, reader: Reader): ReaderPages {
  let byKey = readerPagesMemo.get(variant);
  if (!byKey) readerPagesMemo.set(variant, (byKey = new Map()));
  const key = readerKey(reader);
  const known = byKey.get(key);
  if (known) return known;
  const visible = new Set<string>();
  const unlisted = new Set<string>();
  const walk = (pages: readonly PageNode[], hiddenAbove: boolean) => {
    for (const page of pages) {
      if (!conditionHolds(page.condition, reader, pageContext(variant, page))) continue;
      visible.add(page.id);
      const hidden = hiddenAbove || page.hidden === true;
      if (hidden) unlisted.add(page.id);
      walk(page.children, hidden);
    }
  };
  walk(variant.content.pages, false);
  const listed = variant.readingOrder.filter((id) => visible.has(id) && !unlisted.has(id));
  const result: ReaderPages = { visible, listed, listedSet: new Set(listed), first: listed[0] };
  if (byKey.size >= MAX_READER_KEYS) byKey.clear();
  byKey.set(key, result);
  return result;
}

/** Whether a page and all its ancestors show for this reader (conditions hold). */
export function pageVisible(variant: VariantView, pageId: string, reader: Reader): boolean {
  return readerPages(variant, reader).visible.has(pageId);
}

/** What conditions and expressions of a page see besides the visitor. */
export function pageContext(variant: VariantView, page: PageNode): Record<string, unknown> {
  return { space: { vars: variant.content.variables }, page: { vars: page.variables ?? {} } };
}

export function variantVisible(_view: SiteView, variant: VariantView, reader: Reader): boolean {
  if (!conditionHolds(variant.siteSpace.condition, reader)) return false;
  return variant.section === null || conditionHolds(variant.section.condition, reader);
}

/** The variants this reader may see, in reading order. */
export function visibleVariants(view: SiteView, reader: Reader): VariantView[] {
  return [...view.variants.values()].filter((v) => variantVisible(view, v, reader));
}

/** The sections this reader sees (those with at least one visible variant), in order. */
export function visibleSections(view: SiteView, reader: Reader): SiteSectionRow[] {
  const shown = new Set(visibleVariants(view, reader).map((v) => v.section?.id));
  return sectionsInOrder(view.model).filter((s) => shown.has(s.id));
}

/** Groups that hold a section directly, for header menus. */
export function groupOf(view: SiteView, section: SiteSectionRow): SiteSectionGroupRow | undefined {
  return section.groupId ? view.model.groups.find((g) => g.id === section.groupId) : undefined;
}

/**
 * A page a reader may open and list: a document page whose conditions (and its ancestors') hold.
 * `listed` also leaves out hidden pages (reachable by URL, not shown in navigation or indexes).
 */
export function readablePage(variant: VariantView, pageId: string, reader: Reader, listed: boolean): boolean {
  if (variant.pages.get(pageId)?.page.kind !== "document") return false;
  const pages = readerPages(variant, reader);
  return listed ? pages.listedSet.has(pageId) : pages.visible.has(pageId);
}

/** The first page a reader may open in a variant: what its root shows. */
export function firstPage(variant: VariantView, reader: Reader): string | undefined {
  return readerPages(variant, reader).first;
}

/** Page ids a reader sees listed in a variant, in reading order. */
export function listedPages(variant: VariantView, reader: Reader): readonly string[] {
  return readerPages(variant, reader).listed;
}

// URLs.

/** A page's path from the site's base (no leading slash); the first page of a variant is its root. */
export function pagePath(variant: VariantView, pageId: string, reader: Reader): string {
  const location = variant.pages.get(pageId);
  const segments = [...variant.segments];
  if (location && firstPage(variant, reader) !== pageId) segments.push(location.path);
  return segments.join("/");
}

/** The path of a page from the site's base, always naming the page (for `.md` addresses). */
export function pageMarkdownPath(variant: VariantView, pageId: string): string {
  const location = variant.pages.get(pageId);
  return [...variant.segments, location?.path ?? ""].filter((s) => s !== "").join("/");
}

export function encodePath(path: string): string {
  return path
    .split("/")
    .map((s) => encodeURIComponent(s))
    .join("/");
}

// Resolution of a URL.

export type Resolution =
  | { kind: "page"; variant: VariantView; pageId: string; markdown: boolean }
  | { kind: "redirect"; path: string; permanent: boolean }
  | {
      kind: "not-found";
      variant: VariantView | undefined;
      /** The page path that was not found in the variant ("" when the variant has no page to show). */
      rest: string;
      markdown: boolean;
    };

/**
 * Where the path segments after the site's base lead: a section path first (the home section at
 * the root), then a variant path (the default one at its section's root), then the page path.
 * The home section's own path and a default variant's own path redirect to their root; an old path
 * of a section or variant (sitePathRedirects) redirects to where it lives now. A trailing `.md`
 * asks for the page's Markdown.
 */
export function resolvePath(
  view: SiteView,
  segments: readonly string[],
  reader: Reader,
  redirects: readonly { fromPath: string; targetType: string; targetId: string }[],
): Resolution {
  let rest = [...segments];
  let markdown = false;
  const last = rest.at(-1);
  if (last?.endsWith(".md") && last.length > 3) {
    markdown = true;
    rest[rest.length - 1] = last.slice(0, -3);
  }
  const variants = visibleVariants(view, reader);
  const model = view.model;
  const homeSection = defaultSectionId(model);
  let section: SiteSectionRow | null = null;
  if (hasSections(model)) {
    let named = variants.find((v) => v.section && v.section.path === rest[0])?.section ?? null;
    // A variant of the home section may have the home section's path: the variant (a live page) wins.
    if (named?.id === homeSection && variants.some((v) => v.section?.id === homeSection && v.siteSpace.path === rest[0])) named = null;
    if (named) {
      if (named.id === homeSection) return { kind: "redirect", path: rest.slice(1).join("/") + (markdown ? ".md" : ""), permanent: true };
      section = named;
      rest = rest.slice(1);
    } else {
      section = variants.find((v) => v.section?.id === homeSection)?.section ?? variants[0]?.section ?? null;
    }
  }
  const inSection = variants.filter((v) => (v.section?.id ?? null) === (section?.id ?? null));
  const defaultId = defaultSiteSpaceId(model, section?.id ?? null);
  let variant = inSection.find((v) => v.siteSpace.path === rest[0]);
  if (variant) {
    if (variant.siteSpace.id === defaultId) {
      const path = [...variant.segments, ...rest.slice(1)].join("/");
      return { kind: "redirect", path: path + (markdown ? ".md" : ""), permanent: true };
    }
    rest = rest.slice(1);
  } else {
    variant = inSection.find((v) => v.siteSpace.id === defaultId) ?? inSection[0];
  }
  if (!variant) return { kind: "not-found", variant: undefined, rest: "", markdown };

  const pagePathText = rest.join("/");
  if (pagePathText === "") {
    const first = firstPage(variant, reader);
    if (first) return { kind: "page", variant, pageId: first, markdown };
    return { kind: "not-found", variant, rest: "", markdown };
  }
  const pageId = variant.byPath.get(pagePathText);
  // The variant's first page answers at the variant's root and at its own path (links use the root).
  if (pageId && readablePage(variant, pageId, reader, false)) return { kind: "page", variant, pageId, markdown };
  const moved = redirectFor(view, segments, redirects);
  if (moved !== undefined) return { kind: "redirect", path: moved, permanent: true };
  return { kind: "not-found", variant, rest: pagePathText, markdown };
}

/** The new place of an old section or variant path (the longest recorded prefix wins). */
function redirectFor(
  view: SiteView,
  segments: readonly string[],
  redirects: readonly { fromPath: string; targetType: string; targetId: string }[],
): string | undefined {
  for (let n = Math.min(segments.length, 2); n >= 1; n--) {
    const from = segments.slice(0, n).join("/");
    const redirect = redirects.find((r) => r.fromPath === from);
    if (!redirect) continue;
    let target: string[] | undefined;
    if (redirect.targetType === "site-space") target = view.variants.get(redirect.targetId)?.segments;
    else {
      const variant = [...view.variants.values()].find((v) => v.section?.id === redirect.targetId);
      target = variant
        ? variant.segments.slice(0, variant.section && variant.section.id !== defaultSectionId(view.model) ? 1 : 0)
        : undefined;
    }
    if (target) return [...target, ...segments.slice(n)].join("/");
  }
  return undefined;
}

export type { PageNode };
