import Type from "typebox";
import { ListQuery, RoleLevel, RoleOrGuest, UserSchema } from "../../http/schemas.js";
import { TeamSchema } from "../teams/teams.schemas.js";

const PrincipalIds = (what: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 100, description: `The ID of the ${what} to be invited` }), {
    minItems: 1,
    maxItems: 100,
  });

/**
 * `InviteUsersAndTeams`: a level (null removes the grants) for users and/or teams. The spec's
 * any-of (at least one list) is checked by the handler with a clear message.
 */
export const InviteBody = Type.Object({
  role: RoleOrGuest,
  users: Type.Optional(PrincipalIds("user")),
  teams: Type.Optional(PrincipalIds("team")),
});

export const UpdatePermissionBody = Type.Object({
  role: RoleOrGuest,
});

export const AggregateQuery = Type.Object({
  ...ListQuery.properties,
  role: Type.Optional(RoleLevel),
});

/** `UserContentPermission`. */
export const UserContentPermission = Type.Object({ permission: RoleLevel, user: UserSchema });

/** Items of the team permission lists. */
export const TeamContentPermission = Type.Object({ permission: RoleLevel, team: TeamSchema });

/** Body of `updateUserPermissionInSite` / `updateTeamPermissionInSite`: a `MemberRole`; absent (or null) removes the grant. */
export const SitePermissionBody = Type.Object({ role: Type.Optional(Type.Union([RoleLevel, Type.Null()])) });

/** `UserSitePermissionOverride` (0.202). */
export const UserSitePermission = Type.Object({ permission: RoleOrGuest, user: UserSchema });

/** `TeamSitePermissionOverride` (0.202). */
export const TeamSitePermission = Type.Object({ permission: RoleOrGuest, team: TeamSchema });
