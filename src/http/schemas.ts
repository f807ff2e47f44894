/**
 * Shared TypeBox schemas used by many resource families. Each mirrors the schema of the same name
 * in @gitbook/api's spec/openapi.json, which the contract tests validate responses against.
 */
import Type, { type Static, type TSchema } from "typebox";
import { ROLES } from "../permissions/roles.js";

export const Timestamp = Type.String({ format: "date-time" });

export const Id = Type.String({ minLength: 1, maxLength: 100 });

/** A role level (`MemberRole` in the spec). */
export const RoleLevel = Type.Enum([...ROLES], { description: "Role level: admin > create > review > edit > comment > read" });

/** A role level or null for guests (`MemberRoleOrGuest`). */
export const RoleOrGuest = Type.Union([RoleLevel, Type.Null()]);

/** Default level of a piece of content: a role, null for none, or `inherit` (`DefaultLevel`). */
export const DefaultLevel = Type.Union([RoleLevel, Type.Literal("inherit"), Type.Null()]);

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.Integer(),
      message: Type.String(),
    }),
  },
  { $id: "Error", description: "Every non-2xx response has this body." },
);

export const UserSchema = Type.Object({
  object: Type.Literal("user"),
  id: Type.String(),
  displayName: Type.String(),
  email: Type.Optional(Type.String()),
  photoURL: Type.Optional(Type.String()),
  urls: Type.Object({ location: Type.String() }),
});
export type UserResponse = Static<typeof UserSchema>;

/** A rich text document (`JSONDocument`): nodes are validated loosely here and by the content engine. */
export const RichDocument = Type.Object(
  {
    object: Type.Literal("document"),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    nodes: Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 10000 }),
  },
  { additionalProperties: true },
);
export type RichDocumentValue = Static<typeof RichDocument>;

/** Envelope of every list: `{ next?: {page}, count, items }`. */
export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({
    next: Type.Optional(Type.Object({ page: Type.String() })),
    count: Type.Number(),
    items: Type.Array(item),
  });
}

export const ListQuery = Type.Object({
  page: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "Cursor from a previous response's `next.page`" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: "Items per page, 1 to 1000 (default 50)" })),
});
export type ListQueryValue = Static<typeof ListQuery>;

export const Order = Type.Enum(["asc", "desc"]);

/** Standard error responses, declared on every route so the generated API document lists them. */
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
} as const;

export const NoContent = Type.Null({ description: "No content" });
