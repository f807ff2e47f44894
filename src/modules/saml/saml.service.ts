/** Writes of SAML providers: what the schema cannot check (certificate, URL scheme, team) is checked here. */
import type { Executor } from "../../db/database.js";
import type { SamlProviderRow, UserRow } from "../../db/schema.js";
import { invalid, notAllowed } from "../../lib/errors.js";
import { addMember, belongsToAnotherOrganization, getMember } from "../../permissions/memberships.queries.js";
import { isRole, type Role } from "../../permissions/roles.js";
import { getTeam, insertTeamMembers } from "../teams/teams.queries.js";
import { vouchedByOrganization } from "../users/users.policy.js";
import { getUserByEmail, insertUser, setEmailVerification, updateUser, verificationColumns } from "../users/users.queries.js";
import { getSamlProvider, insertSamlProvider, updateSamlProvider } from "./saml.queries.js";
import type { CreateSamlProviderValue, UpdateSamlProviderValue } from "./saml.schemas.js";
import { parseCertificate } from "./saml-certificate.model.js";

/** Role of members created at their first sign-in when the administrator names none. */
export const DEFAULT_SSO_ROLE: Role = "read";

function checkBrowserUrl(url: string, field: "ssoURL" | "sloURL"): string {
  const protocol = new URL(url).protocol;
  if (protocol !== "https:" && protocol !== "http:") {
    throw invalid(`body.${field} must be an http or https address (the browser is sent there), got "${protocol}".`);
  }
  return url;
}

const checkSsoUrl = (url: string) => checkBrowserUrl(url, "ssoURL");
const checkSloUrl = (url: string) => checkBrowserUrl(url, "sloURL");

async function checkTeam(db: Executor, orgId: string, teamId: string): Promise<string> {
  if (!(await getTeam(db, orgId, teamId))) throw invalid(`body.defaultTeam names "${teamId}", which is not a team of this organization.`);
  return teamId;
}

export async function createSamlProvider(db: Executor, orgId: string, body: CreateSamlProviderValue): Promise<SamlProviderRow> {
  return insertSamlProvider(db, {
    orgId,
    label: body.label,
    entityId: body.entityID ?? "",
    ssoUrl: body.ssoURL !== undefined ? checkSsoUrl(body.ssoURL) : null,
    certificate: body.certificate ? parseCertificate(body.certificate).pem : "",
    defaultTeamId: body.defaultTeam !== undefined ? await checkTeam(db, orgId, body.defaultTeam) : null,
    defaultRole: body.defaultRole !== undefined ? body.defaultRole : DEFAULT_SSO_ROLE,
    requireEncryptedAssertions: body.requireEncryptedAssertions ? 1 : 0,
    sloUrl: body.sloURL !== undefined ? checkSloUrl(body.sloURL) : null,
  });
}

/** Applies the fields given; `certificate: ""`, `defaultTeam: null` and `sloURL: null` clear them. */
export async function changeSamlProvider(db: Executor, provider: SamlProviderRow, body: UpdateSamlProviderValue): Promise<SamlProviderRow> {
  const change: Parameters<typeof updateSamlProvider>[3] = {};
  if (body.label !== undefined) change.label = body.label;
  if (body.entityID !== undefined) change.entityId = body.entityID;
  if (body.ssoURL !== undefined) change.ssoUrl = checkSsoUrl(body.ssoURL);
  if (body.certificate !== undefined) change.certificate = body.certificate === "" ? "" : parseCertificate(body.certificate).pem;
  if (body.defaultTeam !== undefined)
    change.defaultTeamId = body.defaultTeam === null ? null : await checkTeam(db, provider.orgId, body.defaultTeam);
  if (body.defaultRole !== undefined) change.defaultRole = body.defaultRole;
  if (body.requireEncryptedAssertions !== undefined) change.requireEncryptedAssertions = body.requireEncryptedAssertions ? 1 : 0;
  if (body.sloURL !== undefined) change.sloUrl = body.sloURL === null ? null : checkSloUrl(body.sloURL);
  if (Object.keys(change).length > 0) await updateSamlProvider(db, provider.orgId, provider.id, change);
  return (await getSamlProvider(db, provider.orgId, provider.id)) ?? provider;
}

