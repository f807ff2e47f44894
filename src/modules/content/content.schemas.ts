/**
 * Response and query schemas of content reads (`Revision`, `RevisionPage*`, `RevisionFile`).
 * A page is serialized through one schema that covers the document, group and link variants
 * (`type` tells them apart); the variants' required fields are guaranteed by the presenter.
 */
import Type, { type Static } from "typebox";
import { Id, RichDocument, Timestamp } from "../../http/schemas.js";
import { ChangeRequestSchema } from "../change-requests/change-requests.schemas.js";

export const ContentQuery = Type.Object({
  metadata: Type.Optional(Type.Boolean({ default: true, description: "false omits mutable `git` metadata" })),
  computed: Type.Optional(Type.Boolean({ default: true, description: "false skips computed content (Quire has none)" })),
});

export const DocumentFormat = Type.Enum(["document", "markdown"]);
export const Evaluated = Type.Union([Type.Boolean(), Type.Literal("deterministic-only")], { default: false });

export const PageQuery = Type.Object({
  ...ContentQuery.properties,
  format: Type.Optional(DocumentFormat),
  evaluated: Type.Optional(Evaluated),
});

const GitBlob = Type.Object({ oid: Type.String(), path: Type.String() });
const ContentRef = Type.Record(Type.String(), Type.Unknown());

const LayoutSchema = Type.Object({
  width: Type.Enum(["default", "wide"]),
  cover: Type.Boolean(),
  coverSize: Type.Enum(["hero", "full"]),
  title: Type.Boolean(),
  description: Type.Boolean(),
  tableOfContents: Type.Boolean(),
  outline: Type.Boolean(),
  pagination: Type.Boolean(),
  metadata: Type.Boolean(),
});

export const PageSchema = Type.Cyclic(
  {
    RevisionPage: Type.Object({
      id: Type.String(),
      title: Type.String(),
      kind: Type.Enum(["sheet", "group", "link"]),
      type: Type.Enum(["document", "group", "link"]),
      emoji: Type.Optional(Type.String()),
      icon: Type.Optional(Type.String()),
      createdAt: Type.Optional(Timestamp),
      updatedAt: Type.Optional(Timestamp),
      urls: Type.Optional(Type.Object({ app: Type.String() })),
      slug: Type.Optional(Type.String()),
      path: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      pages: Type.Optional(Type.Array(Type.Ref("RevisionPage"))),
      git: Type.Optional(GitBlob),
      layout: Type.Optional(LayoutSchema),
      cover: Type.Optional(
        Type.Object({
          ref: Type.Optional(ContentRef),
          refDark: Type.Optional(ContentRef),
          yPos: Type.Number(),
          height: Type.Optional(Type.Number()),
        }),
      ),
      variables: Type.Optional(Type.Record(Type.String(), Type.String())),
      hidden: Type.Optional(Type.Boolean()),
      noIndex: Type.Optional(Type.Boolean()),
      noRobotsIndex: Type.Optional(Type.Boolean()),
      documentId: Type.Optional(Type.String()),
      target: Type.Optional(ContentRef),
      href: Type.Optional(Type.String()),
      document: Type.Optional(RichDocument),
      markdown: Type.Optional(Type.String()),
    }),
  },
  "RevisionPage",
);
export type PageResponse = {
  id: string;
  title: string;
  kind: "sheet" | "group" | "link";
  type: "document" | "group" | "link";
  pages?: PageResponse[];
  [key: string]: unknown;
};

export const FileSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  contentType: Type.String(),
  downloadURL: Type.String(),
  size: Type.Number(),
  dimensions: Type.Optional(Type.Object({ width: Type.Number(), height: Type.Number() })),
  git: Type.Optional(GitBlob),
});
export type FileResponse = Static<typeof FileSchema>;

export const ReusableContentSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  git: Type.Optional(GitBlob),
  document: Type.Optional(Type.String({ description: "Id of the document with the body" })),
});

export const GitCommitSchema = Type.Object({
  oid: Type.String(),
  message: Type.String(),
  // The seeds call it createdByService, GitBook's spec createdByGitBook: both are sent.
  createdByService: Type.Boolean(),
  createdByGitBook: Type.Boolean(),
  url: Type.Optional(Type.String()),
  ref: Type.Optional(Type.String()),
});

export const RevisionSchema = Type.Object({
  object: Type.Literal("revision"),
  id: Type.String(),
  type: Type.Enum(["edits", "merge", "rollback", "update", "computed"]),
  parents: Type.Array(Type.String()),
  pages: Type.Array(PageSchema),
  files: Type.Array(FileSchema),
  reusableContents: Type.Array(ReusableContentSchema),
  variables: Type.Record(Type.String(), Type.String()),
  createdAt: Timestamp,
  git: Type.Optional(GitCommitSchema),
  urls: Type.Object({ app: Type.String() }),
  mergedFrom: Type.Optional(ChangeRequestSchema),
});

export const PagesResponse = Type.Object({ pages: Type.Array(PageSchema) });

export const SpaceContentParams = Type.Object({ spaceId: Id });
export const PageParams = Type.Object({ spaceId: Id, pageId: Id });
export const FileParams = Type.Object({ spaceId: Id, fileId: Id });
export const RevisionParams = Type.Object({ spaceId: Id, revisionId: Id });
export const RevisionPageParams = Type.Object({ spaceId: Id, revisionId: Id, pageId: Id });
export const RevisionFileParams = Type.Object({ spaceId: Id, revisionId: Id, fileId: Id });
export const DocumentParams = Type.Object({ spaceId: Id, documentId: Type.String({ pattern: "^[0-9a-f]{64}$" }) });
