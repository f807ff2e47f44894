/**
 * Page front matter: the YAML block at the top of a GitBook Markdown page, and its mapping to the
 * page fields of the API (`RevisionPageDocument`: description, icon, cover, layout, hidden, noIndex,
 * noRobotsIndex, variables; `metaLinks` and the adaptive `if` condition of later API versions).
 *
 * Keys the converter does not know are kept in `extra` and written back, so an export never loses
 * what a person put there. Invalid YAML never throws: the caller gets a warning and an empty
 * front matter, and the page body is still converted.
 */
import YAML from "yaml";
import type { ContentRefFile, ContentRefURL } from "../document/types.js";
import { DEFAULT_LAYOUT, type PageLayout } from "../revision/model.js";

export interface LayoutVisibility {
  visible?: boolean;
}

export interface PageLayoutFrontmatter {
  width?: "default" | "wide";
  cover?: { visible?: boolean; size?: "hero" | "full" };
  title?: LayoutVisibility;
  description?: LayoutVisibility;
  tableOfContents?: LayoutVisibility;
  outline?: LayoutVisibility;
  pagination?: LayoutVisibility;
  metadata?: LayoutVisibility;
}

export type VariableValue = string | number | boolean | null | VariableValue[] | { [key: string]: VariableValue };

export interface PageFrontmatter {
  description?: string;
  icon?: string;
  /** Cover image as written: a path relative to the page, or a URL. */
  cover?: string;
  coverY?: number;
  coverHeight?: number;
  layout?: PageLayoutFrontmatter;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  /** Adaptive-content condition (`if: visitor.claims.unsigned.beta === true`). */
  if?: string;
  vars?: Record<string, VariableValue>;
  metaLinks?: { canonical?: string; alternates?: string[] };
  tags?: string[];
  /** Keys this module does not interpret, kept verbatim for the export. */
  extra?: Record<string, unknown>;
}

/** Splits `---\nyaml\n---\n` off the top of a page (the source must already use `\n` line ends). */
export function splitFrontmatter(source: string): { yaml?: string; body: string; bodyLineOffset: number } {
  if (!source.startsWith("---\n") && source !== "---") return { body: source, bodyLineOffset: 0 };
  const closing = /\n(---|\.\.\.)[ \t]*(\n|$)/g;
  closing.lastIndex = 3;
  const match = closing.exec(source);
  if (!match) return { body: source, bodyLineOffset: 0 };
  const yaml = source.slice(4, match.index + 1);
  const body = source.slice(match.index + match[0].length);
  const bodyLineOffset = source.slice(0, match.index + match[0].length).split("\n").length - 1;
  return { yaml, body, bodyLineOffset };
}

const LAYOUT_VISIBILITY_KEYS = ["title", "description", "tableOfContents", "outline", "pagination", "metadata"] as const;

