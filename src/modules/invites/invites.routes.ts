import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { isUniqueViolation } from "../../db/dialect.js";
import type { LinkInviteRow, OrganizationRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { badRequest, conflict, forbidden, notFound } from "../../http/errors.js";
import { ErrorBody, errorResponses, ListOf, ListQuery, NoContent } from "../../http/schemas.js";
import { toList } from "../../lib/pagination.js";
import { contentLevel, type OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { authorize } from "../../permissions/authorize.js";
import { atLeast, isRole, type Role } from "../../permissions/roles.js";
import { loadCollection } from "../collections/collections.loader.js";
import { presentCollection } from "../collections/collections.presenter.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { getOrganization } from "../organizations/organizations.queries.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { spaceActivityCount } from "../spaces/space-activity.queries.js";
import { loadSpace } from "../spaces/spaces.loader.js";
import { presentSpace } from "../spaces/spaces.presenter.js";
import { normalizeEmail } from "../users/users.queries.js";
import { isInvitableEmail, isInviteRedundant, linkInvitePermissions } from "./invites.policy.js";
import { presentLinkInvite } from "./invites.presenter.js";
import { deleteLinkInvite, getLinkInvite, insertLinkInvite, listLinkInvites, updateLinkInviteRole } from "./invites.queries.js";
import {
  AnyLinkInviteSchema,
  CreateLinkInviteBody,
  InviteParams,
  InviteUsersBody,
  InviteUsersResponse,
  JoinWithInviteResponse,
  LinkInviteSchema,
  UpdateLinkInviteBody,
} from "./invites.schemas.js";
import { inviteUsers, joinWithContentInvite, joinWithInvite } from "./invites.service.js";

const tags = ["invites"];

const inviteNotFound = (inviteId: string) => `No invite link with id "${inviteId}" in this organization.`;
const linksDisabled = (org: OrganizationRow) =>
  `Invite links are disabled in this organization; an admin can enable them with PATCH /v1/orgs/${org.id} {"inviteLinks": true}.`;

/** Invitations by email, and invite links: their management by admins and their use by anyone holding one. */
export const inviteRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  /**
   * The space or collection a content invite points at, as the caller sees it: 404 when it is not
   * content of this organization the caller can see (or is deleted).
   */
  async function contentTarget(actor: Actor, orgId: string, target: { type: "space" | "collection"; id: string }) {
    if (target.type === "space") {
      const loaded = await loadSpace(db, actor, target.id);
      if (!loaded || loaded.space.orgId !== orgId || loaded.space.deletedAt || !loaded.permissions.view) {
        throw notFound(`No space with id "${target.id}" in this organization.`);
      }
      return {
        level: loaded.level,
        admin: loaded.permissions.admin,
        present: async () => ({
          space: presentSpace(
            loaded.space,
            { permissions: loaded.permissions, counts: await spaceActivityCount(db, loaded.space.id) },
            urls,
          ),
        }),
      };
    }
    const loaded = await loadCollection(db, actor, target.id);
    if (!loaded || loaded.collection.orgId !== orgId || !loaded.permissions.view) {
      throw notFound(`No collection with id "${target.id}" in this organization.`);
    }
    const level = contentLevel(loaded.access, loaded.collection);
    return {
      level,
      admin: loaded.permissions.admin,
      present: () => ({ collection: presentCollection(loaded.collection, loaded.permissions, urls) }),
    };
  }

  /** Any kind of invite link, for a caller allowed to manage it (organization admin, or admin of its content). */
  async function presentAny(actor: Actor, access: OrgAccess, invite: LinkInviteRow) {
    if (invite.targetType === "organization") {
      return presentLinkInvite(invite, isInviteRedundant(access, { role: isRole(invite.role) ? invite.role : null }));
    }
    const target = await contentTarget(actor, invite.orgId, {
      type: invite.targetType as "space" | "collection",
      id: invite.targetId ?? "",
    });
    const level = isRole(invite.role) ? invite.role : "read";
    return { object: "invite" as const, id: invite.id, level, redundant: atLeast(target.level, level), ...(await target.present()) };
  }

  /** Organization admins manage every invite link; admins of a space or collection manage theirs. */
  async function requireManageable(actor: Actor, access: OrgAccess, invite: LinkInviteRow, action: string): Promise<void> {
    if (access.membership?.role === "admin") return;
    if (invite.targetType !== "organization") {
      const target = await contentTarget(actor, invite.orgId, {
        type: invite.targetType as "space" | "collection",
        id: invite.targetId ?? "",
      });
      if (target.admin) return;
    }
    throw forbidden(
      invite.targetType === "organization"
        ? `Only organization admins can ${action} invite links.`
        : `Only organization admins, or admins of the invite's ${invite.targetType}, can ${action} invite links to it.`,
    );
  }

  /** An invite link of the organization that the caller may `action`: 404 when there is none. */
  async function requireManageableInvite(actor: Actor, params: { organizationId: string; inviteId: string }, action: string) {
    const { org, access } = await requireOrganization(db, actor, params.organizationId);
    const invite = await getLinkInvite(db, org.id, params.inviteId);
    if (!invite) throw notFound(inviteNotFound(params.inviteId));
    await requireManageable(actor, access, invite, action);
    return { org, access, invite };
  }

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
        if (!isInvitableEmail(email)) throw badRequest(`body.emails contains "${raw}", which is not a valid email address.`);
        if (!invites.has(email)) invites.set(email, typeof entry === "string" ? defaultRole : entry.role);
      }
      try {
        const result = await db
          .transaction()
          .execute((trx) =>
            inviteUsers(trx, { orgId: org.id, invites: [...invites].map(([email, role]) => ({ email, role })), sso: body.sso ?? false }),
          );
        actor.access.invalidate(org.id);
        return result;
      } catch (error) {
        // Two requests inviting the same new address at once: the second one's account insert collides.
        if (isUniqueViolation(error))
          throw conflict("Another request created one of these accounts at the same time; retry the invitation.");
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
      if (!org.inviteLinks) throw badRequest(linksDisabled(org));
      const role = isRole(invite.role) ? invite.role : null;
      if (invite.targetType === "organization") {
        await db.transaction().execute((trx) => joinWithInvite(trx, { orgId: org.id, userId: actor.user.id, role }));
      } else {
        const target = { type: invite.targetType as "space" | "collection", id: invite.targetId ?? "" };
        const joined = await db
          .transaction()
          .execute((trx) => joinWithContentInvite(trx, { orgId: org.id, userId: actor.user.id, target, level: role ?? "read" }));
        if (!joined) throw notFound(inviteNotFound(inviteId));
      }
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
      return toList(page, (invite) =>
        presentLinkInvite(invite, isInviteRedundant(access, { role: isRole(invite.role) ? invite.role : null })),
      );
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
        response: { 201: AnyLinkInviteSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { org, access } = await requireOrganization(db, actor, request.params.organizationId);
      const body = request.body;
      if (!("role" in body)) {
        const target = "space" in body ? { type: "space" as const, id: body.space } : { type: "collection" as const, id: body.collection };
        const loaded = await contentTarget(actor, org.id, target);
        if (!loaded.admin) throw forbidden(`Only admins of the ${target.type} can create invite links to it.`);
        if (body.level === null)
          throw badRequest(`body.level must be a role for a link to a ${target.type} (read, comment, edit, review, create or admin).`);
        if (!org.inviteLinks) throw badRequest(linksDisabled(org));
        const invite = await insertLinkInvite(db, {
          orgId: org.id,
          targetType: target.type,
          targetId: target.id,
          role: body.level,
          createdBy: actor.user.id,
        });
        reply.code(201).header("location", urls.api(`/orgs/${org.id}/link-invites/${invite.id}`));
        return presentAny(actor, access, invite);
      }
      authorize(linkInvitePermissions(access), "admin", {
        notFound: `No organization with id "${org.id}".`,
        forbidden: "Only organization admins can create invite links to the organization.",
      });
      if (!org.inviteLinks) throw badRequest(linksDisabled(org));
      const invite = await insertLinkInvite(db, {
        orgId: org.id,
        targetType: "organization",
        targetId: null,
        role: body.role,
        createdBy: actor.user.id,
      });
      reply.code(201).header("location", urls.api(`/orgs/${org.id}/link-invites/${invite.id}`));
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
        response: { 200: AnyLinkInviteSchema, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { access, invite } = await requireManageableInvite(actor, request.params, "see");
      return presentAny(actor, access, invite);
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
        response: { 200: AnyLinkInviteSchema, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { org, access, invite } = await requireManageableInvite(actor, request.params, "change");
      const body = request.body;
      if (invite.targetType === "organization") {
        if (!("role" in body)) {
          throw badRequest("This invite link is to the organization: change its `role`; `level` is for links to spaces and collections.");
        }
        await updateLinkInviteRole(db, org.id, invite.id, body.role);
        return presentLinkInvite({ ...invite, role: body.role }, isInviteRedundant(access, { role: body.role }));
      }
      if (!("level" in body) || body.level === null) {
        throw badRequest(
          `This invite link is to a ${invite.targetType}: change its \`level\` (a role); \`role\` is for links to the organization.`,
        );
      }
      await updateLinkInviteRole(db, org.id, invite.id, body.level);
      return presentAny(actor, access, { ...invite, role: body.level });
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
      const actor = actorOf(request);
      const { inviteId } = request.params;
      const { org, access } = await requireOrganization(db, actor, request.params.organizationId);
      const invite = await getLinkInvite(db, org.id, inviteId);
      if (invite) {
        await requireManageable(actor, access, invite, "delete");
        await deleteLinkInvite(db, org.id, inviteId);
      }
      return reply.code(204).send(null);
    },
  );
};
