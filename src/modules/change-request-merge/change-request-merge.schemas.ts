/**
 * Schemas of merging a change request and bringing the primary content into it (@gitbook/api 0.146:
 * merge, update, semantic changes), and Quire's conflicts list.
 */
import Type, { type Static } from "typebox";

export const MergeResponse = Type.Object({
  revision: Type.String({ description: "The merge revision, or the unchanged primary revision when there are conflicts" }),
  result: Type.Enum(["merge", "conflicts"]),
});

export const UpdateResponse = Type.Object({
  revision: Type.String({ description: "The change request's new head, or its unchanged head when there are conflicts" }),
  result: Type.Enum(["update", "conflicts"]),
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

/** How conflicts are listed and resolved (in the descriptions of the conflicts and content edit operations). */
export const RESOLUTION_NOTE =
  "Conflicts: when a merge or update answers `conflicts`, GET .../conflicts lists them with both versions. Editing a page in conflict with this operation resolves the page's conflicts in favour of the change request: the page's merge base becomes the primary revision against which the conflicts were reported, for the parts that collided (the primary's other changes to the page still merge in). A page moved to different places on both sides, a page the primary deleted and the change request kept, and two pages with the same path are resolved by moving, deleting or renaming pages instead; a page the change request deleted and the primary edited is confirmed deleted with delete_page.";