/** Reads front matter YAML into typed fields; values of the wrong type become warnings. */
export function parseFrontmatter(yaml: string, warnings: string[]): PageFrontmatter {
  let data: unknown;
  try {
    data = YAML.parse(yaml, { prettyErrors: false, maxAliasCount: 100 });
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    warnings.push(`front matter is not valid YAML (${message}); it was ignored`);
    return {};
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== "object" || Array.isArray(data)) {
    warnings.push("front matter is not a YAML mapping; it was ignored");
    return {};
  }
  const input = data as Record<string, unknown>;
  const out: PageFrontmatter = {};
  const extra: Record<string, unknown> = {};
  const wrong = (key: string, expected: string) => {
    warnings.push(`front matter "${key}" should be ${expected}; kept as an unknown key`);
    extra[key] = input[key];
  };
  for (const [key, value] of Object.entries(input)) {
    switch (key) {
      case "description":
      case "icon":
      case "cover":
      case "if":
        if (typeof value === "string") out[key] = value;
        else if (value === null) continue;
        else wrong(key, "a string");
        break;
      case "coverY":
      case "coverHeight":
        if (typeof value === "number" && Number.isFinite(value)) out[key] = value;
        else wrong(key, "a number");
        break;
      case "hidden":
      case "noIndex":
      case "noRobotsIndex":
        if (typeof value === "boolean") out[key] = value;
        else wrong(key, "true or false");
        break;
      case "layout": {
        const layout = readLayout(value, warnings);
        if (layout) out.layout = layout;
        else wrong(key, "a mapping of width, cover, title, description, tableOfContents, outline, pagination, metadata");
        break;
      }
      case "vars":
        if (isPlainRecord(value)) out.vars = value as Record<string, VariableValue>;
        else wrong(key, "a mapping");
        break;
      case "metaLinks": {
        const links = readMetaLinks(value);
        if (links) out.metaLinks = links;
        else wrong(key, "a mapping with canonical and alternates");
        break;
      }
      case "tags":
        if (Array.isArray(value) && value.every((t) => typeof t === "string")) out.tags = value;
        else wrong(key, "a list of strings");
        break;
      default:
        extra[key] = value;
    }
  }
  if (Object.keys(extra).length) out.extra = extra;
  return out;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The layout GitBook's API knows (width, cover visibility and size, six visibilities). GitBook's
 * editor writes more than the 0.146 API holds (`tags`, `actions`, cover `size: background`, `mask`):
 * those parts are ignored with a warning and the rest still applies.
 */
function readLayout(value: unknown, warnings: string[]): PageLayoutFrontmatter | undefined {
  if (!isPlainRecord(value)) return undefined;
  const layout: PageLayoutFrontmatter = {};
  const ignored: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (key === "width") {
      if (v === "default" || v === "wide") layout.width = v;
      else ignored.push(`width: ${JSON.stringify(v)}`);
    } else if (key === "cover") {
      if (!isPlainRecord(v)) {
        ignored.push("cover");
        continue;
      }
      const cover: NonNullable<PageLayoutFrontmatter["cover"]> = {};
      for (const [coverKey, coverValue] of Object.entries(v)) {
        if (coverKey === "visible" && typeof coverValue === "boolean") cover.visible = coverValue;
        else if (coverKey === "size" && (coverValue === "hero" || coverValue === "full")) cover.size = coverValue;
        else ignored.push(`cover.${coverKey}: ${JSON.stringify(coverValue)}`);
      }
      layout.cover = cover;
    } else if ((LAYOUT_VISIBILITY_KEYS as readonly string[]).includes(key)) {
      if (isPlainRecord(v) && (v.visible === undefined || typeof v.visible === "boolean")) {
        layout[key as (typeof LAYOUT_VISIBILITY_KEYS)[number]] = v.visible === undefined ? {} : { visible: v.visible };
      } else ignored.push(key);
    } else ignored.push(key);
  }
  if (ignored.length)
    warnings.push(
      `front matter layout: ${ignored.join(", ")} ${ignored.length === 1 ? "is" : "are"} not part of GitBook's page layout; ignored`,
    );
  return layout;
}

function readMetaLinks(value: unknown): PageFrontmatter["metaLinks"] {
  if (!isPlainRecord(value)) return undefined;
  const links: NonNullable<PageFrontmatter["metaLinks"]> = {};
  if (typeof value.canonical === "string") links.canonical = value.canonical;
  if (Array.isArray(value.alternates)) {
    const alternates = value.alternates.map((a) =>
      typeof a === "string" ? a : isPlainRecord(a) && typeof a.url === "string" ? a.url : undefined,
    );
    if (alternates.some((a) => a === undefined)) return undefined;
    links.alternates = alternates as string[];
  }
  return links;
}

const KEY_ORDER: Array<keyof PageFrontmatter> = [
  "description",
  "icon",
  "cover",
  "coverY",
  "coverHeight",
  "layout",
  "hidden",
  "noIndex",
  "noRobotsIndex",
  "if",
  "vars",
  "metaLinks",
  "tags",
];

/** Front matter as a `---` block (empty string when there is nothing to write). */
export function serializeFrontmatter(frontmatter: PageFrontmatter): string {
  const data: Record<string, unknown> = {};
  for (const key of KEY_ORDER) if (frontmatter[key] !== undefined) data[key] = frontmatter[key];
  for (const [key, value] of Object.entries(frontmatter.extra ?? {})) if (!(key in data)) data[key] = value;
  if (Object.keys(data).length === 0) return "";
  return `---\n${YAML.stringify(data, { lineWidth: 0 })}---\n`;
}

// ---- front matter ↔ API page fields --------------------------------------------------------------

/** Page layout options, as the revision model stores them. */
export type PageLayoutOptions = PageLayout;

/** The page fields front matter sets, in the API's shapes (`RevisionPageDocument` and friends). */
export interface PageMetadata {
  description?: string;
  icon?: string;
  cover?: { ref?: ContentRefFile | ContentRefURL; yPos: number; height?: number };
  layout: PageLayoutOptions;
  hidden: boolean;
  noIndex: boolean;
  noRobotsIndex: boolean;
  /** Adaptive-content condition expression. */
  condition?: { expression: string };
  variables?: Record<string, VariableValue>;
  metaLinks?: { canonical?: string; alternates?: string[] };
}

