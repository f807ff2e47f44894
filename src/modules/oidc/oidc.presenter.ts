import type { OidcProviderRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { isRole } from "../../permissions/roles.js";
import type { DefaultTeams } from "../saml/saml.loader.js";
import { presentTeam } from "../teams/teams.presenter.js";
import type { OidcProviderResponse } from "./oidc.schemas.js";

/** The addresses this service gives the provider's administrator, under /app/oidc/{providerId}/. */
export function relyingPartyUrls(urls: Urls, providerId: string) {
  const base = urls.app(`/oidc/${encodeURIComponent(providerId)}`);
  return { redirectURI: `${base}/callback`, startURL: `${base}/start` };
}

/** A provider as its organization's admins see it: never its client secret. */
export function presentOidcProvider(provider: OidcProviderRow, defaults: DefaultTeams, urls: Urls): OidcProviderResponse {
  const team = provider.defaultTeamId ? defaults.teams.get(provider.defaultTeamId) : undefined;
  return {
    object: "oidc-provider",
    id: provider.id,
    label: provider.label,
    issuer: provider.issuer,
    clientID: provider.clientId,
    hasClientSecret: provider.clientSecretSealed !== null,
    scopes: provider.scopes,
    claims: { email: provider.emailClaim, name: provider.nameClaim },
    ...(team ? { defaultTeam: presentTeam(team.team, team.counts, team.permissions) } : {}),
    defaultRole: isRole(provider.defaultRole) ? provider.defaultRole : null,
    createdAt: provider.createdAt,
    service: relyingPartyUrls(urls, provider.id),
    urls: { location: urls.api(`/orgs/${provider.orgId}/oidc/${provider.id}`) },
  };
}
