import type { OrgAccess } from "../../permissions/access.js";
import type { SamlProviderPermissionsValue } from "./saml.schemas.js";

/**
 * What the caller may do with the organization's SAML providers. Single sign-on is the
 * organization's security setting: only its admins read and manage providers. Other members see
 * the organization, so they are told no (403); outsiders see nothing (404).
 */
export function samlProviderPermissions(access: Pick<OrgAccess, "membership"> | undefined): SamlProviderPermissionsValue {
  const membership = access?.membership;
  return { view: !!membership, admin: membership?.role === "admin" };
}

/** Whether a member may list the organization's sign-in options (`GET {org}/sso`): every member. */
export function ssoLoginPermissions(access: Pick<OrgAccess, "membership"> | undefined): { view: boolean } {
  return { view: !!access?.membership };
}

/**
 * Whether a signed-in person may use an organization in the web app. An organization with
 * `sso: true` admits its non-admin members only through one of its own identity providers (SAML or
 * OpenID Connect); admins may
 * also come in by another way (a sign-in link), so that they can repair a broken configuration.
 */
export function webAccessAllowed(
  org: { id: string; sso: number },
  membership: { role: string | null } | undefined,
  signedInWith: { method: "saml" | "oidc"; orgId: string } | { method: "link" },
): boolean {
  if (!membership) return false;
  if (org.sso !== 1 || membership.role === "admin") return true;
  return signedInWith.method !== "link" && signedInWith.orgId === org.id;
}
