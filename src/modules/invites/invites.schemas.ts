import Type, { type Static } from "typebox";
import { Id, RoleOrGuest } from "../../http/schemas.js";

export const InviteParams = Type.Object({
  organizationId: Type.String({ minLength: 1, maxLength: 100 }),
  inviteId: Type.String({ minLength: 1, maxLength: 100 }),
});

const Email = Type.String({ minLength: 1, maxLength: 320, description: "The email address of the user to invite" });

/** `InviteUsersToOrganization`. */
export const InviteUsersBody = Type.Object({
  // The object form comes first so that a malformed object is reported by its missing field.
  emails: Type.Array(Type.Union([Type.Object({ email: Email, role: RoleOrGuest }), Email]), { minItems: 1, maxItems: 100 }),
  role: Type.Optional(RoleOrGuest),
  sso: Type.Optional(Type.Boolean({ description: "Invite as SSO members; defaults to false" })),
});
export type InviteUsersValue = Static<typeof InviteUsersBody>;

export const InviteUsersResponse = Type.Object({
  users: Type.Array(Type.String(), { description: "Ids of the users added to the organization" }),
  invited: Type.Number({ description: "How many users were added" }),
  failedSSOEmails: Type.Optional(
    Type.Array(Type.String(), { description: "Emails added without SSO because they belong to another organization" }),
  ),
});
export type InviteUsersResult = Static<typeof InviteUsersResponse>;

/** An invite link to the organization (`InviteLinkToOrganization`). */
export const LinkInviteSchema = Type.Object({
  object: Type.Literal("invite"),
  id: Type.String(),
  role: RoleOrGuest,
  redundant: Type.Boolean({ description: "The caller already has this role or a higher one" }),
});
export type LinkInviteResponse = Static<typeof LinkInviteSchema>;

/** `CreateOrganizationInvite`: to the organization with a role, or to a space or a collection with a level. */
export const CreateLinkInviteBody = Type.Union([
  Type.Object({ role: RoleOrGuest }),
  Type.Object({ level: RoleOrGuest, space: Id }),
  Type.Object({ level: RoleOrGuest, collection: Id }),
]);

export const UpdateLinkInviteBody = Type.Union([Type.Object({ role: RoleOrGuest }), Type.Object({ level: RoleOrGuest })]);

export const JoinWithInviteResponse = Type.Object({});
