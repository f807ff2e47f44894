/**
 * Starts an OpenID Connect sign-in: a member's to the web app (`next`), or a published site's
 * visitor's (`site` and `location`, from the site's login redirect). The browser is sent to the
 * provider's authorization endpoint and keeps the state in a cookie: only it may complete the
 * sign-in (login CSRF).
 */
import { OIDC_LOGIN_TTL_MS, startOidcSignIn } from "../../../../modules/oidc/oidc.adapter.js";
import { publicHandler } from "../../web.kinds.js";
import { rememberOidcState, safeNext } from "../../web.session.js";
import { ProviderParams, StartQuery } from "./oidc.schemas.js";
import { oidcEnv, requireOidcProvider, requireVisitorSite, siteLocation } from "./oidc.steps.js";

export const oidcStart = publicHandler({ params: ProviderParams, querystring: StartQuery }, async (request, reply, deps) => {
  const provider = await requireOidcProvider(deps, request.params.providerId);
  const { site: siteId, location, next } = request.query;
  const target =
    siteId !== undefined
      ? { siteId: (await requireVisitorSite(deps, provider, siteId)).site.id, next: siteLocation(location) }
      : { siteId: null, next: safeNext(next) };
  const { url, state } = await startOidcSignIn(oidcEnv(deps), provider, target);
  rememberOidcState(deps, reply, state, OIDC_LOGIN_TTL_MS / 1000);
  return reply.header("cache-control", "no-store").redirect(url, 302);
});
