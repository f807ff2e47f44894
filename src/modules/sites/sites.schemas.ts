/**
 * Docs sites (`Site`, `PublishedContentSite`, `SitePublishingAuth`, `SiteAdaptiveSchema` in
 * @gitbook/api 0.146.0), their route parameters and bodies.
 */
import Type, { type Static } from "typebox";
import { Id, ListQuery, Timestamp } from "../../http/schemas.js";
import { SiteCustomizationSchema } from "./customization.schemas.js";
import { SiteStructureSchema } from "./structure.schemas.js";

export const SiteParams = Type.Object({ organizationId: Id, siteId: Id });

export const SITE_TYPES = ["basic", "premium", "ultimate", "sponsored", "legacy-basic", "legacy-premium"] as const;
export const SiteType = Type.Enum([...SITE_TYPES], { description: "The type of the site (every feature is available on every type)" });

export const SITE_VISIBILITIES = ["public", "unlisted", "share-link", "visitor-auth"] as const;
export const SiteVisibility = Type.Enum([...SITE_VISIBILITIES], {
  description:
    "`public`: anyone, indexed by search engines; `unlisted`: anyone, not indexed; `share-link`: anyone with a share link's key in the URL; `visitor-auth`: visitors with a token signed by the site's key",
});
export type SiteVisibilityValue = Static<typeof SiteVisibility>;

export const SiteAgentsContext = Type.Enum(["excluded", "included"], { description: "Whether agents may read the site" });

export const SiteTitle = Type.String({ minLength: 2, maxLength: 128, description: "Title of the site" });

/** Lower-case letters, digits and single hyphens: the site is served at `/s/{basename}`. */
export const BASENAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SiteBasename = Type.String({
  minLength: 1,
  maxLength: 100,
  description:
    "Base name of the site, unique on this Quire: the site is served at `{QUIRE_PUBLIC_URL}/s/{basename}`. Lower-case letters, digits and hyphens.",
});

export const SiteProxyOrigin = Type.String({
  maxLength: 512,
  pattern: "^([\\w-]+\\.)*[\\w-]+\\.[a-zA-Z]{2,}(\\/[\\w-]+)+$",
  description: "Where a reverse proxy serves the site, without scheme: a host name and one or more path segments, e.g. `example.com/docs`",
});

export const SitePermissions = Type.Object(
  {
    view: Type.Boolean({ description: "Can see the site, its structure, share links (without their keys) and settings" }),
    edit: Type.Boolean({ description: "Can change the site's settings and structure, and its adaptive schema" }),
    publish: Type.Boolean({ description: "Can publish and unpublish the site" }),
    manageShareLinks: Type.Boolean({ description: "Can create, change, delete share links and read their keys" }),
    admin: Type.Boolean({ description: "Can delete the site and manage its visitor authentication (signing key)" }),
  },
  { description: "Quire extension: what the caller may do with the site" },
);
export type SitePermissionsValue = Static<typeof SitePermissions>;

const FEATURE_IDS = [
  "sites-adaptive-content",
  "sites-multivariant-site",
  "sites-public-visibility",
  "sites-redirects",
  "sites-sections",
  "sites-share-links",
  "sites-unlisted-visibility",
  "sites-visitor-authentication",
] as const;

export const SiteFeature = Type.Object({
  id: Type.Enum([...FEATURE_IDS]),
  plan: SiteType,
  frozen: Type.Boolean(),
});
/** Features a self-hosted site has, whatever its type. */
export const SITE_FEATURES = FEATURE_IDS;

/** A docs site (`Site`). */
export const SiteSchema = Type.Object({
  object: Type.Literal("site"),
  id: Type.String(),
  type: SiteType,
  title: Type.String(),
  basename: Type.String(),
  proxy: Type.Optional(Type.Object({ origin: Type.String(), target: Type.String() })),
  visibility: SiteVisibility,
  published: Type.Boolean(),
  siteSpaces: Type.Number({ description: "Count of the site's site spaces (those of deleted spaces left out)" }),
  createdAt: Timestamp,
  adaptiveContent: Type.Object({ enabled: Type.Boolean() }),
  agentsContext: SiteAgentsContext,
  features: Type.Array(SiteFeature),
  urls: Type.Object({
    location: Type.String(),
    app: Type.String(),
    published: Type.Optional(Type.String({ description: "Where the site is served; only when it is published" })),
  }),
  permissions: SitePermissions,
});
export type SiteResponse = Static<typeof SiteSchema>;

export const ListSitesQuery = Type.Object({
  ...ListQuery.properties,
  space: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only the sites that show this space" })),
  title: Type.Optional(Type.String({ maxLength: 256, description: "Case-insensitive part of the site's title" })),
  published: Type.Optional(Type.Boolean({ description: "Only published (true) or unpublished (false) sites" })),
  type: Type.Optional(Type.Array(SiteType, { maxItems: 6, description: "Only sites of these types" })),
});

