import Type, { type Static } from "typebox";
import { RichDocument, RoleOrGuest, Timestamp } from "../../http/schemas.js";
import { OrganizationMergeRules } from "../merge-rules/merge-rules.schemas.js";

export const OrganizationParams = Type.Object({ organizationId: Type.String({ minLength: 1, maxLength: 100 }) });

export const EmailDomain = Type.String({
  minLength: 3,
  maxLength: 253,
  pattern: "^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\\.)+[a-zA-Z]{2,63}$",
  description: "A domain name such as example.com",
});

export const OrganizationPermissions = Type.Object({
  view: Type.Boolean(),
  admin: Type.Boolean(),
  ownTeam: Type.Boolean(),
  createContent: Type.Boolean(),
  createOpenAPISpec: Type.Boolean(),
  ingestConversations: Type.Boolean(),
  viewBilling: Type.Boolean(),
  listMembers: Type.Boolean(),
  listTeams: Type.Boolean(),
  listIntegrations: Type.Boolean(),
  listInstallations: Type.Boolean(),
  installIntegration: Type.Boolean(),
});
export type OrganizationPermissionsValue = Static<typeof OrganizationPermissions>;

const OrganizationType = Type.Enum(["business", "community"]);
const OrganizationUseCase = Type.Enum([
  "internalDocs",
  "docsSite",
  "audienceControlledSite",
  "productDocs",
  "teamKnowledgeBase",
  "designSystem",
  "openSourceDocs",
  "notes",
  "other",
]);
const OrganizationCommunityType = Type.Enum(["nonProfit", "openSource", "education"]);
const SitePointer = Type.Object({ type: Type.Literal("site"), site: Type.String({ minLength: 1, maxLength: 100 }) });

export const OrganizationSchema = Type.Object({
  object: Type.Literal("organization"),
  id: Type.String(),
  title: Type.String(),
  createdAt: Timestamp,
  emailDomains: Type.Array(Type.String()),
  hostname: Type.Optional(Type.String()),
  type: OrganizationType,
  useCase: Type.Optional(OrganizationUseCase),
  communityType: Type.Optional(OrganizationCommunityType),
  defaultRole: RoleOrGuest,
  defaultContent: Type.Optional(SitePointer),
  sso: Type.Boolean(),
  ai: Type.Boolean(),
  inviteLinks: Type.Boolean(),
  plan: Type.String(),
  mergeRules: OrganizationMergeRules,
  urls: Type.Object({
    location: Type.String(),
    app: Type.String(),
    logo: Type.Optional(Type.String()),
  }),
  trial: Type.Object({ status: Type.String(), count: Type.Integer() }),
  permissions: OrganizationPermissions,
});
export type OrganizationResponse = Static<typeof OrganizationSchema>;

const Title = Type.String({ minLength: 2, maxLength: 255 });
const EmailDomains = Type.Array(EmailDomain, { maxItems: 50 });

export const CreateOrganizationBody = Type.Object({
  title: Title,
  emailDomains: Type.Optional(EmailDomains),
  type: Type.Optional(OrganizationType),
  useCase: Type.Optional(OrganizationUseCase),
  communityType: Type.Optional(OrganizationCommunityType),
});

export const UpdateOrganizationBody = Type.Object({
  title: Type.Optional(Title),
  emailDomains: Type.Optional(EmailDomains),
  hostname: Type.Optional(Type.String({ minLength: 3, maxLength: 32, pattern: "^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$" })),
  defaultRole: Type.Optional(RoleOrGuest),
  defaultContent: Type.Optional(Type.Union([SitePointer, Type.Null()])),
  logo: Type.Optional(Type.Union([Type.String({ format: "uri", maxLength: 2048 }), Type.Null()])),
  sso: Type.Optional(Type.Boolean()),
  ai: Type.Optional(Type.Boolean()),
  inviteLinks: Type.Optional(Type.Boolean()),
  mergeRules: Type.Optional(OrganizationMergeRules),
});
export type UpdateOrganizationValue = Static<typeof UpdateOrganizationBody>;

export const AgentInstructionsSchema = Type.Object({
  object: Type.Literal("agent-instructions"),
  instructions: RichDocument,
  updatedAt: Timestamp,
  updatedBy: Type.String(),
  urls: Type.Object({ location: Type.String() }),
});

export const UpdateAgentInstructionsBody = Type.Object({ instructions: RichDocument });

export const PingResponse = Type.Object({ serviceVisitorClaims: Type.Optional(Type.String()) });

export const OrganizationsForDomain = Type.Object({ organizations: Type.Array(OrganizationSchema) });
