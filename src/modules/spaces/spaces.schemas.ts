import Type, { type Static } from "typebox";
import { DefaultLevel, Id, ListQuery, Order, RoleLevel, Timestamp } from "../../http/schemas.js";
import { MergeRule, SpaceMergeRules } from "../merge-rules/merge-rules.schemas.js";

export const SpaceParams = Type.Object({ spaceId: Id });

export const SpaceTitle = Type.String({ minLength: 1, maxLength: 50, description: "Title of the space" });
export const Emoji = Type.String({ maxLength: 50, description: "Unicode character of the emoji" });
export const IconUrl = Type.String({ format: "uri", maxLength: 2048 });

/** `TranslationLanguage`: the 38 languages a space may be written in. */
export const LANGUAGES = [
  "en",
  "fr",
  "de",
  "es",
  "it",
  "pt",
  "pt-br",
  "ru",
  "ja",
  "zh",
  "yue",
  "ko",
  "ar",
  "hi",
  "nl",
  "pl",
  "tr",
  "sv",
  "no",
  "da",
  "fi",
  "el",
  "cs",
  "hu",
  "ro",
  "th",
  "vi",
  "id",
  "ms",
  "he",
  "uk",
  "sk",
  "bg",
  "hr",
  "lt",
  "lv",
  "et",
  "sl",
] as const;
export const Language = Type.Enum([...LANGUAGES]);

export const EDIT_MODES = ["live", "locked"] as const;
export const EditMode = Type.Enum([...EDIT_MODES]);

export const VISIBILITIES = ["public", "unlisted", "share-link", "visitor-auth", "in-collection", "private"] as const;
export const Visibility = Type.Enum([...VISIBILITIES]);

export const SpacePermissions = Type.Object({
  view: Type.Boolean(),
  access: Type.Boolean(),
  admin: Type.Boolean(),
  viewInviteLinks: Type.Boolean(),
  edit: Type.Boolean(),
  triggerGitSync: Type.Boolean(),
  comment: Type.Boolean(),
  merge: Type.Boolean(),
  review: Type.Boolean(),
  installIntegration: Type.Boolean(),
});
export type SpacePermissionsValue = Static<typeof SpacePermissions>;

/** One import or export as the space records it (a Quire extension of `GitSyncState`). */
export const GitSyncRun = Type.Object({
  status: Type.Enum(["pending", "running", "succeeded", "failed", "skipped"]),
  requestedAt: Timestamp,
  startedAt: Type.Optional(Timestamp),
  finishedAt: Type.Optional(Timestamp),
  /** The Git commit imported or pushed. */
  commit: Type.Optional(Type.String()),
  /** The revision created by an import. */
  revision: Type.Optional(Type.String()),
  /** Why it was skipped, or what went wrong (credentials removed). */
  message: Type.Optional(Type.String()),
  warnings: Type.Optional(Type.Array(Type.String())),
});

/**
 * `GitSyncState`, plus what a self-hosted user needs to see the state of the synchronisation:
 * the remote (credentials removed), ref, project directory and the last import and export.
 */
export const GitSyncState = Type.Object({
  repoName: Type.Optional(Type.String()),
  installationProvider: Type.Optional(Type.Enum(["github", "gitlab", "github-legacy"])),
  integration: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  updatedAt: Type.Optional(Timestamp),
  remote: Type.Optional(Type.String()),
  ref: Type.Optional(Type.String()),
  projectDirectory: Type.Optional(Type.String()),
  /** Where the pages are in the repository (the project directory and `.gitbook.yaml`'s root), as of the last import. */
  contentRoot: Type.Optional(Type.String()),
  /**
   * The last import's `repoTreeURL`: links to files of the repository that are not imported (outside
   * the root, Markdown SUMMARY.md does not list) point under it.
   */
  repoTreeURL: Type.Optional(Type.String()),
  /** Latest `timestamp` of an applied import or export: older ones are ignored. */
  lastTimestamp: Type.Optional(Timestamp),
  lastImport: Type.Optional(GitSyncRun),
  lastExport: Type.Optional(GitSyncRun),
});
export type GitSyncStateValue = Static<typeof GitSyncState>;

