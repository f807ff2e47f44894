/**
 * What the browser side of OpenID Connect sign-in shares: the provider an endpoint names, the
 * environment the relying party needs, the site a visitor signs in to, and where the visitor goes
 * back to with their visitor token.
 */
import type { OidcProviderRow, SiteRow } from "../../../../db/schema.js";
import type { Deps } from "../../../../deps.js";
import { invalid, missing } from "../../../../lib/errors.js";
import type { OidcEnv } from "../../../../modules/oidc/oidc.adapter.js";
import { getOidcProviderById } from "../../../../modules/oidc/oidc.queries.js";
import { getPublishingAuth, getSite, type PublishingAuthRow } from "../../../../modules/sites/sites.queries.js";

export const oidcEnv = (deps: Deps): OidcEnv => ({ db: deps.db, config: deps.config, urls: deps.urls, secret: deps.secret });

/** The provider an OpenID Connect endpoint names: 404 when there is none. */
export async function requireOidcProvider(deps: Deps, providerId: string): Promise<OidcProviderRow> {
  const provider = await getOidcProviderById(deps.db, providerId);
  if (!provider) throw missing(`No OpenID Connect provider with id "${providerId}".`);
  return provider;
}

/** The site whose visitors sign in with this provider (its visitor authentication names it), with its signing key's row. */
export async function requireVisitorSite(
  deps: Deps,
  provider: OidcProviderRow,
  siteId: string,
): Promise<{ site: SiteRow; auth: PublishingAuthRow }> {
  const site = await getSite(deps.db, provider.orgId, siteId);
  const auth = site ? await getPublishingAuth(deps.db, site.id) : undefined;
  if (!site || !auth) throw missing(`No site with id "${siteId}" signs its visitors in with this provider.`);
  if (auth.oidcProviderId !== provider.id) {
    throw invalid(`The site "${site.title}" does not sign its visitors in with ${provider.label} (any more). Open the site again.`);
  }
  return { site, auth };
}

/**
 * The page of the site a visitor asked for, from its root (what the site's login redirect gives as
 * `location`): a relative path with its query, never another host or a path outside the site.
 */
export function siteLocation(value: string | undefined): string {
  if (value === undefined) return "";
  const path = value.split("?")[0] ?? "";
  if (/^[a-z][a-z0-9+.-]*:|^[/\\]|[\\\r\n\t]/i.test(value) || path.split("/").some((s) => s === ".." || s === ".")) return "";
  return value;
}

/** The site's address of `location` with the visitor token for the reader to take (it moves it into a cookie). */
export function siteUrlWithToken(deps: Deps, site: SiteRow, location: string, token: string): string {
  const target = new URL(`${deps.urls.site(site.basename)}/${location}`);
  target.searchParams.set("jwt_token", token);
  return target.toString();
}
