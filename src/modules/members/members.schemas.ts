import Type, { type Static } from "typebox";
import { ListQuery, Order, RoleOrGuest, Timestamp, UserSchema } from "../../http/schemas.js";
import { ROLES } from "../../permissions/roles.js";

export const MemberParams = Type.Object({
  organizationId: Type.String({ minLength: 1, maxLength: 100 }),
  userId: Type.String({ minLength: 1, maxLength: 100 }),
});

/** A user's membership of an organization (`OrganizationMember`). */
export const MemberSchema = Type.Object({
  object: Type.Literal("member"),
  id: Type.String({ description: "The user's id" }),
  role: RoleOrGuest,
  user: UserSchema,
  disabled: Type.Boolean(),
  joinedAt: Timestamp,
  lastSeenAt: Type.Optional(Timestamp),
  sso: Type.Boolean(),
  spaces: Type.Number({ description: "Spaces of the organization the user was given access to directly" }),
  teams: Type.Number({ description: "Teams of the organization the user belongs to" }),
});
export type MemberResponse = Static<typeof MemberSchema>;

export const ListMembersQuery = Type.Object({
  ...ListQuery.properties,
  order: Type.Optional(Order),
  role: Type.Optional(Type.Enum([...ROLES, "guest"], { description: "A role, or `guest` for members without one" })),
  search: Type.Optional(Type.String({ maxLength: 256, description: "Case-insensitive match on display name and email" })),
  sort: Type.Optional(Type.Enum(["joinedAt", "lastSeenAt"], { description: "`lastSeenAt` lists only members seen at least once" })),
});

export const UpdateMemberBody = Type.Object({ role: RoleOrGuest });

export const ListMemberTeamsQuery = Type.Object({
  ...ListQuery.properties,
  title: Type.Optional(Type.String({ maxLength: 256, description: "Case-insensitive part of the team's title" })),
});
