import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Deps } from "../../deps.js";
import { isUniqueViolation } from "../../db/dialect.js";
import type { OrganizationRow } from "../../db/schema.js";
import { actorOf } from "../../http/authenticate.js";
import { badRequest, conflict, notFound } from "../../http/errors.js";
import { toList } from "../../http/pagination.js";
import { ErrorBody, ListOf, ListQuery, NoContent, errorResponses } from "../../http/schemas.js";
import { authorize } from "../../permissions/authorize.js";
import { type Role, isRole } from "../../permissions/roles.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { requireOrganization } from "../organizations/organizations.service.js";
import { getOrganization } from "../organizations/organizations.queries.js";
import { normalizeEmail } from "../users/users.queries.js";
import { isInviteRedundant, linkInvitePermissions } from "./invites.policy.js";
import { presentLinkInvite } from "./invites.presenter.js";
import { deleteLinkInvite, getLinkInvite, insertLinkInvite, listLinkInvites, updateLinkInviteRole } from "./invites.queries.js";
import {
  CreateLinkInviteBody,
  InviteParams,
  InviteUsersBody,
  InviteUsersResponse,
  JoinWithInviteResponse,
  LinkInviteSchema,
  UpdateLinkInviteBody,
} from "./invites.schemas.js";
import { inviteUsers, joinWithInvite } from "./invites.service.js";

const tags = ["invites"];

