import type { TeamRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { presentMember } from "../members/members.presenter.js";
import type { MemberCounts } from "../members/members.queries.js";
import type { TeamCounts, TeamMemberRow } from "./teams.queries.js";
import type { TeamMemberResponse, TeamPermissionsValue, TeamResponse } from "./teams.schemas.js";

/** The public shape of a team (`OrganizationTeam`). */
export function presentTeam(team: TeamRow, counts: TeamCounts, permissions: TeamPermissionsValue): TeamResponse {
  return {
    object: "team",
    id: team.id,
    title: team.title,
    members: counts.members,
    spaces: counts.spaces,
    createdAt: team.createdAt,
    permissions,
  };
}

/** A member of a team (`OrganizationTeamMember`): who may view the team may view its members. */
export function presentTeamMember(
  row: TeamMemberRow,
  counts: MemberCounts,
  teamPermissions: TeamPermissionsValue,
  urls: Urls,
): TeamMemberResponse {
  return {
    organization: presentMember(row, counts, urls),
    team: { role: row.teamRole },
    permissions: { view: teamPermissions.view },
  };
}
