import type { ContentRef } from "./document-types.js";
import type { LinkTarget } from "./text.js";

/**
 * How content references become text and links in the PDF. Pages of the export (and headings in
 * them) are linked inside the PDF through named destinations; everything else needs a URL, either
 * in the reference itself or from the caller's `describeRef`. Without `describeRef`, references
 * the export cannot resolve print their raw id (a file id, a user id), which is at least traceable.
 */

/** What the caller knows about a reference the renderer cannot resolve by itself (a file's name…). */
export type DescribeRef = (ref: ContentRef) => { text: string; url?: string } | undefined;

export interface RefDescription {
  text: string;
  link?: LinkTarget;
}

export function pageDestination(pageId: string): string {
  return `page:${pageId}`;
}

export function anchorDestination(pageId: string, anchor: string): string {
  return `anchor:${pageId}:${anchor}`;
}

/** Only these schemes become clickable: a PDF link to `javascript:` or a local file is a hazard. */
const SAFE_URL = /^(https?:|mailto:|tel:|ftp:)/i;

export class Links {
  constructor(
    private readonly pageTitles: ReadonlyMap<string, string>,
    /** `${pageId}:${anchor}` of every heading with an anchor. */
    private readonly anchors: ReadonlySet<string>,
    private readonly describeRef: DescribeRef | undefined,
  ) {}

  /** Link target of a reference, or undefined when there is nowhere to go. */
  target(ref: ContentRef, currentPage: string): LinkTarget | undefined {
    return this.describe(ref, currentPage).link;
  }

  describe(ref: ContentRef, currentPage: string): RefDescription {
    const described = this.describeRef?.(ref);
    const external = described?.url && SAFE_URL.test(described.url) ? { url: described.url } : undefined;
    switch (ref.kind) {
      case "url": {
        const url = typeof ref.url === "string" ? ref.url : "";
        return { text: described?.text ?? url, link: SAFE_URL.test(url) ? { url } : external };
      }
      case "page": {
        const id = ref.page ?? "";
        const title = this.pageTitles.get(id);
        if (title !== undefined && !ref.space) return { text: described?.text ?? title, link: { dest: pageDestination(id) } };
        return {
          text: described?.text ?? title ?? `page ${id}`.trim(),
          link: external ?? (title !== undefined ? { dest: pageDestination(id) } : undefined),
        };
      }
      case "anchor": {
        const page = ref.page ?? currentPage;
        const anchor = ref.anchor ?? "";
        const title = this.pageTitles.get(page);
        const text = described?.text ?? (anchor ? `${title ?? ""}#${anchor}` : (title ?? "section"));
        if (title !== undefined && !ref.space) {
          const dest = this.anchors.has(`${page}:${anchor}`) ? anchorDestination(page, anchor) : pageDestination(page);
          return { text, link: { dest } };
        }
        return { text, link: external };
      }
      case "file":
        return { text: described?.text ?? ref.file ?? "file", link: external };
      case "user":
        return { text: described?.text ?? ref.user ?? "user", link: external };
      case "space":
        return { text: described?.text ?? `space ${ref.space ?? ""}`.trim(), link: external };
      case "collection":
        return { text: described?.text ?? `collection ${ref.collection ?? ""}`.trim(), link: external };
      case "reusable-content":
        return { text: described?.text ?? ref.reusableContent ?? "reusable content", link: external };
      case "openapi":
        return { text: described?.text ?? `OpenAPI specification ${ref.spec ?? ""}`.trim(), link: external };
      default:
        return { text: described?.text ?? ref.kind, link: external };
    }
  }
}
