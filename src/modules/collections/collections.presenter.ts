import type { CollectionRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { toDefaultLevel } from "../../permissions/access.js";
import type { CollectionPermissionsValue, CollectionResponse } from "./collections.schemas.js";

/** The public shape of a collection (`Collection`). */
export function presentCollection(collection: CollectionRow, permissions: CollectionPermissionsValue, urls: Urls): CollectionResponse {
  return {
    object: "collection",
    id: collection.id,
    title: collection.title,
    ...(collection.description ? { description: collection.description } : {}),
    organization: collection.orgId,
    ...(collection.parentId ? { parent: collection.parentId } : {}),
    defaultLevel: toDefaultLevel(collection.defaultLevel),
    urls: {
      location: urls.api(`/collections/${collection.id}`),
      app: urls.app(`/o/${collection.orgId}/c/${collection.id}`),
    },
    permissions,
  };
}
