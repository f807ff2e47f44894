import Type, { type Static } from "typebox";
import { ListQuery, Timestamp } from "../../http/schemas.js";
import { MemberSchema } from "../members/members.schemas.js";

const OrgId = Type.String({ minLength: 1, maxLength: 100 });
const UserRef = Type.String({ minLength: 1, maxLength: 320, description: "A user id or an email address" });

export const TeamParams = Type.Object({ organizationId: OrgId, teamId: Type.String({ minLength: 1, maxLength: 100 }) });
export const TeamMemberParams = Type.Object({
  organizationId: OrgId,
  teamId: Type.String({ minLength: 1, maxLength: 100 }),
  userId: Type.String({ minLength: 1, maxLength: 100 }),
});

/** `TeamMemberRole`: owners manage the team's members and title. */
export const TeamMemberRole = Type.Enum(["owner", "member"]);
export type TeamMemberRoleValue = Static<typeof TeamMemberRole>;

/** Title of a team (`OrganizationTeamTitle`). */
export const TeamTitle = Type.String({ minLength: 1, maxLength: 64 });

export const TeamPermissions = Type.Object({
  admin: Type.Boolean({ description: "Can manage the team: rename it and change its members" }),
  view: Type.Boolean({ description: "Can view the team and list its members" }),
});
export type TeamPermissionsValue = Static<typeof TeamPermissions>;

/** A team of an organization (`OrganizationTeam`). */
export const TeamSchema = Type.Object({
  object: Type.Literal("team"),
  id: Type.String(),
  title: Type.String(),
  members: Type.Integer({ description: "Count of members in the team" }),
  spaces: Type.Number({ description: "Count of spaces the team has access to" }),
  createdAt: Timestamp,
  permissions: TeamPermissions,
});
export type TeamResponse = Static<typeof TeamSchema>;

/** A user's place in a team (`TeamMember`). */
export const TeamMembershipSchema = Type.Object({ role: TeamMemberRole });

/** A member of a team with their organization membership (`OrganizationTeamMember`). */
export const TeamMemberSchema = Type.Object({
  organization: MemberSchema,
  team: TeamMembershipSchema,
  permissions: Type.Object({ view: Type.Boolean() }),
});
export type TeamMemberResponse = Static<typeof TeamMemberSchema>;

/** An item of a member's teams. */
export const MemberTeamSchema = Type.Object({ team: TeamSchema, member: TeamMembershipSchema });

export const ListTeamsQuery = Type.Object({
  ...ListQuery.properties,
  owner: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "A member's id: only the teams this member can manage" })),
  title: Type.Optional(Type.String({ maxLength: 256, description: "Case-insensitive part of the team's title" })),
});

export const CreateTeamBody = Type.Object({
  title: TeamTitle,
  members: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 1000, description: "Ids of organization members" }),
  ),
});

export const UpdateTeamBody = Type.Object({ title: TeamTitle });

/** `UpdateMembersInOrganizationTeam`: a user in both `add` and `remove` is removed. */
export const UpdateTeamMembersBody = Type.Object({
  add: Type.Optional(Type.Array(UserRef, { maxItems: 1000 })),
  remove: Type.Optional(Type.Array(UserRef, { maxItems: 1000 })),
  memberships: Type.Optional(
    Type.Record(Type.String(), TeamMembershipSchema, {
      maxProperties: 1000,
      propertyNames: { minLength: 1, maxLength: 100 },
      description: "Role per user id; adds the user when not yet in the team",
    }),
  ),
});
export type UpdateTeamMembersValue = Static<typeof UpdateTeamMembersBody>;

export const AddTeamMemberBody = Type.Object({ role: Type.Optional(TeamMemberRole) });
