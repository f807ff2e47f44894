import type { LinkInviteRow } from "../../db/schema.js";
import { isRole } from "../../permissions/roles.js";
import type { LinkInviteResponse } from "./invites.schemas.js";

/** An invite link to the organization (`InviteLinkToOrganization`). */
export function presentLinkInvite(invite: LinkInviteRow, redundant: boolean): LinkInviteResponse {
  return { object: "invite", id: invite.id, role: isRole(invite.role) ? invite.role : null, redundant };
}
