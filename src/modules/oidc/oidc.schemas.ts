/** OpenID Connect providers of an organization (a Quire extension: GitBook's API has SAML only). */
import Type, { type Static } from "typebox";
import { RoleOrGuest, Timestamp } from "../../http/schemas.js";
import { TeamSchema } from "../teams/teams.schemas.js";

const OrgId = Type.String({ minLength: 1, maxLength: 100 });

export const OidcProviderParams = Type.Object({ organizationId: OrgId, oidcProviderId: Type.String({ minLength: 1, maxLength: 100 }) });

const Label = Type.String({ minLength: 1, maxLength: 30, description: "Shown on the sign-in button" });
const Issuer = Type.String({
  format: "uri",
  maxLength: 2048,
  description: "The issuer URL; Quire reads `{issuer}/.well-known/openid-configuration` (https, or http on a network the operator allowed)",
});
const ClientId = Type.String({ minLength: 1, maxLength: 512 });
const ClientSecret = Type.String({ minLength: 1, maxLength: 2048, description: "Stored encrypted; never returned" });
const Scopes = Type.String({
  minLength: 1,
  maxLength: 512,
  pattern: "^[\\x21\\x23-\\x5B\\x5D-\\x7E]+( [\\x21\\x23-\\x5B\\x5D-\\x7E]+)*$",
  description: "Space-separated scopes; `openid` is always asked for (default `openid email profile`)",
});
const Claim = Type.String({ minLength: 1, maxLength: 100, pattern: "^[A-Za-z0-9_:.\\-/]+$" });

export const OidcProviderSchema = Type.Object({
  object: Type.Literal("oidc-provider"),
  id: Type.String(),
  label: Type.String(),
  issuer: Type.String(),
  clientID: Type.String(),
  hasClientSecret: Type.Boolean({ description: "Whether a client secret is stored (it is never returned)" }),
  scopes: Type.String(),
  claims: Type.Object({ email: Type.String(), name: Type.String() }),
  defaultTeam: Type.Optional(TeamSchema),
  defaultRole: RoleOrGuest,
  createdAt: Timestamp,
  service: Type.Object({
    redirectURI: Type.String({ format: "uri", description: "The redirect URI to register with the provider" }),
    startURL: Type.String({ format: "uri", description: "Where a member starts signing in with this provider" }),
  }),
  urls: Type.Object({ location: Type.String() }),
});
export type OidcProviderResponse = Static<typeof OidcProviderSchema>;

export const CreateOidcProviderBody = Type.Object({
  label: Label,
  issuer: Issuer,
  clientID: ClientId,
  clientSecret: Type.Optional(ClientSecret),
  scopes: Type.Optional(Scopes),
  claims: Type.Optional(Type.Object({ email: Type.Optional(Claim), name: Type.Optional(Claim) }, { additionalProperties: false })),
  defaultTeam: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Id of a team of the organization" })),
  defaultRole: Type.Optional(RoleOrGuest),
});
export type CreateOidcProviderValue = Static<typeof CreateOidcProviderBody>;

export const UpdateOidcProviderBody = Type.Object({
  label: Type.Optional(Label),
  issuer: Type.Optional(Issuer),
  clientID: Type.Optional(ClientId),
  clientSecret: Type.Optional(Type.Union([ClientSecret, Type.Null()], { description: "null removes it (a public client)" })),
  scopes: Type.Optional(Scopes),
  claims: Type.Optional(Type.Object({ email: Type.Optional(Claim), name: Type.Optional(Claim) }, { additionalProperties: false })),
  defaultTeam: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
  defaultRole: Type.Optional(RoleOrGuest),
});
export type UpdateOidcProviderValue = Static<typeof UpdateOidcProviderBody>;
