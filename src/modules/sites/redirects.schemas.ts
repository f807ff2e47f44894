/** Site redirects: the shapes of @gitbook/api@0.202.0 (`SiteRedirect` and its operations). */
import Type, { type Static } from "typebox";
import { Id, ListQuery, Timestamp } from "../../http/schemas.js";

export const RedirectParams = Type.Object({ organizationId: Id, siteId: Id, siteRedirectId: Id });

/** `SiteRedirectSourcePath`: 0.202's pattern, a path from the site's root with at most a trailing wildcard. */
export const SourcePath = Type.String({
  maxLength: 512,
  pattern: "^\\/(?!\\*)(?!.*\\*.+)(?:[A-Za-z0-9\\-._~+]|%[0-9A-Fa-f]{2})+(?:\\/(?:[A-Za-z0-9\\-._~+]|%[0-9A-Fa-f]{2})+)*(?:\\/\\*|\\*)?$",
  description:
    "The source path to redirect from, from the site's root: '/' then segments of letters, digits, '-._~+' or %-escapes, optionally ending in '*' or '/*' (a wildcard).",
});

const DestinationSiteSection = Type.Object({ kind: Type.Literal("site-section"), siteSectionId: Id });
const DestinationSiteSpace = Type.Object({ kind: Type.Literal("site-space"), siteSpaceId: Id });
const DestinationPage = Type.Object({ kind: Type.Literal("site-page"), siteSpaceId: Id, pageId: Id });
const DestinationExternal = Type.Object({
  kind: Type.Literal("external"),
  url: Type.String({ maxLength: 2048, description: "An absolute http or https URL" }),
});
const DestinationPath = Type.Object({
  kind: Type.Literal("path"),
  spaceId: Id,
  path: Type.String({ minLength: 1, maxLength: 1024, description: "Path of a page in the space's current revision" }),
});

/** `SiteRedirectDestination`. */
export const Destination = Type.Union([DestinationSiteSection, DestinationSiteSpace, DestinationPage, DestinationExternal]);

/** `SiteRedirectInputDestination`: a destination, or a page by its path in a space the site shows (stored as `site-page`). */
export const InputDestination = Type.Union([
  DestinationSiteSection,
  DestinationSiteSpace,
  DestinationPage,
  DestinationExternal,
  DestinationPath,
]);
export type InputDestinationValue = Static<typeof InputDestination>;

/** `SiteRedirect`. */
export const SiteRedirectSchema = Type.Object({
  object: Type.Literal("site-redirect"),
  id: Type.String(),
  source: Type.String(),
  draft: Type.Boolean(),
  captureWildcard: Type.Boolean(),
  permanent: Type.Boolean(),
  destination: Destination,
  createdAt: Timestamp,
  updatedAt: Type.Optional(Timestamp),
});

export const ListRedirectsQuery = Type.Object({
  ...ListQuery.properties,
  search: Type.Optional(Type.String({ maxLength: 512, description: "Only redirects whose source contains this (case-insensitive)" })),
  draft: Type.Optional(Type.Boolean({ default: false, description: "List the draft redirects instead of the live ones" })),
  orderBy: Type.Optional(Type.Enum(["createdAt", "updatedAt", "source"], { default: "createdAt" })),
});

export const CreateRedirectBody = Type.Object({
  source: SourcePath,
  captureWildcard: Type.Optional(Type.Boolean({ default: false })),
  draft: Type.Optional(Type.Boolean({ default: false })),
  permanent: Type.Optional(Type.Boolean({ default: false })),
  destination: InputDestination,
});

export const UpdateRedirectBody = Type.Object({
  source: Type.Optional(SourcePath),
  captureWildcard: Type.Optional(Type.Boolean()),
  draft: Type.Optional(Type.Boolean()),
  permanent: Type.Optional(Type.Boolean()),
  destination: Type.Optional(Destination),
});

const PublishItem = Type.Object({ source: SourcePath, intent: Type.Literal("publish") });
const UpsertItem = Type.Object({
  source: SourcePath,
  intent: Type.Optional(Type.Enum(["live", "draft"], { description: "live (when absent) or draft" })),
  captureWildcard: Type.Optional(Type.Boolean()),
  permanent: Type.Optional(Type.Boolean()),
  destination: Type.Union([InputDestination, Type.Null()], { description: "null deletes the redirect of this source and intent" }),
});
export type BulkItem = Static<typeof PublishItem> | Static<typeof UpsertItem>;

export const BulkRedirectsBody = Type.Object({
  redirects: Type.Array(Type.Union([PublishItem, UpsertItem]), { minItems: 1, maxItems: 500 }),
});

const Done = <S extends string>(status: S) =>
  Type.Object({ status: Type.Literal(status), source: Type.String(), draft: Type.Boolean(), id: Type.String() });

export const BulkRedirectsResponse = Type.Object({
  results: Type.Array(
    Type.Union([
      Done("created"),
      Done("updated"),
      Type.Object({ status: Type.Literal("deleted"), source: Type.String(), draft: Type.Boolean() }),
      Done("published"),
      Type.Object({ status: Type.Literal("error"), source: Type.String(), draft: Type.Boolean(), error: Type.String() }),
    ]),
  ),
});
export type BulkResult = Static<typeof BulkRedirectsResponse>["results"][number];

export const RedirectBySourceQuery = Type.Object({
  source: SourcePath,
  shareKey: Type.Optional(Type.String({ maxLength: 200, description: "An active share link's key, put in the target URL" })),
});

export const RedirectBySourceResponse = Type.Object({ redirect: SiteRedirectSchema, target: Type.String() });
