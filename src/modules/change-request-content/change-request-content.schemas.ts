/** Schemas of the content edit operation of later GitBook APIs (POST .../change-requests/{cr}/content). */
import Type, { type Static } from "typebox";
import { RichDocument } from "../../http/schemas.js";

export const MAX_CHANGES = 50;
export const MAX_FILES_PER_CHANGE = 20;
export const MAX_FILE_BYTES = 1024 * 1024;

const Markdown = Type.String({ maxLength: 2_000_000, description: "GitBook Markdown, with optional YAML front matter" });

/** `Document` of a page body: Markdown or a JSON document. */
export const DocumentInput = Type.Object({
  markdown: Type.Optional(Markdown),
  document: Type.Optional(RichDocument),
});

const PageMetadata = {
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  slug: Type.Optional(Type.String({ maxLength: 100 })),
  emoji: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Null()])),
  icon: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Null()])),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  hidden: Type.Optional(Type.Boolean()),
  noIndex: Type.Optional(Type.Boolean()),
  noRobotsIndex: Type.Optional(Type.Boolean()),
  condition: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
};

export const FileInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 256 }),
  ref: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  contentType: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  base64: Type.Optional(Type.String({ maxLength: Math.ceil(MAX_FILE_BYTES / 3) * 4 + 4 })),
});
export type FileInputValue = Static<typeof FileInput>;

/**
 * One change. The five operations share one object so that a wrong `operation` is answered with
 * the accepted values; which fields each operation needs is checked by the service, which names
 * the change (`body.changes.3.page is required for update_page`).
 */
export const ContentChange = Type.Object({
  operation: Type.Enum(["insert_page", "update_page", "delete_page", "revert_page", "insert_files"]),
  page: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "Page id (or the ref of a page inserted earlier in the batch)" }),
  ),
  document: Type.Optional(DocumentInput),
  kind: Type.Optional(
    Type.Enum(["document", "group"], {
      description: "insert_page: a document page (the default, with `document`) or a group, which holds pages and has no document",
    }),
  ),
  into: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], { description: "Parent page; null = the root" }),
  ),
  at: Type.Optional(Type.Integer({ minimum: 0, description: "Index among the new siblings (default: last)" })),
  ref: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Temporary id to link to the page within the batch" })),
  revision: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: "revert_page: the revision to revert to (default: the change request's base)",
    }),
  ),
  block: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      minItems: 1,
      maxItems: 1000,
      description: "revert_page: only these blocks",
    }),
  ),
  files: Type.Optional(Type.Array(FileInput, { minItems: 1, maxItems: MAX_FILES_PER_CHANGE })),
  ...PageMetadata,
});
export type ContentChangeValue = Static<typeof ContentChange>;

export const UpdateContentBody = Type.Object({
  changes: Type.Array(ContentChange, { minItems: 1, maxItems: MAX_CHANGES }),
});

export const UpdateContentQuery = Type.Object({
  compat: Type.Optional(
    Type.Boolean({ default: true, description: "true answers the ChangeRequest; false answers {changeRequest, changes, insertedFiles}" }),
  ),
});

const PageTouched = Type.Object({ object: Type.Literal("page"), id: Type.String(), urls: Type.Object({ location: Type.String() }) });

export const ContentChangeResult = Type.Object({
  object: Type.Enum(["created_page", "updated_page", "deleted_page"]),
  ref: Type.Optional(Type.String()),
  page: Type.Union([PageTouched, Type.String()]),
});
export type ContentChangeResultValue = Static<typeof ContentChangeResult>;
