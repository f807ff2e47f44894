import Type, { type Static } from "typebox";
import { RoleOrGuest, Timestamp } from "../../http/schemas.js";
import { TeamSchema } from "../teams/teams.schemas.js";

const OrgId = Type.String({ minLength: 1, maxLength: 100 });

export const SamlProviderParams = Type.Object({ organizationId: OrgId, samlProviderId: Type.String({ minLength: 1, maxLength: 100 }) });

/** `SAMLProviderLabel`, shown on the sign-in page. */
export const SamlLabel = Type.String({ minLength: 1, maxLength: 30 });
/** `SAMLProviderEntityID`. */
export const SamlEntityId = Type.String({ maxLength: 1024 });
/** `SAMLProviderCertificate`: the identity provider's signing certificate, PEM. */
export const SamlCertificate = Type.String({ maxLength: 10000 });
/** `URL`. */
export const SamlUrl = Type.String({ format: "uri", maxLength: 2048 });

/** `SAMLProviderStatus`: `pending` until the entity ID, SSO URL and certificate are all set. */
export const SamlStatus = Type.Enum(["active", "pending"]);
export type SamlStatusValue = Static<typeof SamlStatus>;

/** `OrganizationSAMLProvider`. */
export const SamlProviderSchema = Type.Object({
  object: Type.Literal("saml-provider"),
  id: Type.String(),
  label: Type.String(),
  ssoURL: Type.String({ format: "uri", description: "The identity provider's single sign-on URL (`about:blank` until it is set)" }),
  entityID: Type.String(),
  certificate: Type.String(),
  defaultTeam: Type.Optional(TeamSchema),
  defaultRole: RoleOrGuest,
  createdAt: Timestamp,
  status: SamlStatus,
  service: Type.Object({
    acsURL: Type.String({ format: "uri", description: "Assertion Consumer Service URL to enter in the identity provider" }),
    startURL: Type.String({ format: "uri", description: "Where a member starts signing in with this provider" }),
    entityID: Type.String({ description: "This service provider's entity ID (the audience of the assertions)" }),
    sloURL: Type.String({
      format: "uri",
      description: "Quire extension: this service provider's single logout endpoint (HTTP-Redirect binding), also in the SP metadata",
    }),
    encryptionCertificate: Type.String({
      description:
        "PEM certificate the identity provider encrypts assertions to (also in the SP metadata at entityID); its private key never leaves this server",
    }),
  }),
  requireEncryptedAssertions: Type.Boolean({
    description: "Quire extension: when true, an assertion that is not encrypted to service.encryptionCertificate is refused",
  }),
  sloURL: Type.Optional(
    Type.String({
      format: "uri",
      description: "Quire extension: the identity provider's single logout URL (HTTP-Redirect binding); absent when single logout is off",
    }),
  ),
  urls: Type.Object({ location: Type.String() }),
});
export type SamlProviderResponse = Static<typeof SamlProviderSchema>;

export const CreateSamlProviderBody = Type.Object({
  label: SamlLabel,
  entityID: Type.Optional(SamlEntityId),
  certificate: Type.Optional(SamlCertificate),
  ssoURL: Type.Optional(SamlUrl),
  defaultTeam: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Id of a team of the organization" })),
  defaultRole: Type.Optional(RoleOrGuest),
  requireEncryptedAssertions: Type.Optional(Type.Boolean({ description: "Quire extension; false when omitted" })),
  /** Quire extension: the identity provider's single logout URL. */
  sloURL: Type.Optional(SamlUrl),
});
export type CreateSamlProviderValue = Static<typeof CreateSamlProviderBody>;

export const UpdateSamlProviderBody = Type.Object({
  label: Type.Optional(SamlLabel),
  entityID: Type.Optional(SamlEntityId),
  certificate: Type.Optional(SamlCertificate),
  ssoURL: Type.Optional(SamlUrl),
  defaultTeam: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
  defaultRole: Type.Optional(RoleOrGuest),
  requireEncryptedAssertions: Type.Optional(Type.Boolean({ description: "Quire extension" })),
  sloURL: Type.Optional(Type.Union([SamlUrl, Type.Null()], { description: "Quire extension: null turns single logout off" })),
});
export type UpdateSamlProviderValue = Static<typeof UpdateSamlProviderBody>;

/** `OrganizationSSOProviderLogin`. */
export const SsoLoginSchema = Type.Object({ id: Type.String(), label: Type.String(), startURL: Type.String({ format: "uri" }) });
export const SsoLoginsSchema = Type.Object({ items: Type.Array(SsoLoginSchema) });

export const SamlProviderPermissions = Type.Object({ view: Type.Boolean(), admin: Type.Boolean() });
export type SamlProviderPermissionsValue = Static<typeof SamlProviderPermissions>;
