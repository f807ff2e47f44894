/**
 * What a page of the site is laid out for (the view, the reader, the addresses): types only, so
 * that the views layout.ts imports (the sidebar, the customization, the addresses) need not import
 * layout.ts back.
 */
import type { Reader } from "./reader.model.js";
import type { SiteView, VariantView } from "./site-view.model.js";

export interface LayoutContext {
  view: SiteView;
  reader: Reader;
  /** The site's base URL path on this request, with any share key (`/s/docs`, `/s/docs/<key>`, or ``). */
  base: string;
  /** Where the assets are served (`<site base without share key>/~quire/assets`). */
  assetsBase: string;
  /** Where file download URLs start: the public URL's path on the server's own host, else its full address. */
  filesBase: string;
  /** Fingerprinted asset names by plain name. */
  assets: ReadonlyMap<string, string>;
  /** The variant being read (absent on a site-wide page such as a 404 without a variant). */
  variant: VariantView | undefined;
  /** The current page, for the sidebar's highlight. */
  pageId?: string | undefined;
}

export interface OutlineItem {
  id: string;
  title: string;
  level: 1 | 2 | 3;
}
