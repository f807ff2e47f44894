/**
 * Request and response schemas of change requests (`ChangeRequest` and the operations on it in
 * @gitbook/api 0.146), the content edit operation of later GitBook APIs, and Quire's conflicts list.
 */
import Type, { type Static } from "typebox";
import { Id, ListQuery, RichDocument, Timestamp, UserSchema } from "../../http/schemas.js";

export const CHANGE_REQUEST_STATUSES = ["draft", "open", "archived", "merged"] as const;
export type ChangeRequestStatus = (typeof CHANGE_REQUEST_STATUSES)[number];

/** Statuses whose content may still change (edits, updates, merge). */
export const WRITABLE_STATUSES: readonly ChangeRequestStatus[] = ["draft", "open"];

export const ChangeRequestStatusSchema = Type.Enum([...CHANGE_REQUEST_STATUSES]);

export const ChangeRequestSubject = Type.String({ maxLength: 100, description: "Subject of the change request" });

/** `ChangeRequest`. */
export const ChangeRequestSchema = Type.Object({
  object: Type.Literal("change-request"),
  id: Type.String(),
  number: Type.Number({ description: "Counts up from 1 within the space" }),
  status: ChangeRequestStatusSchema,
  subject: Type.String(),
  description: Type.Optional(RichDocument),
  createdBy: UserSchema,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  space: Type.String(),
  revision: Type.String({ description: "Head revision of the change request" }),
  revisionInitial: Type.String({ description: "The primary revision it was created from" }),
  revisionMergedAncestor: Type.Optional(Type.String({ description: "The primary revision it was last updated from" })),
  revisionMerged: Type.Optional(Type.String({ description: "Once merged, the merge revision of the primary content" })),
  comments: Type.Number(),
  outdated: Type.Boolean({ description: "True when the primary content changed since the change request was created or last updated" }),
  conversationsIssuesCluster: Type.Optional(Type.String()),
  urls: Type.Object({ app: Type.String(), location: Type.String() }),
});
export type ChangeRequestResponse = Static<typeof ChangeRequestSchema>;

export const ChangeRequestParams = Type.Object({
  spaceId: Id,
  changeRequestId: Type.String({ minLength: 1, maxLength: 100, description: "The change request's id or its number in the space" }),
});

export const ListChangeRequestsQuery = Type.Object({
  ...ListQuery.properties,
  status: Type.Optional(ChangeRequestStatusSchema),
  creator: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only change requests created by this user" })),
  contributor: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only change requests this user contributed to" })),
  requestedReviewer: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "Only change requests where this user's review is requested" }),
  ),
  conversationsIssuesCluster: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});
export type ListChangeRequestsQueryValue = Static<typeof ListChangeRequestsQuery>;

/** Where a template's content references point (accepted for GitBook compatibility). */
const TemplateInput = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  params: Type.Optional(
    Type.Object({ contentRefs: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))) }),
  ),
});

export const CreateChangeRequestBody = Type.Object(
  {
    subject: Type.Optional(ChangeRequestSubject),
    template: Type.Optional(TemplateInput),
    agentTaskId: Type.Optional(Type.String({ maxLength: 100, description: "Accepted and ignored: Quire has no agent tasks" })),
    conversationsIssuesCluster: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: true },
);

export const UpdateChangeRequestBody = Type.Object({
  subject: Type.Optional(ChangeRequestSubject),
  status: Type.Optional(Type.Enum(["draft", "open", "archived"])),
  description: Type.Optional(RichDocument),
});
export type UpdateChangeRequestValue = Static<typeof UpdateChangeRequestBody>;

export const MergeResponse = Type.Object({
  revision: Type.String({ description: "The merge revision, or the unchanged primary revision when there are conflicts" }),
  result: Type.Enum(["merge", "conflicts"]),
});

export const UpdateResponse = Type.Object({
  revision: Type.String({ description: "The change request's new head, or its unchanged head when there are conflicts" }),
  result: Type.Enum(["update", "conflicts"]),
});

/** `ChangeRequestUserContributor`. */
export const ContributorSchema = Type.Object({
  updatedAt: Timestamp,
  count: Type.Integer(),
  user: UserSchema,
  actionType: Type.Enum(["edit", "comment"]),
});

const ChangedPage = Type.Object({
  id: Type.String(),
  type: Type.Enum(["document", "group", "link"]),
  title: Type.String(),
  path: Type.Optional(Type.String()),
});
const ChangedFile = Type.Object({ id: Type.String(), name: Type.String(), contentType: Type.String(), downloadURL: Type.String() });
const ChangedReusableContent = Type.Object({ id: Type.String(), title: Type.String(), document: Type.Optional(Type.String()) });
const Attributes = Type.Record(Type.String(), Type.Object({ before: Type.Optional(Type.Unknown()), after: Type.Optional(Type.Unknown()) }));

/** `RevisionSemanticChange`, as one object whose `type` says which fields are set. */
export const SemanticChangeSchema = Type.Object({
  type: Type.Enum([
    "page_created",
    "page_edited",
    "page_deleted",
    "page_moved",
    "file_created",
    "file_edited",
    "file_deleted",
    "variables_edited",
    "reusable_content_created",
    "reusable_content_edited",
    "reusable_content_deleted",
  ]),
  page: Type.Optional(ChangedPage),
  parent: Type.Optional(Type.Object({ before: Type.Optional(ChangedPage), after: Type.Optional(ChangedPage) })),
  file: Type.Optional(ChangedFile),
  reusableContent: Type.Optional(ChangedReusableContent),
  attributes: Type.Optional(Attributes),
  variables: Type.Optional(Attributes),
});

/** `RevisionSemanticChanges`. */
export const ChangesResponse = Type.Object({
  changes: Type.Array(SemanticChangeSchema),
  more: Type.Optional(Type.Number({ description: "How many changes were left out by `limit`" })),
});

export const ChangesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: "At most this many changes (default 10)" })),
});

/** One collision between the primary content and the change request (a Quire extension). */
export const ConflictSchema = Type.Object({
  kind: Type.Enum(["page", "block", "file", "reusable-content", "variable", "path", "move", "delete-edit"]),
  message: Type.String(),
  page: Type.Optional(ChangedPage),
  blockKey: Type.Optional(Type.String()),
  fileId: Type.Optional(Type.String()),
  reusableContentId: Type.Optional(Type.String()),
  field: Type.Optional(Type.String({ description: "The field that collided, as a dotted path, or a variable's name" })),
  base: Type.Optional(Type.Unknown({ description: "The version both sides started from (absent: it did not exist)" })),
  primary: Type.Optional(Type.Unknown({ description: "The primary content's version (absent: deleted there)" })),
  changeRequest: Type.Optional(Type.Unknown({ description: "The change request's version (absent: deleted there)" })),
});
export type ConflictResponse = Static<typeof ConflictSchema>;

export const ConflictsResponse = Type.Object({
  object: Type.Literal("change-request-conflicts"),
  revision: Type.String({ description: "The primary revision the change request was compared with" }),
  base: Type.String({ description: "The revision both sides started from (the change request's base)" }),
  changeRequestRevision: Type.String({ description: "The change request's head revision" }),
  count: Type.Number(),
  items: Type.Array(ConflictSchema),
});

// ---- content edits (POST .../content) ----------------------------------------------------------

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