export { DEFAULT_LAYOUT };

/** Page fields from front matter; `resolveCover` turns the cover path into a file or URL ref. */
export function pageMetadataFromFrontmatter(
  frontmatter: PageFrontmatter,
  resolveCover: (target: string) => ContentRefFile | ContentRefURL = (url) => ({ kind: "url", url }),
): PageMetadata {
  const l = frontmatter.layout ?? {};
  const layout: PageLayoutOptions = {
    width: l.width ?? DEFAULT_LAYOUT.width,
    cover: l.cover?.visible ?? DEFAULT_LAYOUT.cover,
    coverSize: l.cover?.size ?? DEFAULT_LAYOUT.coverSize,
    title: l.title?.visible ?? DEFAULT_LAYOUT.title,
    description: l.description?.visible ?? DEFAULT_LAYOUT.description,
    tableOfContents: l.tableOfContents?.visible ?? DEFAULT_LAYOUT.tableOfContents,
    outline: l.outline?.visible ?? DEFAULT_LAYOUT.outline,
    pagination: l.pagination?.visible ?? DEFAULT_LAYOUT.pagination,
    metadata: l.metadata?.visible ?? DEFAULT_LAYOUT.metadata,
  };
  const meta: PageMetadata = {
    layout,
    hidden: frontmatter.hidden ?? false,
    noIndex: frontmatter.noIndex ?? false,
    noRobotsIndex: frontmatter.noRobotsIndex ?? false,
  };
  if (frontmatter.description !== undefined) meta.description = frontmatter.description;
  if (frontmatter.icon !== undefined) meta.icon = frontmatter.icon;
  if (frontmatter.cover !== undefined) {
    meta.cover = { ref: resolveCover(frontmatter.cover), yPos: frontmatter.coverY ?? 0 };
    if (frontmatter.coverHeight !== undefined) meta.cover.height = frontmatter.coverHeight;
  }
  if (frontmatter.if !== undefined) meta.condition = { expression: frontmatter.if };
  if (frontmatter.vars !== undefined) meta.variables = frontmatter.vars;
  if (frontmatter.metaLinks !== undefined) meta.metaLinks = frontmatter.metaLinks;
  return meta;
}

/**
 * Front matter for page fields (the export direction). Layout values equal to the defaults are
 * left out so pages without layout changes get no `layout:` block. `coverPath` maps the cover ref
 * to a path relative to the page.
 */
export function frontmatterFromPageMetadata(
  meta: Partial<PageMetadata>,
  coverPath: (ref: ContentRefFile | ContentRefURL) => string | undefined = (ref) => (ref.kind === "url" ? ref.url : undefined),
): PageFrontmatter {
  const fm: PageFrontmatter = {};
  if (meta.description) fm.description = meta.description;
  if (meta.icon) fm.icon = meta.icon;
  if (meta.cover?.ref) {
    const path = coverPath(meta.cover.ref);
    if (path !== undefined) {
      fm.cover = path;
      fm.coverY = meta.cover.yPos;
      if (meta.cover.height !== undefined) fm.coverHeight = meta.cover.height;
    }
  }
  if (meta.layout) {
    const l = meta.layout;
    const layout: PageLayoutFrontmatter = {};
    if (l.width !== DEFAULT_LAYOUT.width) layout.width = l.width;
    if (l.cover !== DEFAULT_LAYOUT.cover || l.coverSize !== DEFAULT_LAYOUT.coverSize)
      layout.cover = { visible: l.cover, size: l.coverSize };
    for (const key of LAYOUT_VISIBILITY_KEYS) if (l[key] !== DEFAULT_LAYOUT[key]) layout[key] = { visible: l[key] };
    if (Object.keys(layout).length) fm.layout = layout;
  }
  if (meta.hidden) fm.hidden = true;
  if (meta.noIndex) fm.noIndex = true;
  if (meta.noRobotsIndex) fm.noRobotsIndex = true;
  if (meta.condition) fm.if = meta.condition.expression;
  if (meta.variables && Object.keys(meta.variables).length) fm.vars = meta.variables;
  if (meta.metaLinks) fm.metaLinks = meta.metaLinks;
  return fm;
}