// Practical address check: one @, no spaces or brackets, a dotted domain with a letter TLD.
const EMAIL = /^[^\s@"<>(),;:\\[\]]+@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

const CONTENT_INVITES_UNAVAILABLE = "Invite links to spaces and collections are not available yet.";
const inviteNotFound = (inviteId: string) => `No invite link with id "${inviteId}" in this organization.`;
const linksDisabled = (org: OrganizationRow) =>
  `Invite links are disabled in this organization; an admin can enable them with PATCH /v1/orgs/${org.id} {"inviteLinks": true}.`;

/** Invitations by email, and invite links: their management by admins and their use by anyone holding one. */
export const inviteRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db } = deps;

  app.post(
    "/v1/orgs/:organizationId/invites",
    {
      schema: {
        tags,
        operationId: "inviteUsersToOrganization",
        params: OrganizationParams,
        body: InviteUsersBody,
        response: { 200: InviteUsersResponse, 409: ErrorBody, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { org, permissions } = await requireOrganization(db, actor, request.params.organizationId);
      authorize(permissions, "admin", {
        notFound: `No organization with id "${org.id}".`,
        forbidden: "Only organization admins can invite people.",
      });
      const body = request.body;
      const defaultRole: Role | null = body.role !== undefined ? body.role : isRole(org.defaultRole) ? org.defaultRole : null;
      const invites = new Map<string, Role | null>();
      for (const entry of body.emails) {
        const raw = typeof entry === "string" ? entry : entry.email;
        const email = normalizeEmail(raw);
        if (!EMAIL.test(email)) throw badRequest(`body.emails contains "${raw}", which is not a valid email address.`);
        if (!invites.has(email)) invites.set(email, typeof entry === "string" ? defaultRole : entry.role);
      }
      try {
        const result = await db.transaction().execute((trx) =>
          inviteUsers(trx, { orgId: org.id, invites: [...invites].map(([email, role]) => ({ email, role })), sso: body.sso ?? false }),
        );
        actor.access.invalidate(org.id);
        return result;
      } catch (error) {
        // Two requests inviting the same new address at once: the second one's account insert collides.
        if (isUniqueViolation(error)) throw conflict("Another request created one of these accounts at the same time; retry the invitation.");
        throw error;
      }
    },
  );

  app.post(
    "/v1/orgs/:organizationId/invites/:inviteId",
    {
      schema: {
        tags,
        operationId: "joinOrganizationWithInvite",
        params: InviteParams,
        response: { 200: JoinWithInviteResponse, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { organizationId, inviteId } = request.params;
      // The holder of a link is usually not a member yet, so the organization is not hidden from
      // them; a missing organization and a missing invite answer alike.
      const org = await getOrganization(db, organizationId);
      const invite = org ? await getLinkInvite(db, org.id, inviteId) : undefined;
      if (!org || !invite) throw notFound(inviteNotFound(inviteId));
      if (invite.targetType !== "organization") throw badRequest(CONTENT_INVITES_UNAVAILABLE);
      if (!org.inviteLinks) throw badRequest(linksDisabled(org));
      const role = isRole(invite.role) ? invite.role : null;
      await db.transaction().execute((trx) => joinWithInvite(trx, { orgId: org.id, userId: actor.user.id, role }));
      actor.access.invalidate(org.id);
      return {};
    },
  );

  app.get(
    "/v1/orgs/:organizationId/link-invites",
    {
      schema: {
        tags,
        operationId: "listOrganizationInviteLinks",
        params: OrganizationParams,
        querystring: ListQuery,
        response: { 200: ListOf(LinkInviteSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { org, access } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      authorize(linkInvitePermissions(access), "admin", {
        notFound: `No organization with id "${org.id}".`,
        forbidden: "Only organization admins can see invite links.",
      });
      // The spec lists organization invite links here (`InviteLinkToOrganization` items).
      const page = await listLinkInvites(db, org.id, "organization", request.query);
      return toList(page, (invite) => presentLinkInvite(invite, isInviteRedundant(access, { role: isRole(invite.role) ? invite.role : null })));
    },
  );

  app.post(
    "/v1/orgs/:organizationId/link-invites",
    {
      schema: {
        tags,
        operationId: "createOrganizationInvite",
        params: OrganizationParams,
        body: CreateLinkInviteBody,
        response: { 201: LinkInviteSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { org, access } = await requireOrganization(db, actor, request.params.organizationId);
      authorize(linkInvitePermissions(access), "admin", {
        notFound: `No organization with id "${org.id}".`,
        forbidden: "Only organization admins can create invite links.",
      });
      const body = request.body;
      if (!("role" in body)) throw badRequest(CONTENT_INVITES_UNAVAILABLE);
      if (!org.inviteLinks) throw badRequest(linksDisabled(org));
      const invite = await insertLinkInvite(db, {
        orgId: org.id,
        targetType: "organization",
        targetId: null,
        role: body.role,
        createdBy: actor.user.id,
      });
      reply.code(201);
      return presentLinkInvite(invite, isInviteRedundant(access, { role: body.role }));
    },
  );

  app.get(
    "/v1/orgs/:organizationId/link-invites/:inviteId",
    {
      schema: {
        tags,
        operationId: "getOrganizationInviteLink",
        params: InviteParams,
        response: { 200: LinkInviteSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { inviteId } = request.params;
      const { org, access } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      authorize(linkInvitePermissions(access), "admin", {
        notFound: inviteNotFound(inviteId),
        forbidden: "Only organization admins can see invite links.",
      });
      const invite = await getLinkInvite(db, org.id, inviteId);
      if (!invite) throw notFound(inviteNotFound(inviteId));
      if (invite.targetType !== "organization") throw badRequest(CONTENT_INVITES_UNAVAILABLE);
      const role = isRole(invite.role) ? invite.role : null;
      return presentLinkInvite(invite, isInviteRedundant(access, { role }));
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/link-invites/:inviteId",
    {
      schema: {
        tags,
        operationId: "updateOrganizationInviteById",
        params: InviteParams,
        body: UpdateLinkInviteBody,
        response: { 200: LinkInviteSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { inviteId } = request.params;
      const { org, access } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      authorize(linkInvitePermissions(access), "admin", {
        notFound: inviteNotFound(inviteId),
        forbidden: "Only organization admins can change invite links.",
      });
      const invite = await getLinkInvite(db, org.id, inviteId);
      if (!invite) throw notFound(inviteNotFound(inviteId));
      if (invite.targetType !== "organization") throw badRequest(CONTENT_INVITES_UNAVAILABLE);
      const body = request.body;
      if (!("role" in body)) {
        throw badRequest("This invite link is to the organization: change its `role`; `level` is for links to spaces and collections.");
      }
      await updateLinkInviteRole(db, org.id, invite.id, body.role);
      return presentLinkInvite({ ...invite, role: body.role }, isInviteRedundant(access, { role: body.role }));
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/link-invites/:inviteId",
    {
      schema: {
        tags,
        operationId: "deleteOrganizationInviteById",
        params: InviteParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { inviteId } = request.params;
      const { org, access } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      authorize(linkInvitePermissions(access), "admin", {
        notFound: inviteNotFound(inviteId),
        forbidden: "Only organization admins can delete invite links.",
      });
      await deleteLinkInvite(db, org.id, inviteId);
      return reply.code(204).send(null);
    },
  );
};
