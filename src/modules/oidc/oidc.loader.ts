/** Loads an organization's OpenID Connect providers with the caller's access. */
import type { Executor } from "../../db/database.js";
import type { OidcProviderRow } from "../../db/schema.js";
import { missing } from "../../lib/errors.js";
import type { Actor } from "../../permissions/actor.js";
import { type LoadedSamlOrganization, loadSamlOrganization } from "../saml/saml.loader.js";
import { getOidcProvider } from "./oidc.queries.js";

export const oidcProviderNotFound = (id: string) => `No OpenID Connect provider with id "${id}" in this organization.`;

/**
 * The organization and the caller's access to its identity providers: the same rule as SAML's
 * (admins read and manage them, other members get 403, outsiders 404).
 */
export function loadOidcOrganization(db: Executor, actor: Actor, orgId: string): Promise<LoadedSamlOrganization> {
  return loadSamlOrganization(db, actor, orgId);
}

export async function loadOidcProvider(db: Executor, orgId: string, providerId: string): Promise<OidcProviderRow> {
  const provider = await getOidcProvider(db, orgId, providerId);
  if (!provider) throw missing(oidcProviderNotFound(providerId));
  return provider;
}
