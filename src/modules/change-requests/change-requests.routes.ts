import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ContentRef } from "../../content/document/types.js";
import type { ChangeRequestRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { ErrorBody, errorResponses, ListOf } from "../../http/schemas.js";
import { listOf, type Page } from "../../lib/pagination.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { readableSpaceNodes, requireLiveSpace } from "../spaces/spaces.loader.js";
import { listSpaceNodes } from "../spaces/spaces.queries.js";
import { SpaceParams } from "../spaces/spaces.schemas.js";
import { presentUser } from "../users/users.presenter.js";
import { getUsersByIds } from "../users/users.queries.js";
import { loadChangeRequestsContext, requireChangeRequest } from "./change-requests.loader.js";
import { authorizeUpdate, refuseWrite } from "./change-requests.policy.js";
import { presentChangeRequests, presentLoadedChangeRequest } from "./change-requests.presenter.js";
import { type ChangeRequestFilter, getChangeRequest, listChangeRequests, listContributors } from "./change-requests.queries.js";
import {
  ChangeRequestParams,
  ChangeRequestSchema,
  ContributorSchema,
  CreateChangeRequestBody,
  ListChangeRequestsQuery,
  type ListChangeRequestsQueryValue,
  UpdateChangeRequestBody,
} from "./change-requests.schemas.js";
import { createChangeRequest, readTemplateForChangeRequest, updateChangeRequest } from "./change-requests.service.js";

const tags = ["change-requests"];

function filterOf(scope: ChangeRequestFilter["scope"], spaceIds: string[], query: ListChangeRequestsQueryValue): ChangeRequestFilter {
  return {
    scope,
    spaceIds,
    status: query.status ?? "open",
    creator: query.creator,
    contributor: query.contributor,
    requestedReviewer: query.requestedReviewer,
    conversationsIssuesCluster: query.conversationsIssuesCluster,
  };
}

/** Change requests: create, list (space and organization), get, update; contributors. */
export const changeRequestRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  /** One change request as presented: what it needs is loaded first, then presented (pure). */

  async function listResponse(page: Page<ChangeRequestRow>) {
    const items = presentChangeRequests(page.rows, await loadChangeRequestsContext(db, page.rows), urls);
    return listOf(page, items);
  }

  app.post(
    "/v1/spaces/:spaceId/change-requests",
    {
      schema: {
        tags,
        operationId: "createChangeRequest",
        description:
          "Creates a draft change request on the space's current primary content (with a built-in template's pages added when `template` is given). Needs the edit level on a live (unlocked) space.",
        params: SpaceParams,
        body: CreateChangeRequestBody,
        response: { 201: ChangeRequestSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const loaded = await requireLiveSpace(db, actor, request.params.spaceId);
      refuseWrite(loaded, loaded.permissions.edit, "edit", "create change requests in it");
      const body = request.body;
      const imported =
        body.template !== undefined
          ? await readTemplateForChangeRequest({
              id: body.template.id,
              contentRefs: (body.template.params?.contentRefs ?? {}) as unknown as Record<string, ContentRef>,
            })
          : undefined;
      const row = await db.transaction().execute((trx) =>
        createChangeRequest(trx, {
          space: loaded.space,
          actorId: actor.user.id,
          subject: body.subject,
          conversationsIssuesCluster: body.conversationsIssuesCluster,
          imported,
        }),
      );
      reply.code(201).header("location", urls.api(`/spaces/${row.spaceId}/change-requests/${row.id}`));
      return presentLoadedChangeRequest(row, await loadChangeRequestsContext(db, [row]), urls);
    },
  );

  app.get(
    "/v1/spaces/:spaceId/change-requests",
    {
      schema: {
        tags,
        operationId: "listChangeRequestsForSpace",
        description: "Change requests of the space with the given status (default open), newest first.",
        params: SpaceParams,
        querystring: ListChangeRequestsQuery,
        response: { 200: ListOf(ChangeRequestSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { space } = await requireLiveSpace(db, actorOf(request), request.params.spaceId);
      const page = await listChangeRequests(db, filterOf("space", [space.id], request.query), request.query);
      return listResponse(page);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/change-requests",
    {
      schema: {
        tags,
        operationId: "listChangeRequestsForOrganization",
        description: "Change requests of the organization's spaces that the caller may read, newest first.",
        params: OrganizationParams,
        querystring: ListChangeRequestsQuery,
        response: { 200: ListOf(ChangeRequestSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { org, access } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      const readable = readableSpaceNodes(access, await listSpaceNodes(db, { orgId: org.id })).map((node) => node.id);
      const page = await listChangeRequests(db, filterOf("organization", readable, request.query), request.query);
      return listResponse(page);
    },
  );

  app.get(
    "/v1/spaces/:spaceId/change-requests/:changeRequestId",
    {
      schema: {
        tags,
        operationId: "getChangeRequestById",
        params: ChangeRequestParams,
        response: { 200: ChangeRequestSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { changeRequest } = await requireChangeRequest(db, actorOf(request), request.params.spaceId, request.params.changeRequestId);
      return presentLoadedChangeRequest(changeRequest, await loadChangeRequestsContext(db, [changeRequest]), urls);
    },
  );

  app.patch(
    "/v1/spaces/:spaceId/change-requests/:changeRequestId",
    {
      schema: {
        tags,
        operationId: "updateChangeRequestById",
        description:
          "Changes the subject, description or status (draft, open, archived; an archived change request can be reopened). The creator or a member with the review level may; a merged change request no longer changes (409).",
        params: ChangeRequestParams,
        body: UpdateChangeRequestBody,
        response: { 200: ChangeRequestSchema, 409: ErrorBody, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const loaded = await requireChangeRequest(db, actor, request.params.spaceId, request.params.changeRequestId);
      authorizeUpdate(loaded, `No change request "${request.params.changeRequestId}" in space "${request.params.spaceId}".`);
      await updateChangeRequest(db, loaded.changeRequest, request.body);
      const updated = (await getChangeRequest(db, loaded.space.id, loaded.changeRequest.id))!;
      return presentLoadedChangeRequest(updated, await loadChangeRequestsContext(db, [updated]), urls);
    },
  );

  app.get(
    "/v1/spaces/:spaceId/change-requests/:changeRequestId/contributors",
    {
      schema: {
        tags,
        operationId: "getContributorsByChangeRequestId",
        description: "Who edited the change request (`edit`: one count per content batch) or commented on it, most recent first.",
        params: ChangeRequestParams,
        response: { 200: ListOf(ContributorSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { changeRequest } = await requireChangeRequest(db, actorOf(request), request.params.spaceId, request.params.changeRequestId);
      const rows = await listContributors(db, changeRequest.id);
      const users = new Map((await getUsersByIds(db, [...new Set(rows.map((r) => r.userId))])).map((u) => [u.id, u]));
      const items = rows.flatMap((row) => {
        const user = users.get(row.userId);
        if (!user) return [];
        return [
          { updatedAt: row.updatedAt, count: row.count, user: presentUser(user, urls), actionType: row.actionType as "edit" | "comment" },
        ];
      });
      return { items, count: items.length };
    },
  );
};
