/**
 * A site's own redirects (modules/sites/redirects.*) on the published site: where a path that
 * leads to no page goes, for this reader. Precedence on a request (README "Site redirects"):
 * a live page, then the site's structure (a section's or variant's own or old path), then these
 * redirects, then the `.gitbook.yaml` redirects of the space's last Git import and a renamed page's
 * old path (findMovedPage), then 404. The site's redirects come before the space's: they are the
 * decision of the people who run this site, while a space's Git redirects may serve several sites.
 */
import {
  caughtSegments,
  externalTarget,
  matchRedirect,
  type RedirectDestination,
  redirectStatus,
} from "../../modules/sites/redirects.model.js";
import { liveSiteRedirects } from "../../modules/sites/redirects.queries.js";
import { defaultSectionId } from "../../modules/sites/structure.model.js";
import type { SiteRequest } from "./site.steps.js";
import { siteHref } from "./site-urls.paths.js";
import { pagePath, readablePage, visibleVariants } from "./site-view.model.js";

/** The address and status of the site redirect this request matches, or undefined (also when its destination is gone or hidden from this reader). */
export async function siteRedirectFor(site: SiteRequest, search: string): Promise<{ location: string; status: 307 | 308 } | undefined> {
  const redirects = await liveSiteRedirects(site.app.deps.db, site.site.id);
  if (redirects.length === 0) return undefined;
  const match = matchRedirect(redirects, `/${site.path.join("/")}`);
  if (!match) return undefined;
  const destination = JSON.parse(match.redirect.destination) as RedirectDestination;
  const status = redirectStatus(match.redirect.permanent === 1, site.site.visibility === "public" || site.site.visibility === "unlisted");
  const caught = match.redirect.captureWildcard === 1 ? match.rest : "";
  if (destination.kind === "external") {
    const location = externalTarget(destination.url, caught);
    return location ? { location, status } : undefined;
  }
  const path = internalPath(site, destination);
  if (path === undefined) return undefined;
  const segments = [...(path ? path.split("/") : []), ...caughtSegments(caught)];
  return { location: siteHref(site.ctx, segments.join("/")) + search, status };
}

/** The path from the site's root of a section, site space or page this reader sees; undefined otherwise. */
function internalPath(site: SiteRequest, destination: Exclude<RedirectDestination, { kind: "external" }>): string | undefined {
  const variants = visibleVariants(site.view, site.reader);
  if (destination.kind === "site-section") {
    const variant = variants.find((v) => v.section?.id === destination.siteSectionId);
    if (!variant) return undefined;
    const own = variant.section && variant.section.id !== defaultSectionId(site.view.model);
    return variant.segments.slice(0, own ? 1 : 0).join("/");
  }
  const variant = variants.find((v) => v.siteSpace.id === destination.siteSpaceId);
  if (!variant) return undefined;
  if (destination.kind === "site-space") return variant.segments.join("/");
  if (!readablePage(variant, destination.pageId, site.reader, false)) return undefined;
  return pagePath(variant, destination.pageId, site.reader);
}
