import type { SiteRedirectRow } from "../../db/schema.js";
import type { RedirectDestination } from "./redirects.model.js";

/** `SiteRedirect` (0.202). */
export function presentRedirect(row: SiteRedirectRow) {
  return {
    object: "site-redirect" as const,
    id: row.id,
    source: row.source,
    draft: row.draft === 1,
    captureWildcard: row.captureWildcard === 1,
    permanent: row.permanent === 1,
    destination: JSON.parse(row.destination) as RedirectDestination,
    createdAt: row.createdAt,
    ...(row.updatedAt ? { updatedAt: row.updatedAt } : {}),
  };
}
