import Type, { type Static } from "typebox";
import { ListQuery, Timestamp } from "../../http/schemas.js";

const OrgId = Type.String({ minLength: 1, maxLength: 100 });
/** Path parameter: any string up to the slug's length (an unknown slug is a 404, not a 400). */
const SlugParam = Type.String({ minLength: 1, maxLength: 100 });

export const OpenAPIOrgParams = Type.Object({ organizationId: OrgId });
export const OpenAPISpecParams = Type.Object({ organizationId: OrgId, specSlug: SlugParam });
export const OpenAPISpecVersionParams = Type.Object({
  organizationId: OrgId,
  specSlug: SlugParam,
  versionId: Type.String({ minLength: 1, maxLength: 100 }),
});

/** `OpenAPISpecSlug` as the seed gives it: alphanumeric groups separated by single hyphens. */
export const OpenAPISpecSlug = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: "^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$",
  description: "Slug used as reference: letters and digits in groups separated by single hyphens",
});

/**
 * `OpenAPISpecSource`: `{url}` (fetched, then re-fetched on a schedule) or `{text}` (the document
 * itself, JSON or YAML). Declared as one object so that a wrong body gets one clear message (the
 * route checks that exactly one of the two is given).
 */
export const OpenAPISpecSource = Type.Object(
  {
    url: Type.Optional(Type.String({ format: "uri", maxLength: 2048, description: "http(s) URL of the document" })),
    text: Type.Optional(Type.String({ minLength: 1, description: "The OpenAPI document as text (JSON or YAML)" })),
  },
  { description: "Either `url` or `text`" },
);
export type OpenAPISpecSourceValue = Static<typeof OpenAPISpecSource>;

export const CreateOpenAPISpecBody = Type.Object({ slug: OpenAPISpecSlug, source: OpenAPISpecSource });
export const PutOpenAPISpecBody = Type.Object({ source: OpenAPISpecSource });

export const OpenAPISpecVisibility = Type.Enum(["private", "public"], {
  description: "`private`: members only; `public`: anyone with the spec's URL can read the processed document",
});
export type OpenAPISpecVisibilityValue = Static<typeof OpenAPISpecVisibility>;
export const UpdateOpenAPISpecBody = Type.Object({ visibility: OpenAPISpecVisibility });

export const ListOpenAPISpecsQuery = ListQuery;

export const OpenAPISpecPermissions = Type.Object({
  view: Type.Boolean({ description: "Can the user view the specification" }),
  edit: Type.Boolean({ description: "Can the user edit the specification" }),
});
export type OpenAPISpecPermissionsValue = Static<typeof OpenAPISpecPermissions>;

export const OpenAPISpecProcessingState = Type.Enum(["pending", "progress", "complete"]);
export type ProcessingStateValue = Static<typeof OpenAPISpecProcessingState>;
export const OpenAPISpecProcessingErrorCode = Type.Enum(["FETCH_TIMEOUT", "FETCH_ERROR", "PARSE_ERROR"]);

export const OpenAPIErrorObject = Type.Object({
  message: Type.String({ description: "What is wrong, and where (JSON pointer, line and column when known)" }),
  code: Type.Optional(Type.String()),
});

/** `OpenAPISpec`. */
export const OpenAPISpecSchema = Type.Object({
  object: Type.Literal("openapi-spec"),
  id: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  slug: Type.String(),
  sourceURL: Type.Optional(Type.String()),
  processingState: OpenAPISpecProcessingState,
  visibility: Type.Optional(OpenAPISpecVisibility),
  lastVersion: Type.Optional(Type.String({ description: "ID of the latest version" })),
  lastProcessedAt: Type.Optional(Timestamp),
  lastProcessErrorCode: Type.Optional(OpenAPISpecProcessingErrorCode),
  lastProcessedErrors: Type.Optional(Type.Array(OpenAPIErrorObject)),
  permissions: OpenAPISpecPermissions,
  urls: Type.Object({
    location: Type.String(),
    app: Type.String(),
    published: Type.Optional(Type.String({ description: "Where anyone can read the latest processed document (public specs)" })),
  }),
});
export type OpenAPISpecResponse = Static<typeof OpenAPISpecSchema>;

/** `OpenAPISpecVersion`. */
export const OpenAPISpecVersionSchema = Type.Object({
  object: Type.Literal("openapi-spec-version"),
  id: Type.String(),
  createdAt: Timestamp,
  url: Type.String({ description: "Where the processed document of this version can be read" }),
  urls: Type.Object({ location: Type.String() }),
});
export type OpenAPISpecVersionResponse = Static<typeof OpenAPISpecVersionSchema>;

/**
 * `OpenAPISpecContent`: the files GitBook's renderer reads by path (one entry file holding the
 * bundled document; the contract types `filesystem` as an object) and the URL of the processed
 * document.
 */
export const OpenAPISpecContentSchema = Type.Object({
  filesystem: Type.Record(
    Type.String(),
    Type.Object({
      dir: Type.String(),
      isEntrypoint: Type.Boolean(),
      references: Type.Array(Type.String()),
      filename: Type.String(),
      specification: Type.Unknown(),
    }),
  ),
  url: Type.String(),
});
