import type { SamlProviderRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { isRole } from "../../permissions/roles.js";
import { presentTeam } from "../teams/teams.presenter.js";
import type { DefaultTeams } from "./saml.loader.js";
import type { SamlProviderResponse, SamlStatusValue } from "./saml.schemas.js";

/** The addresses this service gives the identity provider, all under /saml/{providerId}/. */
export function serviceProviderUrls(urls: Urls, providerId: string) {
  const base = `${urls.base}/saml/${encodeURIComponent(providerId)}`;
  return { acsURL: `${base}/acs`, startURL: `${base}/start`, entityID: `${base}/metadata`, sloURL: `${base}/slo` };
}

/** `active` once the identity provider's entity ID, SSO URL and certificate are all known. */
export function samlProviderStatus(provider: SamlProviderRow): SamlStatusValue {
  return provider.entityId !== "" && provider.ssoUrl !== null && provider.certificate !== "" ? "active" : "pending";
}

/** `OrganizationSAMLProvider`. A provider created without its SSO URL shows `about:blank` (the spec requires a URI). */
export function presentSamlProvider(provider: SamlProviderRow, defaults: DefaultTeams, urls: Urls): SamlProviderResponse {
  const team = provider.defaultTeamId ? defaults.teams.get(provider.defaultTeamId) : undefined;
  return {
    object: "saml-provider",
    id: provider.id,
    label: provider.label,
    ssoURL: provider.ssoUrl ?? "about:blank",
    entityID: provider.entityId,
    certificate: provider.certificate,
    ...(team ? { defaultTeam: presentTeam(team.team, team.counts, team.permissions) } : {}),
    defaultRole: isRole(provider.defaultRole) ? provider.defaultRole : null,
    createdAt: provider.createdAt,
    status: samlProviderStatus(provider),
    service: { ...serviceProviderUrls(urls, provider.id), encryptionCertificate: provider.spCertificate },
    requireEncryptedAssertions: provider.requireEncryptedAssertions === 1,
    ...(provider.sloUrl ? { sloURL: provider.sloUrl } : {}),
    urls: { location: urls.api(`/orgs/${provider.orgId}/saml/${provider.id}`) },
  };
}
