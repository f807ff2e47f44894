import type { SiteRow, SiteShareLinkRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import type { ShareLinkResponse } from "./share-links.schemas.js";

/**
 * A share link as the caller sees it: `key` (the unsealed secret) is given only to callers who may
 * manage the site's share links, and only then does the link carry its URL.
 */
export function presentShareLink(
  link: SiteShareLinkRow,
  site: Pick<SiteRow, "basename">,
  key: string | undefined,
  urls: Urls,
): ShareLinkResponse {
  return {
    object: "share-link",
    id: link.id,
    createdAt: link.createdAt,
    name: link.name,
    active: link.active === 1,
    urls: key === undefined ? {} : { published: urls.site(site.basename, key) },
  };
}
