/**
 * Whose word an account's email address rests on, and where that word counts.
 *
 * An operator (the command line) and a sign-in link the operator handed out vouch for an address
 * everywhere. An organization's SAML identity provider is trusted by its own organization only: an
 * address it vouched for is verified inside that organization and nowhere else, so it never joins
 * another organization by email domain nor receives another organization's email invitation
 * (those are held until the address is verified for every organization). Pure.
 */
import type { UserRow } from "../../db/schema.js";

/** Who verified an account's address (users.email_verified_via and email_vouched_by). */
export type EmailVerification =
  /** Created or verified with the command line (`quire init`, `users create`, `users verify`). */
  | { via: "operator" }
  /** Signed in with an operator's one-time link. */
  | { via: "sign-in-link" }
  /** An organization's identity provider vouched for it; `orgId` null when it is not known which. */
  | { via: "idp"; orgId: string | null }
  /** Nobody: an invitation created the account. */
  | { via: null };

type VerificationColumns = Pick<UserRow, "emailVerified" | "emailVerifiedVia" | "emailVouchedBy">;

export function emailVerificationOf(user: VerificationColumns): EmailVerification {
  if (user.emailVerified === 1) return { via: user.emailVerifiedVia === "sign-in-link" ? "sign-in-link" : "operator" };
  if (user.emailVerifiedVia === "idp") return { via: "idp", orgId: user.emailVouchedBy };
  return { via: null };
}

/** Whether the address is verified for every organization (the operator or a sign-in link vouched for it). */
export function addressVerifiedEverywhere(user: VerificationColumns): boolean {
  return user.emailVerified === 1;
}

/** Whether the address counts as verified for this organization: everywhere, or vouched by this organization's own provider. */
export function addressVerifiedFor(user: VerificationColumns, orgId: string): boolean {
  const verification = emailVerificationOf(user);
  return (
    verification.via === "operator" || verification.via === "sign-in-link" || (verification.via === "idp" && verification.orgId === orgId)
  );
}

/** Whether this organization's own identity provider vouched for the address (and nobody more widely). */
export function vouchedByOrganization(user: VerificationColumns, orgId: string): boolean {
  const verification = emailVerificationOf(user);
  return verification.via === "idp" && verification.orgId === orgId;
}

/**
 * Whether the account's address rests on another organization's identity provider alone: such an
 * account is that organization's, and an email invitation to `orgId` must not be given to it.
 */
export function vouchedOnlyByAnotherOrganization(user: VerificationColumns, orgId: string): boolean {
  const verification = emailVerificationOf(user);
  return verification.via === "idp" && verification.orgId !== orgId;
}
