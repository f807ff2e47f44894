/**
 * Writes of OpenID Connect providers, and the account a provider's sign-in opens. What the schema
 * cannot check (the issuer's address, the team) is checked here; the client secret is sealed under
 * the instance key and never leaves this server.
 */
import { isIP } from "node:net";
import type { Executor } from "../../db/database.js";
import type { OidcProviderRow, UserRow } from "../../db/schema.js";
import { invalid, notAllowed } from "../../lib/errors.js";
import { allowingNetworks, isPublicAddress } from "../../lib/public-fetch.js";
import { seal } from "../../lib/sealed.js";
import { DEFAULT_SSO_ROLE, signInWithIdentityProvider } from "../saml/saml.service.js";
import { getTeam } from "../teams/teams.queries.js";
import { getOidcProvider, insertOidcProvider, updateOidcProvider } from "./oidc.queries.js";
import type { CreateOidcProviderValue, UpdateOidcProviderValue } from "./oidc.schemas.js";

export const OIDC_SECRET_PURPOSE = "oidc-client-secret";
export const DEFAULT_SCOPES = "openid email profile";

/**
 * The issuer's URL: https; plain http only for an address literal on a network the operator
 * allowed (`QUIRE_FETCH_ALLOW_NETWORKS`, e.g. a provider on loopback in a test), since tokens and
 * the client secret travel to it. No credentials, query or fragment (the issuer identifier has none).
 */
export function checkIssuer(raw: string, allowNetworks: readonly string[]): string {
  const url = new URL(raw);
  if (url.username || url.password || url.search || url.hash) {
    throw invalid("body.issuer must be the issuer identifier alone: no user name, password, query or fragment.");
  }
  if (url.protocol === "https:") return url.toString().replace(/\/$/, url.pathname === "/" ? "" : "/");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const allowed = allowingNetworks(allowNetworks);
  if (url.protocol === "http:" && isIP(host) && !isPublicAddress(host) && allowed(host)) return raw.replace(/\/$/, "");
  throw invalid(
    `body.issuer must be an https address (got "${url.protocol}//${url.host}"); plain http is accepted only for an address on a network the operator allowed with QUIRE_FETCH_ALLOW_NETWORKS.`,
  );
}

function scopesOf(scopes: string | undefined): string {
  const list = (scopes ?? DEFAULT_SCOPES).split(" ").filter(Boolean);
  return [...new Set(["openid", ...list])].join(" ");
}

async function checkTeam(db: Executor, orgId: string, teamId: string): Promise<string> {
  if (!(await getTeam(db, orgId, teamId))) throw invalid(`body.defaultTeam names "${teamId}", which is not a team of this organization.`);
  return teamId;
}

const sealSecret = (secret: string, clientSecret: string) => JSON.stringify(seal(secret, OIDC_SECRET_PURPOSE, clientSecret));

export async function createOidcProvider(
  db: Executor,
  env: { secret: string; allowNetworks: readonly string[] },
  orgId: string,
  body: CreateOidcProviderValue,
): Promise<OidcProviderRow> {
  return insertOidcProvider(db, {
    orgId,
    label: body.label,
    issuer: checkIssuer(body.issuer, env.allowNetworks),
    clientId: body.clientID,
    clientSecretSealed: body.clientSecret !== undefined ? sealSecret(env.secret, body.clientSecret) : null,
    scopes: scopesOf(body.scopes),
    emailClaim: body.claims?.email ?? "email",
    nameClaim: body.claims?.name ?? "name",
    defaultRole: body.defaultRole !== undefined ? body.defaultRole : DEFAULT_SSO_ROLE,
    defaultTeamId: body.defaultTeam !== undefined ? await checkTeam(db, orgId, body.defaultTeam) : null,
  });
}

/** Applies the fields given; `clientSecret: null` and `defaultTeam: null` clear them. */
export async function changeOidcProvider(
  db: Executor,
  env: { secret: string; allowNetworks: readonly string[] },
  provider: OidcProviderRow,
  body: UpdateOidcProviderValue,
): Promise<OidcProviderRow> {
  const change: Parameters<typeof updateOidcProvider>[3] = {};
  if (body.label !== undefined) change.label = body.label;
  if (body.issuer !== undefined) change.issuer = checkIssuer(body.issuer, env.allowNetworks);
  if (body.clientID !== undefined) change.clientId = body.clientID;
  if (body.clientSecret !== undefined)
    change.clientSecretSealed = body.clientSecret === null ? null : sealSecret(env.secret, body.clientSecret);
  if (body.scopes !== undefined) change.scopes = scopesOf(body.scopes);
  if (body.claims?.email !== undefined) change.emailClaim = body.claims.email;
  if (body.claims?.name !== undefined) change.nameClaim = body.claims.name;
  if (body.defaultRole !== undefined) change.defaultRole = body.defaultRole;
  if (body.defaultTeam !== undefined)
    change.defaultTeamId = body.defaultTeam === null ? null : await checkTeam(db, provider.orgId, body.defaultTeam);
  if (Object.keys(change).length > 0) await updateOidcProvider(db, provider.orgId, provider.id, change);
  return (await getOidcProvider(db, provider.orgId, provider.id)) ?? provider;
}

/** The member's email and name in the checked claims, under the provider's claim mapping. */
export function identityOf(provider: Pick<OidcProviderRow, "emailClaim" | "nameClaim">, claims: Record<string, unknown>) {
  const email = claims[provider.emailClaim];
  if (typeof email !== "string" || !/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) {
    throw invalid(
      `The identity provider sent no email address in the "${provider.emailClaim}" claim. Ask its administrator to release it (scope "email"), or change the provider's claims.email.`,
    );
  }
  // A provider that says it has not verified the address is not taken at its word even in its own organization.
  if (claims.email_verified === false || claims.email_verified === "false") {
    throw notAllowed(`The identity provider says it has not verified ${email}. Verify the address with it, then sign in again.`);
  }
  const named = claims[provider.nameClaim];
  const parts = [claims.given_name, claims.family_name].filter((p): p is string => typeof p === "string" && p !== "");
  const displayName = typeof named === "string" && named.trim() !== "" ? named : parts.join(" ");
  return { email, displayName };
}

/** The account an OpenID Connect sign-in opens: the same rules as SAML (see `signInWithSaml`). */
export function signInWithOidc(
  trx: Executor,
  provider: OidcProviderRow,
  claims: Record<string, unknown>,
): Promise<{ user: UserRow; created: boolean }> {
  return signInWithIdentityProvider(trx, provider, identityOf(provider, claims));
}
