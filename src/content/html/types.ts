import type { ContentRef, JSONDocument } from "../document/types.js";

export interface RenderedFile {
  url: string;
  name: string;
  contentType: string;
  size?: number;
  width?: number;
  height?: number;
  /**
   * The image at other widths (an `<img srcset>` of `w` descriptors) and the width it takes on the
   * page (`sizes`), when whoever serves it offers them; a block image lets the browser pick.
   */
  srcset?: string;
  sizes?: string;
}

/** What an OpenAPI operation block shows beyond its method and path, when the caller knows the spec. */
export interface RenderedOperation {
  summary?: string;
  href?: string;
  deprecated?: boolean;
}

export interface RenderEnv {
  /** A content ref as an href (page refs become site URLs); undefined = not visible/unknown: render the text without a link. */
  link(ref: ContentRef): { href: string; title?: string } | undefined;
  file(fileId: string): RenderedFile | undefined;
  reusableContent(id: string, spaceId?: string): JSONDocument | undefined;
  /** Evaluated inline expression (variables, visitor claims) as text. */
  expression(expression: string): string;
  /** A block condition: whether to show it. */
  condition(expression: string): boolean;
  /** An OpenAPI operation of a spec (the `spec` of an `openapi` ref), for its summary and a link; optional. */
  operation?(spec: string, method: string, path: string): RenderedOperation | undefined;
  /**
   * Prefix for the ids the renderer makes up (tab groups, annotation notes), for a page that holds
   * more than one rendered document. Heading ids are never prefixed: they are the page's anchors.
   */
  idPrefix?: string;
  /**
   * Groups the document's top-level blocks into `<section class="q-section">`s, a new one at each
   * top-level heading of level 1 or 2: a published page lays out and paints a section only when it
   * comes near the screen (content.css), which a long page needs; the editor's previews do not.
   */
  sections?: boolean;
}

export interface OutlineEntry {
  id: string;
  title: string;
  level: 1 | 2 | 3;
}

export type ContentFeature = "code" | "math" | "mermaid" | "tabs" | "embed";

export interface RenderedDocument {
  html: string;
  outline: OutlineEntry[];
  features: ReadonlySet<ContentFeature>;
}