/** `VisitorAuth`. */
export const VisitorAuth = Type.Union([
  Type.Object({ backend: Type.Literal("custom") }),
  Type.Object({ backend: Type.Literal("integration"), integration: Type.String() }),
]);
export type VisitorAuthValue = Static<typeof VisitorAuth>;

/** `Space` in the spec. */
export const SpaceSchema = Type.Object({
  object: Type.Literal("space"),
  id: Type.String(),
  title: Type.String(),
  emoji: Type.String(),
  visibility: Visibility,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deletedAt: Type.Optional(Timestamp),
  editMode: Type.Optional(EditMode),
  mergeRules: SpaceMergeRules,
  urls: Type.Object({
    location: Type.String(),
    app: Type.String(),
    published: Type.Optional(Type.String()),
    public: Type.Optional(Type.String()),
    icon: Type.Optional(Type.String()),
  }),
  organization: Type.String(),
  parent: Type.Optional(Type.String()),
  language: Type.Optional(Language),
  gitSync: Type.Optional(GitSyncState),
  visitorAuth: Type.Optional(VisitorAuth),
  revision: Type.String(),
  defaultLevel: DefaultLevel,
  comments: Type.Number(),
  changeRequests: Type.Number(),
  changeRequestsOpen: Type.Number(),
  changeRequestsDraft: Type.Number(),
  permissions: SpacePermissions,
});
export type SpaceResponse = Static<typeof SpaceSchema>;

export const CreateSpaceBody = Type.Object({
  title: Type.Optional(SpaceTitle),
  emoji: Type.Optional(Emoji),
  parent: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "ID of a parent collection" })),
  language: Type.Optional(Language),
  editMode: Type.Optional(EditMode),
  empty: Type.Optional(Type.Literal(true, { description: "Create a space with no page (every new space is empty for now)" })),
  template: Type.Optional(Type.Unknown({ description: "Not supported yet: answered with 400" })),
  computedSource: Type.Optional(Type.Unknown({ description: "Not supported yet: answered with 400" })),
});

/**
 * `MergeRulesSpaceConfiguration` (inherit | rules | none) as one object, so that a wrong `type` is
 * answered with the three accepted values; the handler requires `rules` with type "rules".
 */
export const MergeRulesInput = Type.Object({
  type: Type.Enum(["inherit", "rules", "none"]),
  rules: Type.Optional(Type.Array(MergeRule, { maxItems: 50 })),
});
export type MergeRulesInputValue = Static<typeof MergeRulesInput>;

/**
 * The spec's allOf[settings, oneOf[{emoji}, {icon}, {emoji?: null, icon?: null}]], flattened: the
 * one-of rule (not both an emoji and an icon) is checked by the handler with a clear message.
 */
export const UpdateSpaceBody = Type.Object({
  editMode: Type.Optional(EditMode),
  title: Type.Optional(SpaceTitle),
  defaultLevel: Type.Optional(DefaultLevel),
  language: Type.Optional(Language),
  mergeRules: Type.Optional(MergeRulesInput),
  emoji: Type.Optional(Type.Union([Emoji, Type.Null()])),
  icon: Type.Optional(Type.Union([IconUrl, Type.Null()])),
});
export type UpdateSpaceValue = Static<typeof UpdateSpaceBody>;

export const GetSpaceQuery = Type.Object({
  shareKey: Type.Optional(
    Type.String({
      maxLength: 1024,
      description: "Resolves published URLs of share-link sites; accepted and ignored until sites exist",
    }),
  ),
});

export const MemberSpacesParams = Type.Object({ organizationId: Id, userId: Id });
export const MemberSpacesQuery = Type.Object({
  ...ListQuery.properties,
  order: Type.Optional(Order),
});

/** `MemberContentPermission`. */
export const MemberContentPermission = Type.Object({
  permission: RoleLevel,
  space: SpaceSchema,
});
