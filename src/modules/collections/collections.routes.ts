import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { badRequest, conflict } from "../../http/errors.js";
import { ErrorBody, errorResponses, ListOf, NoContent } from "../../http/schemas.js";
import { paginateRows, toList } from "../../lib/pagination.js";
import type { Actor } from "../../permissions/actor.js";
import { authorize } from "../../permissions/authorize.js";
import { MoveBody, TransferCollectionBody } from "../content-tree/tree.schemas.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { collectionNotFound, loadCollection, requireCollection, requireCreateDestination } from "./collections.loader.js";
import { collectionPermissions } from "./collections.policy.js";
import { presentCollection } from "./collections.presenter.js";
import { getCollection, getCollectionsByIds, listCollectionNodes, updateCollection } from "./collections.queries.js";
import {
  CollectionParams,
  CollectionSchema,
  CreateCollectionBody,
  ListCollectionsQuery,
  UpdateCollectionBody,
} from "./collections.schemas.js";
import { createCollection, deleteCollectionTree, moveCollection, transferCollection } from "./collections.service.js";

const tags = ["collections"];

const adminOnly = (id: string, action: string) => ({
  notFound: `No collection with id "${id}".`,
  forbidden: `Only admins of collection "${id}" can ${action}.`,
});

/** Collections: get, update, delete, move, transfer; list and create in an organization. (A collection's spaces are listed by spaces.routes.) */
export const collectionRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  /** Presents a collection as the caller sees it after a write (their access may have changed). */
  async function presentFresh(actor: Actor, collectionId: string) {
    const collection = await getCollection(db, collectionId);
    if (!collection) throw collectionNotFound(collectionId);
    actor.access.invalidate(collection.orgId);
    const access = await actor.access.forOrg(collection.orgId);
    return presentCollection(collection, collectionPermissions(access, collection), urls);
  }

  app.get(
    "/v1/collections/:collectionId",
    {
      schema: {
        tags,
        operationId: "getCollectionById",
        params: CollectionParams,
        response: { 200: CollectionSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { collection, permissions } = await requireCollection(db, actorOf(request), request.params.collectionId);
      return presentCollection(collection, permissions, urls);
    },
  );

  app.patch(
    "/v1/collections/:collectionId",
    {
      schema: {
        tags,
        operationId: "updateCollectionById",
        params: CollectionParams,
        body: UpdateCollectionBody,
        response: { 200: CollectionSchema, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { collectionId } = request.params;
      const { collection, permissions } = await requireCollection(db, actor, collectionId);
      authorize(permissions, "admin", adminOnly(collectionId, "change its settings"));
      const body = request.body;
      const changes = {
        ...(body.title !== undefined ? { title: body.title } : {}),
        // An empty description removes it.
        ...(body.description !== undefined ? { description: body.description === "" ? null : body.description } : {}),
        ...(body.defaultLevel !== undefined ? { defaultLevel: body.defaultLevel } : {}),
      };
      if (Object.keys(changes).length > 0) await updateCollection(db, collection.id, changes);
      return presentFresh(actor, collection.id);
    },
  );

  app.delete(
    "/v1/collections/:collectionId",
    {
      schema: {
        tags,
        operationId: "deleteCollectionById",
        params: CollectionParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { collectionId } = request.params;
      const loaded = await loadCollection(db, actor, collectionId);
      // 204 when there is nothing to delete; a collection the caller cannot see does not exist for them.
      if (loaded?.permissions.view) {
        authorize(loaded.permissions, "admin", adminOnly(collectionId, "delete it"));
        await db.transaction().execute((trx) => deleteCollectionTree(trx, { collection: loaded.collection, actorId: actor.user.id }));
      }
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/v1/collections/:collectionId/move",
    {
      schema: {
        tags,
        operationId: "moveCollection",
        params: CollectionParams,
        body: MoveBody,
        response: { 200: CollectionSchema, 409: ErrorBody, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { collectionId } = request.params;
      const body = request.body;
      if (body.parent === undefined && body.position === undefined) {
        throw badRequest("Give `parent`, `position` or both.");
      }
      const { collection, permissions } = await requireCollection(db, actor, collectionId);
      authorize(permissions, "admin", adminOnly(collectionId, "move it"));
      const destinationParentId = body.parent === undefined ? collection.parentId : body.parent;
      await requireCreateDestination(db, actor, collection.orgId, destinationParentId);
      await db.transaction().execute((trx) => moveCollection(trx, { collection, destinationParentId, position: body.position }));
      return presentFresh(actor, collection.id);
    },
  );

  app.post(
    "/v1/collections/:collectionId/transfer",
    {
      schema: {
        tags,
        operationId: "transferCollection",
        description:
          "Moves the collection, with everything in it, to the top level of another organization. Grants and invite links are dropped, and its spaces leave the old organization's sites. 412 while a space inside has Git sync configured.",
        params: CollectionParams,
        body: TransferCollectionBody,
        response: { 200: CollectionSchema, 409: ErrorBody, 412: ErrorBody, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { collectionId } = request.params;
      const { collection, permissions } = await requireCollection(db, actor, collectionId);
      authorize(permissions, "admin", adminOnly(collectionId, "transfer it"));
      const { org: target } = await requireOrganization(db, actor, request.body.organization);
      if (target.id === collection.orgId) {
        throw conflict(`Collection "${collectionId}" already belongs to organization "${target.id}"; the transfer would change nothing.`);
      }
      await requireCreateDestination(db, actor, target.id, null);
      await db.transaction().execute((trx) => transferCollection(trx, { collection, targetOrgId: target.id }));
      return presentFresh(actor, collection.id);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/collections",
    {
      schema: {
        tags,
        operationId: "listCollectionsInOrganizationById",
        params: OrganizationParams,
        querystring: ListCollectionsQuery,
        response: { 200: ListOf(CollectionSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { org, access } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      const nested = request.query.nested ?? true;
      const nodes = (await listCollectionNodes(db, org.id)).filter(
        (n) => (nested || n.parentId === null) && collectionPermissions(access, n).view,
      );
      const page = paginateRows(
        nodes,
        [
          { direction: "asc", value: (n) => n.createdAt },
          { direction: "asc", value: (n) => n.id },
        ],
        request.query,
      );
      const rows = new Map(
        (
          await getCollectionsByIds(
            db,
            page.rows.map((n) => n.id),
          )
        ).map((c) => [c.id, c]),
      );
      const items = page.rows.flatMap((n) => {
        const collection = rows.get(n.id);
        return collection ? [collection] : [];
      });
      return toList({ ...page, rows: items }, (collection) =>
        presentCollection(collection, collectionPermissions(access, collection), urls),
      );
    },
  );

  app.post(
    "/v1/orgs/:organizationId/collections",
    {
      schema: {
        tags,
        operationId: "createCollection",
        params: OrganizationParams,
        body: CreateCollectionBody,
        response: { 201: CollectionSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { org } = await requireOrganization(db, actor, request.params.organizationId);
      const parentId = request.body.parent ?? null;
      const { access } = await requireCreateDestination(db, actor, org.id, parentId);
      const collection = await db
        .transaction()
        .execute((trx) => createCollection(trx, { orgId: org.id, parentId, title: request.body.title ?? "Untitled", access }));
      reply.code(201).header("location", urls.api(`/collections/${collection.id}`));
      return presentFresh(actor, collection.id);
    },
  );
};
