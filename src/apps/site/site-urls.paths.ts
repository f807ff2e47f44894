/** URLs of a published site's pages from the base of the request (with any share key). */
import type { LayoutContext } from "./site-context.model.js";
import { encodePath, pagePath, type VariantView } from "./site-view.model.js";

/** The URL of a path from the site's base. */
export function siteHref(ctx: Pick<LayoutContext, "base">, path: string): string {
  const encoded = encodePath(path);
  return encoded ? `${ctx.base}/${encoded}` : `${ctx.base}/`;
}

export function pageHref(ctx: LayoutContext, variant: VariantView, pageId: string): string {
  return siteHref(ctx, pagePath(variant, pageId, ctx.reader));
}
