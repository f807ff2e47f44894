/**
 * The provider's answer (the redirect URI): the sign-in is checked (state from this browser, used
 * once; code with PKCE; ID token with the nonce and the provider's keys). A member's sign-in opens
 * a web session under the same account rules as SAML; a site visitor's gives them a visitor token
 * of that site, their claims as `visitor.claims`, and sends them back to the page they asked for.
 */
import { isUniqueViolation } from "../../../../db/dialect.js";
import { conflicting } from "../../../../lib/errors.js";
import { unseal } from "../../../../lib/sealed.js";
import { finishOidcSignIn, visitorClaimsOf } from "../../../../modules/oidc/oidc.adapter.js";
import { signInWithOidc } from "../../../../modules/oidc/oidc.service.js";
import { VISITOR_KEY_PURPOSE } from "../../../../modules/sites/sites.service.js";
import { signVisitorToken } from "../../../../modules/sites/visitor-token.model.js";
import { publicHandler } from "../../web.kinds.js";
import { startSession, takeOidcState } from "../../web.session.js";
import { CallbackQuery, ProviderParams } from "./oidc.schemas.js";
import { oidcEnv, requireOidcProvider, requireVisitorSite, siteUrlWithToken } from "./oidc.steps.js";

/** How long the visitor token of a site visitor who signed in with OpenID Connect lasts. */
const VISITOR_TOKEN_LIFETIME_S = 60 * 60;

export const oidcCallback = publicHandler({ params: ProviderParams, querystring: CallbackQuery }, async (request, reply, deps) => {
  const provider = await requireOidcProvider(deps, request.params.providerId);
  const browserState = takeOidcState(deps, request, reply);
  reply.header("cache-control", "no-store");
  // The callback's address as the provider was told it (QUIRE_PUBLIC_URL), with the answer's query.
  const question = request.url.indexOf("?");
  const callbackUrl = new URL(
    `${deps.urls.app(`/oidc/${encodeURIComponent(provider.id)}/callback`)}${question < 0 ? "" : request.url.slice(question)}`,
  );
  const { login, claims } = await finishOidcSignIn(oidcEnv(deps), provider, callbackUrl, browserState);

  if (login.siteId !== null) {
    const { site, auth } = await requireVisitorSite(deps, provider, login.siteId);
    const key = unseal(deps.secret, VISITOR_KEY_PURPOSE, JSON.parse(auth.privateKeySealed));
    const token = await signVisitorToken(visitorClaimsOf(claims), key, VISITOR_TOKEN_LIFETIME_S);
    request.log.info({ providerId: provider.id, siteId: site.id }, "site visitor signed in with OpenID Connect");
    return reply.redirect(siteUrlWithToken(deps, site, login.next, token), 303);
  }

  const { user } = await deps.db
    .transaction()
    .execute((trx) => signInWithOidc(trx, provider, claims))
    .catch((err: unknown) => {
      if (isUniqueViolation(err)) throw conflicting("Your account was being created by another sign-in at the same moment. Sign in again.");
      throw err;
    });
  await startSession(deps, request, reply, user.id, { method: "oidc", orgId: provider.orgId, providerId: provider.id });
  request.log.info({ userId: user.id, providerId: provider.id }, "signed in with OpenID Connect");
  return reply.redirect(login.next, 303);
});