/** Longest display name accepted elsewhere (PATCH /users/{id}). */
const DISPLAY_NAME_MAX = 64;

/**
 * The account an identity provider's assertion signs in, for the provider's organization. Call
 * inside the transaction that consumed the assertion. A provider is trusted for its own
 * organization only (README "Email addresses and organizations"):
 *
 * - An unknown email gets an account and a membership just in time: SSO member, the provider's
 *   default role and team. Its address is vouched for by this organization only.
 * - A known account is signed in only when its membership of this organization is marked SSO (an
 *   admin's `POST {org}/members/{userId}/sso`, or an invite with `sso: true`), and only when this
 *   organization may speak for it: its address was vouched for by this organization's providers, or
 *   the account belongs to no other organization. Otherwise an admin who added someone's account
 *   and marked it SSO would reach, through their own provider, everything that account reaches
 *   elsewhere.
 * - Once signed in this way the address rests on this organization's provider: it is recorded as
 *   vouched for by this organization only, so that whatever the provider's sign-ins create (API
 *   tokens) never carries another organization's invitation or email-domain join.
 * - A disabled membership is refused.
 */
export function signInWithSaml(
  trx: Executor,
  provider: SamlProviderRow,
  identity: { email: string; firstName: string | undefined; lastName: string | undefined },
): Promise<{ user: UserRow; created: boolean }> {
  const displayName = [identity.firstName, identity.lastName].filter(Boolean).join(" ");
  return signInWithIdentityProvider(trx, provider, { email: identity.email, displayName });
}

/** An organization's identity provider (SAML or OpenID Connect) as the account rules above see it. */
export interface IdentityProviderTerms {
  orgId: string;
  defaultRole: string | null;
  defaultTeamId: string | null;
}

/** The account rules of `signInWithSaml`, for any identity provider of an organization. */
export async function signInWithIdentityProvider(
  trx: Executor,
  provider: IdentityProviderTerms,
  identity: { email: string; displayName: string },
): Promise<{ user: UserRow; created: boolean }> {
  const displayName = identity.displayName.trim().slice(0, DISPLAY_NAME_MAX);
  const vouched = { via: "idp", orgId: provider.orgId } as const;
  const existing = await getUserByEmail(trx, identity.email);
  if (!existing) {
    const user = await insertUser(trx, {
      email: identity.email,
      displayName: displayName || (identity.email.split("@")[0] ?? identity.email).slice(0, DISPLAY_NAME_MAX),
      verification: vouched,
      pending: false,
    });
    const role = isRole(provider.defaultRole) ? provider.defaultRole : null;
    await addMember(trx, { orgId: provider.orgId, userId: user.id, role, sso: true });
    if (provider.defaultTeamId && (await getTeam(trx, provider.orgId, provider.defaultTeamId))) {
      await insertTeamMembers(trx, provider.defaultTeamId, [{ userId: user.id, role: "member" }]);
    }
    return { user, created: true };
  }
  const member = await getMember(trx, provider.orgId, existing.id);
  if (member?.sso !== 1) {
    throw notAllowed(
      `An account with the email ${identity.email} already exists and is not an SSO member of this organization. ` +
        "An organization admin can mark the membership as SSO (or invite the address with sso: true); then sign in again.",
    );
  }
  if (member.disabled === 1) throw notAllowed("Your membership of this organization is disabled; ask an organization admin.");
  const ownVoucher = vouchedByOrganization(existing, provider.orgId);
  if (!ownVoucher && (await belongsToAnotherOrganization(trx, existing.id, provider.orgId))) {
    throw notAllowed(
      `The account of ${identity.email} also belongs to another organization, so this organization's single sign-on cannot sign in to it. ` +
        "Sign in with a one-time link from your Quire operator (`quire users login-link`).",
    );
  }
  if (existing.pending === 1 || (displayName && displayName !== existing.displayName)) {
    await updateUser(trx, existing.id, { pending: 0, ...(displayName ? { displayName } : {}) });
  }
  if (!ownVoucher) await setEmailVerification(trx, existing.id, vouched);
  return {
    user: {
      ...existing,
      ...verificationColumns(vouched),
      pending: 0,
      displayName: displayName || existing.displayName,
    },
    created: false,
  };
}
