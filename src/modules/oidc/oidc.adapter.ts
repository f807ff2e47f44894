/**
 * The relying party, with openid-client: discovery from the issuer, the authorization code flow
 * with PKCE (S256), `state` and `nonce`, and the ID token checked by openid-client (issuer,
 * audience, expiry, nonce, and its signature through the provider's JWKS). The discovery document
 * and the JWKS are read at each sign-in (through the address policy of user-given URLs), so a key
 * the provider rotated is used at once and a key it removed is refused at once.
 * openid-client is loaded by the first sign-in through a provider, not at start.
 */
import type * as openid from "openid-client";
import type { Config } from "../../config.js";
import type { Executor } from "../../db/database.js";
import type { OidcProviderRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { invalid, notAllowed } from "../../lib/errors.js";
import { lazily } from "../../lib/lazy.js";
import { allowingNetworks, policyFetch } from "../../lib/public-fetch.js";
import { unseal } from "../../lib/sealed.js";
import { relyingPartyUrls } from "./oidc.presenter.js";
import { type OidcLogin, saveOidcLogin, takeOidcLogin } from "./oidc.queries.js";
import { OIDC_SECRET_PURPOSE } from "./oidc.service.js";

/** How long a sign-in may take between its start and the provider's answer. */
export const OIDC_LOGIN_TTL_MS = 10 * 60 * 1000;
const FETCH_TIMEOUT_MS = 10_000;
const FETCH_MAX_BYTES = 1024 * 1024;

const openidClient = lazily(() => import("openid-client"));

export interface OidcEnv {
  db: Executor;
  config: Pick<Config, "fetchAllowNetworks">;
  urls: Urls;
  secret: string;
}

async function configurationOf(env: OidcEnv, provider: OidcProviderRow): Promise<openid.Configuration> {
  const client = await openidClient();
  const secret = provider.clientSecretSealed ? unseal(env.secret, OIDC_SECRET_PURPOSE, JSON.parse(provider.clientSecretSealed)) : undefined;
  const issuer = new URL(provider.issuer);
  const fetch = policyFetch({
    maxBytes: FETCH_MAX_BYTES,
    timeoutMs: FETCH_TIMEOUT_MS,
    isAllowed: allowingNetworks(env.config.fetchAllowNetworks),
  });
  let config: openid.Configuration;
  try {
    config = await client.discovery(
      issuer,
      provider.clientId,
      undefined,
      secret !== undefined ? client.ClientSecretBasic(secret) : client.None(),
      {
        // http is accepted only where checkIssuer allowed it (an address on a network the operator allowed).
        ...(issuer.protocol === "http:" ? { execute: [client.allowInsecureRequests] } : {}),
        [client.customFetch]: (url: string, options: openid.CustomFetchOptions) => fetch(url, options as unknown as RequestInit),
        timeout: FETCH_TIMEOUT_MS / 1000,
      },
    );
  } catch (err) {
    throw invalid(
      `The identity provider's discovery document at ${provider.issuer} could not be read (${reasonOf(err)}). Try again, or ask an organization admin to check the provider's issuer.`,
    );
  }
  // Check the ID token's signature with the provider's JWKS even though it came straight from its token endpoint.
  client.enableNonRepudiationChecks(config);
  return config;
}

function reasonOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const code = (err as { code?: unknown }).code;
    const detail = err.message + (typeof code === "string" ? ` [${code}]` : "");
    return cause instanceof Error && cause.message !== err.message ? `${detail}: ${cause.message}` : detail;
  }
  return String(err);
}

/** Starts a sign-in: remembers its checks (used once) and answers the provider's authorization URL and the state. */
export async function startOidcSignIn(
  env: OidcEnv,
  provider: OidcProviderRow,
  target: { siteId: string | null; next: string },
): Promise<{ url: string; state: string }> {
  const config = await configurationOf(env, provider);
  const client = await openidClient();
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  await saveOidcLogin(env.db, state, { providerId: provider.id, nonce, codeVerifier, ...target }, OIDC_LOGIN_TTL_MS);
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: relyingPartyUrls(env.urls, provider.id).redirectURI,
    scope: provider.scopes,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  return { url: url.toString(), state };
}

/** Claims that are the protocol's, not the person's: never visitor claims. */
const PROTOCOL_CLAIMS = new Set([
  "iss",
  "aud",
  "exp",
  "iat",
  "nbf",
  "jti",
  "nonce",
  "at_hash",
  "c_hash",
  "s_hash",
  "auth_time",
  "azp",
  "sid",
  "acr",
  "amr",
]);

export interface OidcAnswer {
  login: OidcLogin;
  /** The ID token's claims (checked), completed by the UserInfo endpoint's for what the ID token lacks. */
  claims: Record<string, unknown>;
}

/**
 * Completes a sign-in from the callback's URL (as the browser asked it, under QUIRE_PUBLIC_URL):
 * the state must name a sign-in this server started, not yet answered, in this browser
 * (`browserState`, from its cookie); the code is exchanged with the PKCE verifier and the ID
 * token checked with the nonce. Throws a domain error a person can act on.
 */
export async function finishOidcSignIn(
  env: OidcEnv,
  provider: OidcProviderRow,
  callbackUrl: URL,
  browserState: string | undefined,
): Promise<OidcAnswer> {
  const params = callbackUrl.searchParams;
  const state = params.get("state");
  const refusal = params.get("error");
  if (refusal !== null) {
    if (state) await takeOidcLogin(env.db, provider.id, state);
    const description = params.get("error_description");
    throw notAllowed(
      `${provider.label} did not sign you in (${refusal}${description ? `: ${description.slice(0, 300)}` : ""}). Start signing in again.`,
    );
  }
  if (!state) throw invalid("This sign-in's answer has no state. Start signing in again from the sign-in page.");
  const login = await takeOidcLogin(env.db, provider.id, state);
  if (!login) {
    throw invalid(
      "This sign-in has expired, was already completed, or was not started by this server. Start signing in again from the sign-in page.",
    );
  }
  if (browserState !== state) {
    throw notAllowed("This sign-in was not started in this browser. Start signing in again from the sign-in page.");
  }
  const config = await configurationOf(env, provider);
  const client = await openidClient();
  let tokens: Awaited<ReturnType<typeof openid.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: login.codeVerifier,
      expectedState: state,
      expectedNonce: login.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    throw notAllowed(
      `${provider.label}'s answer was refused (${reasonOf(err)}). Start signing in again; if it keeps failing, ask an organization admin to check the provider.`,
    );
  }
  const idClaims = tokens.claims();
  if (!idClaims) throw notAllowed(`${provider.label} sent no ID token. Start signing in again.`);
  const claims: Record<string, unknown> = { ...idClaims };
  if (claims[provider.emailClaim] === undefined && tokens.access_token) {
    // Providers may release profile claims only at the UserInfo endpoint; the ID token's own win.
    try {
      const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      for (const [name, value] of Object.entries(info)) if (!(name in claims)) claims[name] = value;
    } catch (err) {
      throw notAllowed(`${provider.label}'s UserInfo answer was refused (${reasonOf(err)}). Start signing in again.`);
    }
  }
  return { login, claims };
}

/** The claims of a sign-in that describe the visitor (what a published site's conditions see). */
export function visitorClaimsOf(claims: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(claims).filter(([name]) => !PROTOCOL_CLAIMS.has(name)));
}
