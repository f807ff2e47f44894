/**
 * Comments, replies and their bodies. Shapes mirror `Comment`, `CommentReply`, `Document`,
 * `PostCommentSchema`, `UpdateCommentSchema` and `UpdateCommentReplySchema` of @gitbook/api 0.146.
 */
import Type, { type Static } from "typebox";
import { TOP_LEVEL_BLOCK_TYPES } from "../../content/document/nodes.js";
import { Id, ListQuery, Order, Timestamp, UserSchema } from "../../http/schemas.js";

/** A comment body given as a JSON document: top-level blocks are checked, their insides are kept as sent. */
export const CommentDocument = Type.Object(
  {
    object: Type.Literal("document"),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    nodes: Type.Array(
      Type.Object(
        {
          object: Type.Literal("block"),
          type: Type.Enum([...TOP_LEVEL_BLOCK_TYPES]),
          key: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
        },
        { additionalProperties: true },
      ),
      { maxItems: 1000 },
    ),
  },
  { additionalProperties: true },
);
export type CommentDocumentValue = Static<typeof CommentDocument>;

/**
 * A body as sent (`Document`): `{markdown}` or `{document}`. Declared as one object with both
 * fields optional (not as a union) so that a wrong body gets one precise message from the route
 * ("exactly one of ...") instead of one error per alternative.
 */
export const BodyInput = Type.Object(
  {
    markdown: Type.Optional(Type.String({ maxLength: 100_000, description: "The body as GitBook Markdown" })),
    document: Type.Optional(CommentDocument),
  },
  { description: "Exactly one of `markdown` or `document`" },
);
export type BodyInputValue = Static<typeof BodyInput>;

/** A body as returned: `{markdown}` with `format=markdown`, `{document}` otherwise. */
export const BodyOutput = Type.Union([
  Type.Object({ markdown: Type.String() }),
  Type.Object({ document: Type.Object({ object: Type.Literal("document") }, { additionalProperties: true }) }),
]);
export type BodyOutputValue = Static<typeof BodyOutput>;

export const Format = Type.Enum(["document", "markdown"], { description: "Output format of bodies (default `document`)" });
export type FormatValue = Static<typeof Format>;

export const FormatQuery = Type.Object({ format: Type.Optional(Format) });

const Emoji = Type.String({ minLength: 1, maxLength: 64, description: "An emoji" });
const Reactions = Type.Array(Emoji, { maxItems: 50 });

export const EmojiReaction = Type.Object({
  emoji: Type.String(),
  count: Type.Number(),
  users: Type.Array(Type.Object({ user: UserSchema, reactedAt: Timestamp })),
});
export type EmojiReactionValue = Static<typeof EmojiReaction>;

export const CommentPermissions = Type.Object({
  view: Type.Boolean(),
  edit: Type.Boolean(),
  reply: Type.Boolean({ description: "May react, reply, resolve and reopen" }),
  delete: Type.Boolean(),
});
export type CommentPermissionsValue = Static<typeof CommentPermissions>;

export const TableCell = Type.Object({
  record: Type.String({ minLength: 1, maxLength: 200 }),
  definition: Type.String({ minLength: 1, maxLength: 200 }),
});
export type TableCellValue = Static<typeof TableCell>;

export const CommentTarget = Type.Object({
  node: Type.Optional(Type.Object({ id: Type.String() })),
  tableCell: Type.Optional(TableCell),
  changeRequest: Type.Optional(Type.String()),
  review: Type.Optional(Type.String({ description: "The review this comment was submitted with" })),
  page: Type.Optional(Type.Object({ id: Type.String() })),
  space: Type.String(),
  revision: Type.String(),
});

/** `Comment`: `status` is `open`, or `resolved` with `resolvedAt` and `resolvedBy`. */
export const CommentSchema = Type.Object({
  object: Type.Literal("comment"),
  id: Type.String(),
  postedBy: UserSchema,
  postedAt: Timestamp,
  editedAt: Type.Optional(Timestamp),
  reactions: Type.Array(EmojiReaction),
  replies: Type.Number(),
  repliers: Type.Array(Type.Object({ updatedAt: Timestamp, count: Type.Integer(), user: UserSchema })),
  body: BodyOutput,
  target: CommentTarget,
  urls: Type.Object({ location: Type.String() }),
  permissions: CommentPermissions,
  status: Type.Enum(["open", "resolved"]),
  resolvedAt: Type.Optional(Timestamp),
  resolvedBy: Type.Optional(UserSchema),
});
export type CommentResponse = Static<typeof CommentSchema>;

export const CommentReplySchema = Type.Object({
  object: Type.Literal("comment-reply"),
  id: Type.String(),
  postedBy: UserSchema,
  postedAt: Timestamp,
  editedAt: Type.Optional(Timestamp),
  reactions: Type.Array(EmojiReaction),
  body: BodyOutput,
  urls: Type.Object({ location: Type.String() }),
  permissions: CommentPermissions,
});
export type CommentReplyResponse = Static<typeof CommentReplySchema>;

export const ListCommentsQuery = Type.Object({
  ...ListQuery.properties,
  order: Type.Optional(Order),
  status: Type.Optional(Type.Enum(["all", "open", "resolved"], { description: "Default `all`" })),
  format: Type.Optional(Format),
  targetPage: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only comments on this page" })),
  authors: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, description: "Only comments posted by these users" }),
  ),
});
export type ListCommentsQueryValue = Static<typeof ListCommentsQuery>;

export const ListRepliesQuery = Type.Object({ ...ListQuery.properties, format: Type.Optional(Format) });

export const PostCommentBody = Type.Object({
  body: BodyInput,
  page: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Id of the page commented on" })),
  node: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Key of the block commented on, in `page`" })),
  tableCell: Type.Optional(TableCell),
});
export type PostCommentValue = Static<typeof PostCommentBody>;

export const UpdateCommentBody = Type.Object({
  resolved: Type.Optional(Type.Boolean()),
  body: Type.Optional(BodyInput),
  addedReactions: Type.Optional(Reactions),
  removedReactions: Type.Optional(Reactions),
});
export type UpdateCommentValue = Static<typeof UpdateCommentBody>;

export const PostReplyBody = Type.Object({ body: BodyInput });

/** Reply updates; `resolved` (which resolves the parent comment) only where the route set allows it. */
export const UpdateReplyBody = Type.Object({
  body: Type.Optional(BodyInput),
  addedReactions: Type.Optional(Reactions),
  removedReactions: Type.Optional(Reactions),
});
export type UpdateReplyValue = Static<typeof UpdateReplyBody> & { resolved?: boolean };

export const CommentIdParams = Type.Object({ commentId: Id });
export const ReplyIdParams = Type.Object({ commentId: Id, commentReplyId: Id });
