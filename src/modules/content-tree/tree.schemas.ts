/** Request schemas shared by collections and spaces: where to put an item, and where to transfer it. */
import Type from "typebox";
import { Id } from "../../http/schemas.js";

/**
 * `SpacePointer` | `CollectionPointer` in the spec, as one object so that a wrong `type` gets a
 * message listing the two accepted values; planMove checks that the matching id is present.
 */
export const ContentPointer = Type.Object({
  type: Type.Enum(["space", "collection"]),
  space: Type.Optional(Id),
  collection: Type.Optional(Id),
});

/** `ContentPosition`: next to which sibling to put the item (default: at the end). */
export const ContentPosition = Type.Object({
  before: Type.Optional(ContentPointer),
  after: Type.Optional(ContentPointer),
});

export const MoveBody = Type.Object({
  parent: Type.Optional(Type.Union([Id, Type.Null()], { description: "Parent collection id, or null for the top level" })),
  position: Type.Optional(ContentPosition),
});

export const TransferCollectionBody = Type.Object({
  organization: Id,
});

export const TransferSpaceBody = Type.Object({
  organization: Id,
  collection: Type.Optional(
    Type.Union([Id, Type.Null()], {
      description:
        "Collection of the target organization to put the space in; null for the top level. Omitted: the space keeps its collection within the same organization, and goes to the top level of another.",
    }),
  ),
});
