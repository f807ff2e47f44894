import Type, { type Static } from "typebox";
import { Id, RoleLevel, RoleOrGuest } from "../../http/schemas.js";
import { CollectionSchema } from "../collections/collections.schemas.js";
import { SpaceSchema } from "../spaces/spaces.schemas.js";

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
  heldEmails: Type.Optional(
    Type.Array(Type.String(), {
      description:
        "Emails not added (a Quire extension, present when any): another organization's identity provider vouched for their account, " +
        "so the invitation is held until an operator verifies the address (`quire users verify`), for 30 days",
    }),
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

/** An invite link to a space (`InviteLinkToSpace`) or a collection (`InviteLinkToCollection`). */
export const SpaceLinkInviteSchema = Type.Object({
  object: Type.Literal("invite"),
  id: Type.String(),
  level: RoleLevel,
  redundant: Type.Boolean({ description: "The caller already has this level or a higher one on the space" }),
  space: SpaceSchema,
});
export const CollectionLinkInviteSchema = Type.Object({
  object: Type.Literal("invite"),
  id: Type.String(),
  level: RoleLevel,
  redundant: Type.Boolean({ description: "The caller already has this level or a higher one on the collection" }),
  collection: CollectionSchema,
});
/** `OrganizationInviteLink`: any of the three kinds. */
export const AnyLinkInviteSchema = Type.Union([LinkInviteSchema, SpaceLinkInviteSchema, CollectionLinkInviteSchema]);

/**
 * `CreateOrganizationInvite`: to the organization with a role (null = guest), or to a space or a
 * collection with a level (the holder becomes a member of the organization, a guest when new).
 */
export const CreateLinkInviteBody = Type.Union([
  Type.Object({ role: RoleOrGuest }),
  Type.Object({ level: RoleOrGuest, space: Id }),
  Type.Object({ level: RoleOrGuest, collection: Id }),
]);

export const UpdateLinkInviteBody = Type.Union([Type.Object({ role: RoleOrGuest }), Type.Object({ level: RoleOrGuest })]);

export const JoinWithInviteResponse = Type.Object({});
