import Type, { type Static } from "typebox";
import { DefaultLevel, Id, ListQuery } from "../../http/schemas.js";

export const CollectionParams = Type.Object({ collectionId: Id });

export const CollectionTitle = Type.String({ maxLength: 50, description: "Title of the collection" });
export const CollectionDescription = Type.String({ maxLength: 100, description: "Description of the collection" });

export const CollectionPermissions = Type.Object({
  view: Type.Boolean(),
  admin: Type.Boolean(),
  viewInviteLinks: Type.Boolean(),
  create: Type.Boolean(),
});
export type CollectionPermissionsValue = Static<typeof CollectionPermissions>;

/** `Collection` in the spec. */
export const CollectionSchema = Type.Object({
  object: Type.Literal("collection"),
  id: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  organization: Type.String(),
  parent: Type.Optional(Type.String()),
  defaultLevel: DefaultLevel,
  urls: Type.Object({ location: Type.String(), app: Type.String() }),
  permissions: CollectionPermissions,
});
export type CollectionResponse = Static<typeof CollectionSchema>;

export const CreateCollectionBody = Type.Object({
  title: Type.Optional(CollectionTitle),
  parent: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "ID of a parent collection" })),
});

export const UpdateCollectionBody = Type.Object({
  title: Type.Optional(CollectionTitle),
  description: Type.Optional(CollectionDescription),
  defaultLevel: Type.Optional(DefaultLevel),
});

export const ListCollectionsQuery = Type.Object({
  ...ListQuery.properties,
  nested: Type.Optional(Type.Boolean({ default: true, description: "false lists only top-level collections" })),
});