export const CreateSiteBody = Type.Object({
  type: Type.Optional(SiteType),
  title: Type.Optional(SiteTitle),
  visibility: Type.Optional(SiteVisibility),
  spaces: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      maxItems: 100,
      description: "Spaces to show on the site, in order; each becomes a site space",
    }),
  ),
});
export type CreateSiteValue = Static<typeof CreateSiteBody>;

export const UpdateSiteBody = Type.Object({
  title: Type.Optional(SiteTitle),
  visibility: Type.Optional(SiteVisibility),
  basename: Type.Optional(SiteBasename),
  adaptiveContent: Type.Optional(Type.Object({ enabled: Type.Boolean() })),
  agentsContext: Type.Optional(SiteAgentsContext),
  defaultSiteSpace: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: "Site space served at the root (a site without sections) or in the default section (a site with sections)",
    }),
  ),
  defaultSiteSection: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Section served at the site's root" })),
  proxy: Type.Optional(Type.Union([SiteProxyOrigin, Type.Null()], { description: "null removes the proxy" })),
});
export type UpdateSiteValue = Static<typeof UpdateSiteBody>;

export const ShareKeyQuery = Type.Object({
  shareKey: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: "Key of an active share link: published URLs are built with it" }),
  ),
});

/** `PublishedContentSite`: what a reader at the site's root would see. */
export const PublishedContentSiteSchema = Type.Object({
  object: Type.Literal("published-content-site"),
  site: SiteSchema,
  structure: SiteStructureSchema,
  customizations: Type.Object({
    site: SiteCustomizationSchema,
    siteSpaces: Type.Record(Type.String(), SiteCustomizationSchema, {
      description: "Each shown site space's customization, by site space id",
    }),
  }),
  scripts: Type.Array(Type.Object({ script: Type.String(), contentSecurityPolicy: Type.Optional(Type.String()), cookies: Type.Boolean() })),
});

/** `POST {site}/publish`: a self-hosted build never needs a checkout, so it always answers the Site. */
export const PublishResponse = SiteSchema;

/** `SitePublishingAuth`: the visitor-token signing key of a site. */
export const PublishingAuthSchema = Type.Object({
  object: Type.Literal("publishing-auth"),
  backend: Type.Enum(["custom", "integration"]),
  privateKey: Type.String({ description: "Key that signs visitor tokens (HS256 JWTs); 256 random bits, base64url" }),
  fallbackURL: Type.Optional(Type.String()),
  oidcProvider: Type.Optional(
    Type.String({
      description: "Quire extension: the organization's OpenID Connect provider visitors sign in with (instead of fallbackURL)",
    }),
  ),
});
export type PublishingAuthResponse = Static<typeof PublishingAuthSchema>;

export const UpdatePublishingAuthBody = Type.Object({
  backend: Type.Enum(["custom", "integration"], {
    description: "`custom`: your backend signs visitor tokens with the key. `integration` is refused: Quire has no integrations",
  }),
  fallbackURL: Type.Optional(
    Type.Union([Type.String({ format: "uri", maxLength: 2048 }), Type.Null()], {
      description: "Where to send visitors whose token is not valid; null removes it",
    }),
  ),
  oidcProvider: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
      description:
        "Quire extension: id of an OpenID Connect provider of the organization; visitors without a valid token sign in with it, and its ID token's claims become their visitor claims. null removes it",
    }),
  ),
});

export const PreviewQuery = Type.Object({
  siteSpace: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Site space to preview (default: the site's root)" })),
  claims: Type.Optional(Type.String({ maxLength: 4096, description: "Rison-encoded visitor claims to preview with" })),
});

export const PreviewResponse = Type.Object({
  url: Type.String({ description: "Signed preview address, valid for one hour" }),
});

/** The JSON Schema of visitor claims (`SiteAdaptiveJSONSchema`); its shape is checked by adaptive.model.ts. */
export const AdaptiveJsonSchema = Type.Unsafe<Record<string, unknown>>({
  type: "object",
  additionalProperties: true,
  description:
    'A draft-07 JSON Schema: `{type: "object", properties: {...claims, unsigned?: {type: "object", description: "Unsigned claims of the site visitor.", properties, additionalProperties: false}}, additionalProperties: false}`. Claims are `{type: "boolean", description}`, `{type: "string", description, enum?}`, `{type: "number", description}`, `{type: "array", description, items}` or nested `{type: "object", description, properties, additionalProperties: false}`.',
});

export const AdaptiveSchemaSchema = Type.Object({
  object: Type.Literal("site-adaptive-schema"),
  jsonSchema: AdaptiveJsonSchema,
  updatedAt: Timestamp,
});

export const UpdateAdaptiveSchemaBody = Type.Object({ jsonSchema: AdaptiveJsonSchema });

export const TemplateConditionsResponse = Type.Object({
  items: Type.Array(Type.Object({ description: Type.String(), condition: Type.String() })),
});
