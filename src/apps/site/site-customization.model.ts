/**
 * The customization of a site resolved for its readers: types only, so that site-view.ts, which
 * holds it, need not import site-customization.ts, which reads the view.
 */
import type { SiteCustomization } from "../../modules/sites/customization.schemas.js";

export interface ResolvedCustomization {
  settings: SiteCustomization;
  /** What readers see as the site's title. */
  title: string;
  /**
   * Whether the site (or this site space) was ever customized. A site that never was keeps Quire's
   * own look: its theme follows the reader's system and its colors are Quire's.
   */
  customized: boolean;
  /** CSS custom properties of the colors (empty when not customized). */
  style: string;
  /** Changes with the announcement's text, link or style: a reader's dismissal holds for one announcement. */
  announcementId: string;
}

export interface SiteCustomizations {
  site: ResolvedCustomization;
  /** By site space id. */
  variants: Map<string, ResolvedCustomization>;
}
