import type { ContentRef, DocumentFragment } from "./document-types.js";
import type { Decoration } from "./flow.js";
import type { Fonts } from "./fonts.js";
import type { ImageRef, ImageStore } from "./images.js";
import type { Links } from "./links.js";
import type { TextLayout } from "./text.js";
import { MIN_TEXT_WIDTH } from "./theme.js";

/** State shared by the block, inline and table layout of one render. */

/** Everything shared by the blocks of one render. */
export interface RenderEnv {
  doc: PDFKit.PDFDocument;
  fonts: Fonts;
  text: TextLayout;
  images: ImageStore;
  links: Links;
  /** Id of the page being rendered (relative anchors resolve against it). */
  pageId: string;
  /** Annotations met on the current page, printed as notes after its body. */
  notes: DocumentFragment[][];
  /** Named destinations already registered (a name may be defined once; anchors can repeat). */
  destinations: Set<string>;
  /** Checks for abort and lets other work run now and then; awaited between blocks. */
  tick(): Promise<void>;
}

/** Where and how the current container lays out its children. */
export interface BlockContext {
  x: number;
  width: number;
  decos: readonly Decoration[];
  depth: number;
  listDepth: number;
  /** Body text size and colour (smaller in tables, muted in quotes). */
  size: number;
  color: string;
  /** Gap between sibling blocks. */
  gap: number;
  align?: "start" | "center" | "end";
}

/**
 * The column inside a container's left and right padding. Padding shrinks (to nothing) rather
 * than let the column get narrower than MIN_TEXT_WIDTH, so a list nested 200 deep stays readable.
 */
export function inset(ctx: BlockContext, left: number, right = 0): { x: number; width: number } {
  const spare = Math.max(0, ctx.width - MIN_TEXT_WIDTH);
  const scale = left + right > spare ? spare / (left + right) : 1;
  return { x: ctx.x + left * scale, width: ctx.width - (left + right) * scale };
}

export function imageRef(ref: ContentRef | undefined): ImageRef | undefined {
  if (ref?.kind === "file" && typeof ref.file === "string") return { kind: "file", file: ref.file };
  if (ref?.kind === "url" && typeof ref.url === "string") return { kind: "url", url: ref.url };
  return undefined;
}
