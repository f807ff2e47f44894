import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { notFound } from "../../http/errors.js";
import { ErrorBody, errorResponses, ListOf, NoContent } from "../../http/schemas.js";
import { toList } from "../../lib/pagination.js";
import { authorize } from "../../permissions/authorize.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { GUEST_FORBIDDEN, memberNotFound, memberPermissions } from "./members.policy.js";
import { presentMember } from "./members.presenter.js";
import { getMemberWithUser, listMembers, memberCounts } from "./members.queries.js";
import { ListMembersQuery, MemberParams, MemberSchema, UpdateMemberBody } from "./members.schemas.js";
import { changeMemberRole, markSsoMember, removeMember } from "./members.service.js";

const tags = ["members"];

/** Members of an organization: list, read, change role, remove, mark as SSO. (A member's teams are listed by teams.routes.) */
export const memberRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, dialect, urls } = deps;

  /** A member with their counts, or 404. */
  async function loadPresentedMember(orgId: string, userId: string) {
    const member = await getMemberWithUser(db, orgId, userId);
    if (!member) throw notFound(memberNotFound(userId));
    const counts = await memberCounts(db, orgId, [member.userId]);
    return presentMember(member, counts.get(member.userId)!, urls);
  }

  app.get(
    "/v1/orgs/:organizationId/members",
    {
      schema: {
        tags,
        operationId: "listMembersInOrganizationById",
        params: OrganizationParams,
        querystring: ListMembersQuery,
        response: { 200: ListOf(MemberSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { org, permissions } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "listMembers", { notFound: `No organization with id "${org.id}".`, forbidden: GUEST_FORBIDDEN });
      const { order = "desc", sort = "joinedAt", ...filters } = request.query;
      const page = await listMembers(db, dialect, org.id, { ...filters, order, sort });
      const counts = await memberCounts(
        db,
        org.id,
        page.rows.map((m) => m.userId),
      );
      return toList(page, (member) => presentMember(member, counts.get(member.userId)!, urls));
    },
  );

  app.get(
    "/v1/orgs/:organizationId/members/:userId",
    {
      schema: {
        tags,
        operationId: "getMemberInOrganizationById",
        params: MemberParams,
        response: { 200: MemberSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { userId } = request.params;
      const { org, access } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      authorize(memberPermissions(access, { userId }), "read", { notFound: memberNotFound(userId), forbidden: GUEST_FORBIDDEN });
      return loadPresentedMember(org.id, userId);
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/members/:userId",
    {
      schema: {
        tags,
        operationId: "updateMemberInOrganizationById",
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: MemberSchema, 409: ErrorBody, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { userId } = request.params;
      const { org, access } = await requireOrganization(db, actor, request.params.organizationId);
      authorize(memberPermissions(access, { userId }), "update", {
        notFound: memberNotFound(userId),
        forbidden: "Only organization admins can change a member's role.",
      });
      await db.transaction().execute((trx) => changeMemberRole(trx, { orgId: org.id, userId, role: request.body.role }));
      actor.access.invalidate(org.id);
      return loadPresentedMember(org.id, userId);
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/members/:userId",
    {
      schema: {
        tags,
        operationId: "removeMemberFromOrganizationById",
        params: MemberParams,
        response: { 204: NoContent, 409: ErrorBody, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { userId } = request.params;
      const { org, access } = await requireOrganization(db, actor, request.params.organizationId);
      authorize(memberPermissions(access, { userId }), "remove", {
        notFound: memberNotFound(userId),
        forbidden: "Only organization admins can remove other members; you can remove yourself.",
      });
      await db.transaction().execute((trx) => removeMember(trx, { orgId: org.id, userId }));
      actor.access.invalidate(org.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/v1/orgs/:organizationId/members/:userId/sso",
    {
      schema: {
        tags,
        operationId: "setUserAsSSOMemberForOrganization",
        params: MemberParams,
        response: { 200: MemberSchema, 409: ErrorBody, ...errorResponses },
      },
    },
    async (request) => {
      const { userId } = request.params;
      const { org, access } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      authorize(memberPermissions(access, { userId }), "update", {
        notFound: memberNotFound(userId),
        forbidden: "Only organization admins can make a member an SSO member.",
      });
      await db.transaction().execute((trx) => markSsoMember(trx, { orgId: org.id, userId }));
      return loadPresentedMember(org.id, userId);
    },
  );
};
