/**
 * What the browser side of SAML sign-in shares: the organization's single sign-on buttons, the
 * provider a SAML endpoint names (active, or refused), the key of the sign-in ticket, the single
 * logout at sign-out, and the SAML libraries, loaded by the first SAML request (node-saml and its
 * XML signature stack are ~15 MB resident).
 */
import { createHmac } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Executor } from "../../../../db/database.js";
import type { SamlProviderRow } from "../../../../db/schema.js";
import type { Deps } from "../../../../deps.js";
import type { SignedInWith } from "../../../../http/member-session.js";
import { invalid, missing } from "../../../../lib/errors.js";
import { relyingPartyUrls } from "../../../../modules/oidc/oidc.presenter.js";
import { allOidcProviders } from "../../../../modules/oidc/oidc.queries.js";
import { samlProviderStatus, serviceProviderUrls } from "../../../../modules/saml/saml.presenter.js";
import { allSamlProviders, getSamlProviderById } from "../../../../modules/saml/saml.queries.js";

export const samlServiceProvider = () => import("../../../../modules/saml/saml-sp.adapter.js");
export const samlSingleLogout = () => import("../../../../modules/saml/saml-slo.adapter.js");

/** The organization's active providers (SAML, then OpenID Connect) as sign-in buttons, each coming back to `next`. */
export async function singleSignOns(
  deps: Pick<Deps, "db" | "urls">,
  orgId: string,
  next: string,
): Promise<{ label: string; href: string }[]> {
  const providers = (await allSamlProviders(deps.db, orgId)).filter((p) => samlProviderStatus(p) === "active");
  const oidc = await allOidcProviders(deps.db, orgId);
  return [
    ...providers.map((p) => ({ label: p.label, href: `${serviceProviderUrls(deps.urls, p.id).startURL}?next=${next}` })),
    ...oidc.map((p) => ({ label: p.label, href: `${relyingPartyUrls(deps.urls, p.id).startURL}?next=${next}` })),
  ];
}

/** The provider a SAML endpoint names: 404 when there is none, 400 while it is not fully configured. */
export async function requireActiveProvider(db: Executor, providerId: string): Promise<SamlProviderRow> {
  const provider = await getSamlProviderById(db, providerId);
  if (!provider) throw missing(`No SAML provider with id "${providerId}".`);
  if (samlProviderStatus(provider) !== "active") {
    throw invalid("This SAML provider is not fully configured yet (entity ID, SSO URL and certificate are needed).");
  }
  return provider;
}

/** The key that seals the ticket the assertion consumer hands to the browser's completion (modules/saml/saml-ticket.model.ts). */
export function ticketKey(secret: string): string {
  return createHmac("sha256", secret).update("quire saml sign-in ticket").digest("hex");
}

/**
 * Where to send a member who just signed out (their session is already ended): the identity
 * provider's single logout with a signed LogoutRequest, when the session was opened by a SAML
 * assertion of a provider that has a single logout URL; undefined otherwise, or when the request
 * cannot be made (the member is signed out of Quire all the same).
 */
export async function samlLogoutUrl(
  deps: Deps,
  via: SignedInWith | undefined,
  log: FastifyBaseLogger,
): Promise<{ url: string; label: string } | undefined> {
  if (via?.method !== "saml" || !via.subject) return undefined;
  try {
    const provider = await getSamlProviderById(deps.db, via.providerId);
    if (!provider?.sloUrl || samlProviderStatus(provider) !== "active") return undefined;
    return { url: await (await samlSingleLogout()).logoutRequestUrl(deps.db, deps.urls, provider, via.subject), label: provider.label };
  } catch (err) {
    log.warn({ err, providerId: via.providerId }, "could not start SAML single logout; signed out of Quire only");
    return undefined;
  }
}
