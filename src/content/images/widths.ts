/**
 * The widths an image is offered at (content/images/variants.ts makes them): pure, for the pages
 * that list them in a `srcset` and the address that serves them.
 */

/** The widths offered, in device pixels; the source's own width ends the list when narrower than MAX_VARIANT_WIDTH. */
export const VARIANT_WIDTHS: readonly number[] = [320, 480, 640, 800, 1080, 1280, 1600];
/** No variant is wider than this (a wider source is offered up to this width; the source itself stays as is). */
export const MAX_VARIANT_WIDTH = 1600;
/** Stored files of these types are offered at other widths. SVG is drawn at any size already; other types are served as stored. */
const DERIVABLE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export function isDerivable(contentType: string): boolean {
  return DERIVABLE_TYPES.has(contentType.trim().toLowerCase());
}

/** The widths a source of this width is offered at: every step narrower than it, then its own width (at most MAX_VARIANT_WIDTH). */
export function variantWidths(sourceWidth: number): number[] {
  if (!Number.isFinite(sourceWidth) || sourceWidth < 1) return [];
  const top = Math.min(Math.round(sourceWidth), MAX_VARIANT_WIDTH);
  return [...VARIANT_WIDTHS.filter((width) => width < top), top];
}
