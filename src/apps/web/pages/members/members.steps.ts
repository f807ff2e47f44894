/** What the members page and its forms share: the organization's member permissions, checked as the API checks them. */
import { memberPermissions } from "../../../../modules/members/members.policy.js";
import type { OrgContext } from "../../web.steps.js";

/** The permissions of the signed-in member on `userId`'s membership (the API's policy). */
export function membershipPermissions(ctx: OrgContext, userId: string) {
  return memberPermissions(ctx.access, { userId });
}

export const membersPath = (orgId: string, done?: string) => `/app/o/${encodeURIComponent(orgId)}/members${done ? `?done=${done}` : ""}`;

export const MEMBER_NOTICES: Record<string, string> = {
  invited: "Invitations sent: the people invited are members now (an account is made for a new address).",
  "already-members": "Everyone invited was already a member: nothing changed.",
  role: "Role changed.",
  removed: "Member removed from the organization.",
};
