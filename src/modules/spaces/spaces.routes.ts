import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { SpaceRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { badRequest, forbidden, notFound } from "../../http/errors.js";
import { ErrorBody, errorResponses, ListOf, ListQuery, NoContent } from "../../http/schemas.js";
import { sendJsonText } from "../../http/serializers.js";
import { announceAccessChange } from "../../lib/access-changes.js";
import { listOf, type Page } from "../../lib/pagination.js";
import { loadOrgAccess, type OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { authorize } from "../../permissions/authorize.js";
import { getMember } from "../../permissions/memberships.queries.js";
import { requireCollection, requireCreateDestination } from "../collections/collections.loader.js";
import { CollectionParams } from "../collections/collections.schemas.js";
import { MoveBody, TransferSpaceBody } from "../content-tree/tree.schemas.js";
import { checkMergeRules } from "../merge-rules/merge-rules.loader.js";
import type { SpaceMergeRulesValue } from "../merge-rules/merge-rules.schemas.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { spaceActivityCount, spaceActivityCounts } from "./space-activity.queries.js";
import { loadSpace, pageOfVisibleSpaces, requireLiveSpace, requireSpace, spaceNotFound } from "./spaces.loader.js";
import { spacePermissions } from "./spaces.policy.js";
import { presentSpace, presentSpacesFor, spaceJsonKeeper } from "./spaces.presenter.js";
import { getSpace, listSpaceNodes, updateSpace } from "./spaces.queries.js";
import {
  CreateSpaceBody,
  GetSpaceQuery,
  MemberContentPermission,
  MemberSpacesParams,
  MemberSpacesQuery,
  type MergeRulesInputValue,
  SpaceParams,
  SpaceSchema,
  UpdateSpaceBody,
  type UpdateSpaceValue,
} from "./spaces.schemas.js";
import { createSpace, deleteSpace, duplicateSpace, moveSpace, restoreSpace, transferSpace } from "./spaces.service.js";

const tags = ["spaces"];

const adminOnly = (id: string, action: string) => ({
  notFound: `No space with id "${id}".`,
  forbidden: `Only admins of space "${id}" can ${action}.`,
});

/** Spaces: create, list, get, update, delete, restore, duplicate, move, transfer; a collection's and a member's spaces. */
export const spaceRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  /** A page of spaces as the caller sees them: activity counted for the whole page at once. */
  async function presentSpacePage(page: Page<{ space: SpaceRow }>, access: OrgAccess) {
    const spaces = page.rows.map(({ space }) => space);
    const counts = await spaceActivityCounts(
      db,
      spaces.map((space) => space.id),
    );
    return listOf(page, presentSpacesFor(access, spaces, counts, urls));
  }

  /** Presents a space as the caller sees it, after a write (their access may have changed). */
  async function presentFresh(actor: Actor, spaceId: string) {
    const space = await getSpace(db, spaceId);
    if (!space) throw spaceNotFound(spaceId);
    actor.access.invalidate(space.orgId);
    const access = await actor.access.forOrg(space.orgId);
    return presentSpace(space, { permissions: spacePermissions(access, space), counts: await spaceActivityCount(db, space.id) }, urls);
  }

  app.post(
    "/v1/orgs/:organizationId/spaces",
    {
      schema: {
        tags,
        operationId: "createSpace",
        params: OrganizationParams,
        body: CreateSpaceBody,
        response: { 201: SpaceSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { org } = await requireOrganization(db, actor, request.params.organizationId);
      const body = request.body;
      if (body.template !== undefined || body.computedSource !== undefined) {
        throw badRequest("Creating a space from a template or a computed source is not supported yet; create an empty space.");
      }
      const { access } = await requireCreateDestination(db, actor, org.id, body.parent ?? null);
      const space = await db.transaction().execute((trx) =>
        createSpace(trx, {
          orgId: org.id,
          parentId: body.parent ?? null,
          title: body.title ?? "Untitled",
          emoji: body.emoji,
          language: body.language,
          editMode: body.editMode,
          access,
          actorId: actor.user.id,
        }),
      );
      reply.code(201).header("location", urls.api(`/spaces/${space.id}`));
      return presentFresh(actor, space.id);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/spaces",
    {
      schema: {
        tags,
        operationId: "listSpacesInOrganizationById",
        params: OrganizationParams,
        querystring: ListQuery,
        response: { 200: ListOf(SpaceSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { org, access } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      const nodes = await listSpaceNodes(db, { orgId: org.id });
      const page = await pageOfVisibleSpaces(
        db,
        access,
        nodes,
        [
          { direction: "asc", value: (n) => n.createdAt },
          { direction: "asc", value: (n) => n.id },
        ],
        request.query,
      );
      return presentSpacePage(page, access);
    },
  );

  const keptSpaceJson = spaceJsonKeeper();
  app.get(
    "/v1/spaces/:spaceId",
    {
      schema: {
        tags,
        operationId: "getSpaceById",
        params: SpaceParams,
        // shareKey only resolves published URLs of share-link sites; no site exists yet, so it
        // is accepted and has no effect.
        querystring: GetSpaceQuery,
        response: { 200: SpaceSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const loaded = await requireSpace(db, actorOf(request), request.params.spaceId);
      const counts = await spaceActivityCount(db, loaded.space.id);
      // The text the route's serializer writes, kept with the cached row (spaceJsonKeeper).
      const json = keptSpaceJson(loaded, counts, urls, (space) => reply.serializeInput(space, "200") as string);
      return sendJsonText(reply, json);
    },
  );

  app.patch(
    "/v1/spaces/:spaceId",
    {
      schema: {
        tags,
        operationId: "updateSpaceById",
        params: SpaceParams,
        body: UpdateSpaceBody,
        response: { 200: SpaceSchema, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { spaceId } = request.params;
      const { space, permissions } = await requireLiveSpace(db, actor, spaceId);
      authorize(permissions, "admin", adminOnly(spaceId, "change its settings"));
      const body = request.body;
      const icon = iconChange(body);
      const mergeRules = body.mergeRules ? await checkedMergeRules(space.orgId, body.mergeRules) : undefined;
      const changes = {
        ...(body.title !== undefined ? { title: body.title } : {}),
        ...(body.editMode !== undefined ? { editMode: body.editMode } : {}),
        ...(body.defaultLevel !== undefined ? { defaultLevel: body.defaultLevel } : {}),
        ...(body.language !== undefined ? { language: body.language } : {}),
        ...(mergeRules !== undefined ? { mergeRules: JSON.stringify(mergeRules) } : {}),
        ...icon,
      };
      if (Object.keys(changes).length > 0) await updateSpace(db, space.id, changes);
      if (body.editMode !== undefined || body.defaultLevel !== undefined) announceAccessChange({ kind: "space", spaceId: space.id });
      return presentFresh(actor, space.id);
    },
  );

  app.delete(
    "/v1/spaces/:spaceId",
    {
      schema: {
        tags,
        operationId: "deleteSpaceById",
        description:
          "Soft-deletes the space: restorable by its admins for 7 days, then purged. While deleted, the sites that show it leave it out (their site spaces come back on restore, and go when it is purged). 204 also when it did not exist.",
        params: SpaceParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { spaceId } = request.params;
      const loaded = await loadSpace(db, actor, spaceId);
      // DELETE answers 204 when there is nothing to delete; a space the caller cannot see is,
      // for them, a space that does not exist, and it is left untouched.
      if (loaded?.permissions.view && !loaded.space.deletedAt) {
        authorize(loaded.permissions, "admin", adminOnly(spaceId, "delete it"));
        await db.transaction().execute((trx) => deleteSpace(trx, { space: loaded.space, actorId: actor.user.id }));
      }
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/v1/spaces/:spaceId/restore",
    {
      schema: {
        tags,
        operationId: "restoreSpace",
        params: SpaceParams,
        response: { 200: SpaceSchema, 409: ErrorBody, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { spaceId } = request.params;
      const { space, permissions } = await requireSpace(db, actor, spaceId);
      authorize(permissions, "admin", adminOnly(spaceId, "restore it"));
      await db.transaction().execute((trx) => restoreSpace(trx, { space }));
      return presentFresh(actor, space.id);
    },
  );

  app.post(
    "/v1/spaces/:spaceId/duplicate",
    {
      schema: {
        tags,
        operationId: "duplicateSpace",
        params: SpaceParams,
        response: { 201: SpaceSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { space } = await requireLiveSpace(db, actor, request.params.spaceId);
      // Reading a space is enough to copy it, into a place where the caller may create content.
      const { access } = await requireCreateDestination(db, actor, space.orgId, space.parentId);
      const copy = await db.transaction().execute((trx) => duplicateSpace(trx, { original: space, access, actorId: actor.user.id }));
      reply.code(201).header("location", urls.api(`/spaces/${copy.id}`));
      return presentFresh(actor, copy.id);
    },
  );

  app.post(
    "/v1/spaces/:spaceId/move",
    {
      schema: {
        tags,
        operationId: "moveSpace",
        params: SpaceParams,
        body: MoveBody,
        response: { 200: SpaceSchema, 409: ErrorBody, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { spaceId } = request.params;
      const body = request.body;
      if (body.parent === undefined && body.position === undefined) {
        throw badRequest("Give `parent`, `position` or both.");
      }
      const { space, permissions } = await requireLiveSpace(db, actor, spaceId);
      authorize(permissions, "admin", adminOnly(spaceId, "move it"));
      const destinationParentId = body.parent === undefined ? space.parentId : body.parent;
      await requireCreateDestination(db, actor, space.orgId, destinationParentId);
      await db.transaction().execute((trx) => moveSpace(trx, { space, destinationParentId, position: body.position }));
      return presentFresh(actor, space.id);
    },
  );

  app.post(
    "/v1/spaces/:spaceId/transfer",
    {
      schema: {
        tags,
        operationId: "transferSpace",
        description:
          "Moves the space to another organization and/or collection, at the end. Moving it to another organization drops its grants and invite links, and takes it off the old organization's sites. 409 when nothing would change; 412 while Git sync is configured (for another organization).",
        params: SpaceParams,
        body: TransferSpaceBody,
        response: { 200: SpaceSchema, 409: ErrorBody, 412: ErrorBody, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { spaceId } = request.params;
      const { space, permissions } = await requireLiveSpace(db, actor, spaceId);
      authorize(permissions, "admin", adminOnly(spaceId, "transfer it"));
      const { org: target } = await requireOrganization(db, actor, request.body.organization);
      // Omitted `collection`: stay in the same collection within the organization, go to the top
      // level of another organization.
      const destinationParentId =
        request.body.collection !== undefined ? request.body.collection : target.id === space.orgId ? space.parentId : null;
      await requireCreateDestination(db, actor, target.id, destinationParentId);
      await db.transaction().execute((trx) => transferSpace(trx, { space, targetOrgId: target.id, destinationParentId }));
      return presentFresh(actor, space.id);
    },
  );

  app.get(
    "/v1/collections/:collectionId/spaces",
    {
      schema: {
        tags: ["collections"],
        operationId: "listSpacesInCollectionById",
        params: CollectionParams,
        querystring: ListQuery,
        response: { 200: ListOf(SpaceSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { collection, access } = await requireCollection(db, actorOf(request), request.params.collectionId);
      const nodes = await listSpaceNodes(db, { orgId: collection.orgId, parentId: collection.id });
      const page = await pageOfVisibleSpaces(
        db,
        access,
        nodes,
        [
          { direction: "asc", value: (n) => n.position },
          { direction: "asc", value: (n) => n.id },
        ],
        request.query,
      );
      return presentSpacePage(page, access);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/members/:userId/spaces",
    {
      schema: {
        tags: ["organization-members", ...tags],
        operationId: "listSpacesForOrganizationMember",
        params: MemberSpacesParams,
        querystring: MemberSpacesQuery,
        response: { 200: ListOf(MemberContentPermission), ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { organizationId, userId } = request.params;
      const { org, access, permissions } = await requireOrganization(db, actor, organizationId);
      if (userId !== actor.user.id && !permissions.admin) {
        throw forbidden("Only organization admins can list the spaces of another member.");
      }
      const member = await getMember(db, org.id, userId);
      if (!member) throw notFound(`No member with id "${userId}" in organization "${org.id}".`);
      // The member's own access decides which spaces are listed and at what level; `space.permissions`
      // stay the caller's, as on every Space object.
      const memberAccess = userId === actor.user.id ? access : await loadOrgAccess(db, userId, org.id);
      const direction = request.query.order ?? "desc";
      const nodes = await listSpaceNodes(db, { orgId: org.id });
      const page = await pageOfVisibleSpaces(
        db,
        memberAccess,
        nodes,
        [
          { direction, value: (n) => n.createdAt },
          { direction, value: (n) => n.id },
        ],
        request.query,
      );
      const spaces = presentSpacesFor(
        access,
        page.rows.map(({ space }) => space),
        await spaceActivityCounts(
          db,
          page.rows.map(({ space }) => space.id),
        ),
        urls,
      );
      return listOf(
        page,
        page.rows.map(({ level }, index) => ({ permission: level, space: spaces[index]! })),
      );
    },
  );

  /** The stored form of merge rules (checked: expressions parse, users are members of the organization). */
  async function checkedMergeRules(orgId: string, input: MergeRulesInputValue): Promise<SpaceMergeRulesValue> {
    if (input.type !== "rules") return { type: input.type };
    if (!input.rules) throw badRequest('body.mergeRules.rules is required when body.mergeRules.type is "rules".');
    await checkMergeRules(db, orgId, input.rules, "body.mergeRules.rules");
    return { type: "rules", rules: input.rules };
  }
};

/**
 * The space's emoji and icon after a PATCH: an emoji replaces the icon, an icon URL replaces the
 * emoji, and null for either (with no new value) clears both, as the spec's three alternatives say.
 */
export function iconChange(body: Pick<UpdateSpaceValue, "emoji" | "icon">): { emoji?: string; iconUrl?: string | null } {
  const { emoji, icon } = body;
  if (typeof emoji === "string" && typeof icon === "string") {
    throw badRequest("Set either body.emoji or body.icon, not both: a space shows one of them.");
  }
  if (typeof emoji === "string") return { emoji, iconUrl: null };
  if (typeof icon === "string") return { emoji: "", iconUrl: icon };
  if (emoji === null || icon === null) return { emoji: "", iconUrl: null };
  return {};
}
