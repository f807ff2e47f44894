import type { Urls } from "../../http/urls.js";
import { isRole } from "../../permissions/roles.js";
import { presentUser } from "../users/users.presenter.js";
import type { MemberCounts, MemberWithUser } from "./members.queries.js";
import type { MemberResponse } from "./members.schemas.js";

/** The public shape of a membership (`OrganizationMember`); its id is the user's id. */
export function presentMember(member: MemberWithUser, counts: MemberCounts, urls: Urls): MemberResponse {
  return {
    object: "member",
    id: member.userId,
    role: isRole(member.role) ? member.role : null,
    user: presentUser(member.user, urls),
    disabled: member.disabled === 1,
    joinedAt: member.joinedAt,
    ...(member.lastSeenAt ? { lastSeenAt: member.lastSeenAt } : {}),
    sso: member.sso === 1,
    spaces: counts.spaces,
    teams: counts.teams,
  };
}
