import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import Type from "typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { badRequest, conflict, forbidden, notFound } from "../../http/errors.js";
import { ErrorBody, errorResponses, ListOf, ListQuery, NoContent, type RichDocumentValue } from "../../http/schemas.js";
import { announceAccessChange } from "../../lib/access-changes.js";
import { parseJson } from "../../lib/json.js";
import { memberClaimsAllowed, signMemberClaims } from "../../lib/member-claims.js";
import { toList } from "../../lib/pagination.js";
import { nowIso } from "../../lib/time.js";
import { authorize } from "../../permissions/authorize.js";
import { addMember, getMember, markMemberSeen } from "../../permissions/memberships.queries.js";
import { checkMergeRules } from "../merge-rules/merge-rules.loader.js";
import { addressVerifiedEverywhere, addressVerifiedFor } from "../users/users.policy.js";
import { requireOrganization } from "./organizations.loader.js";
import { organizationPermissions } from "./organizations.policy.js";
import { presentOrganization } from "./organizations.presenter.js";
import {
  emailDomainOf,
  getOrganization,
  isHostnameTaken,
  listOrganizationsByEmailDomain,
  listOrganizationsOfUser,
  updateOrganization,
  verifiedAdminDomains,
} from "./organizations.queries.js";
import {
  AgentInstructionsSchema,
  CreateOrganizationBody,
  EmailDomain,
  OrganizationParams,
  OrganizationSchema,
  OrganizationsForDomain,
  PingResponse,
  UpdateAgentInstructionsBody,
  UpdateOrganizationBody,
} from "./organizations.schemas.js";
import { createOrganization } from "./organizations.service.js";

const tags = ["organizations"];

/** Organizations: list, create, get, update, join, email-domain lookup, agent instructions, ping. */
export const organizationRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  app.get(
    "/v1/orgs",
    {
      schema: {
        tags,
        operationId: "listOrganizationsForAuthenticatedUser",
        querystring: ListQuery,
        response: { 200: ListOf(OrganizationSchema), ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const page = await listOrganizationsOfUser(db, actor.user.id, request.query);
      return toList(page, (org) =>
        presentOrganization(
          org,
          organizationPermissions({
            membership: { role: org.memberRole, sso: false },
            ownedTeamIds: org.ownsTeam ? [""] : [],
          }),
          urls,
        ),
      );
    },
  );

  app.post(
    "/v1/orgs",
    {
      schema: {
        tags,
        operationId: "createOrganization",
        body: CreateOrganizationBody,
        response: { 201: OrganizationSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      // Whoever creates an organization may register its identity provider, and a provider speaks
      // for whatever addresses it likes inside its organization: the operator decides who may.
      if (deps.config.orgCreation !== "users") {
        throw forbidden(
          "Creating organizations through the API is turned off on this server (QUIRE_ORG_CREATION=operators): " +
            "an operator creates them with `quire orgs create --title <title> --owner <email>`, or sets QUIRE_ORG_CREATION=users to let every user create them.",
        );
      }
      const body = request.body;
      // The new organization has no identity provider yet: only an address verified for every organization counts.
      const owned = addressVerifiedEverywhere(actor.user) ? [emailDomainOf(actor.user.email) ?? ""] : [];
      await assertDomainsAllowed(body.emailDomains ?? [], new Set(owned));
      const org = await db.transaction().execute((trx) =>
        createOrganization(trx, {
          title: body.title,
          ownerId: actor.user.id,
          ...(body.emailDomains ? { emailDomains: body.emailDomains } : {}),
          ...(body.type ? { type: body.type } : {}),
          ...(body.useCase ? { useCase: body.useCase } : {}),
          ...(body.communityType ? { communityType: body.communityType } : {}),
        }),
      );
      const access = await actor.access.forOrg(org.id);
      reply.code(201).header("location", urls.api(`/orgs/${org.id}`));
      return presentOrganization(org, organizationPermissions(access), urls);
    },
  );

  app.get(
    "/v1/orgs/:organizationId",
    {
      schema: {
        tags,
        operationId: "getOrganizationById",
        params: OrganizationParams,
        response: { 200: OrganizationSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { org, permissions } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      return presentOrganization(org, permissions, urls);
    },
  );

  app.patch(
    "/v1/orgs/:organizationId",
    {
      schema: {
        tags,
        operationId: "updateOrganizationById",
        params: OrganizationParams,
        body: UpdateOrganizationBody,
        response: { 200: OrganizationSchema, 409: ErrorBody, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { org, permissions } = await requireOrganization(db, actor, request.params.organizationId);
      authorize(permissions, "admin", {
        notFound: `No organization with id "${org.id}".`,
        forbidden: "Only organization admins can change the organization's settings.",
      });
      const body = request.body;
      if (body.emailDomains) {
        const current = new Set(parseJson<string[]>(org.emailDomains, "organizations.email_domains"));
        const added = body.emailDomains.map((d) => d.toLowerCase()).filter((d) => !current.has(d));
        await assertDomainsAllowed(added, await verifiedAdminDomains(db, org.id));
      }
      if (body.hostname && (await isHostnameTaken(db, body.hostname, org.id))) {
        throw conflict(`The hostname "${body.hostname}" is already used by another organization.`);
      }
      if (body.mergeRules?.type === "rules") await checkMergeRules(db, org.id, body.mergeRules.rules, "body.mergeRules.rules");
      if (body.defaultContent) {
        // Sites arrive with the publishing issue; until then no site id can name default content.
        throw badRequest(`No site with id "${body.defaultContent.site}" in this organization; defaultContent can only be null.`);
      }
      await updateOrganization(db, org.id, {
        ...(body.title !== undefined ? { title: body.title } : {}),
        ...(body.emailDomains !== undefined
          ? { emailDomains: JSON.stringify([...new Set(body.emailDomains.map((d) => d.toLowerCase()))]) }
          : {}),
        ...(body.hostname !== undefined ? { hostname: body.hostname } : {}),
        ...(body.defaultRole !== undefined ? { defaultRole: body.defaultRole } : {}),
        ...(body.defaultContent === null ? { defaultContent: null } : {}),
        ...(body.logo !== undefined ? { logoUrl: body.logo } : {}),
        ...(body.sso !== undefined ? { sso: body.sso ? 1 : 0 } : {}),
        ...(body.ai !== undefined ? { ai: body.ai ? 1 : 0 } : {}),
        ...(body.inviteLinks !== undefined ? { inviteLinks: body.inviteLinks ? 1 : 0 } : {}),
        ...(body.mergeRules !== undefined ? { mergeRules: JSON.stringify(body.mergeRules) } : {}),
      });
      if (body.defaultRole !== undefined || body.sso !== undefined) announceAccessChange({ kind: "organization", orgId: org.id });
      const updated = await getOrganization(db, org.id);
      return presentOrganization(updated ?? org, permissions, urls);
    },
  );

  app.post(
    "/v1/orgs/:organizationId/join",
    {
      schema: {
        tags,
        operationId: "joinOrganization",
        params: OrganizationParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      // An organization the caller may not join answers exactly like one that does not exist, so
      // that an outsider cannot learn which organizations exist by trying ids.
      const cannotJoin = notFound(
        `No organization with id "${request.params.organizationId}" that you can join: joining needs a verified email address at one of the organization's email domains; otherwise ask an admin for an invite.`,
      );
      const org = await getOrganization(db, request.params.organizationId);
      if (!org) throw cannotJoin;
      const existing = await getMember(db, org.id, actor.user.id);
      if (!existing) {
        const domain = emailDomainOf(actor.user.email);
        const allowed = parseJson<string[]>(org.emailDomains, "organizations.email_domains");
        // An address another organization's identity provider vouched for proves nothing here.
        if (!addressVerifiedFor(actor.user, org.id) || !domain || !allowed.includes(domain)) throw cannotJoin;
        await addMember(db, { orgId: org.id, userId: actor.user.id, role: (org.defaultRole as never) ?? null });
      }
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/v1/email-domains/:emailDomain/orgs",
    {
      schema: {
        tags,
        operationId: "getOrganizationsForEmailDomain",
        params: Type.Object({ emailDomain: EmailDomain }),
        response: { 200: OrganizationsForDomain, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const domain = request.params.emailDomain.toLowerCase();
      // Listing organizations by domain would let anyone map a company's organizations; only
      // people who own an address at that domain may look it up.
      if (!addressVerifiedEverywhere(actor.user) || emailDomainOf(actor.user.email) !== domain) {
        throw forbidden(
          "You can only look up organizations for the domain of your own email address, verified by an operator or a sign-in link " +
            "(single sign-on vouches for an address inside its own organization only).",
        );
      }
      const orgs = await listOrganizationsByEmailDomain(db, domain);
      const organizations = [];
      for (const org of orgs) {
        const access = await actor.access.forOrg(org.id);
        organizations.push(presentOrganization(org, organizationPermissions(access), urls));
      }
      return { organizations };
    },
  );

  app.get(
    "/v1/orgs/:organizationId/agent-instructions",
    {
      schema: {
        tags,
        operationId: "getOrganizationAgentInstructions",
        params: OrganizationParams,
        response: { 200: AgentInstructionsSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { org, permissions } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "listMembers", {
        notFound: `No organization with id "${org.id}".`,
        forbidden: "Guests cannot read the organization's agent instructions.",
      });
      return presentAgentInstructions(org);
    },
  );

  app.put(
    "/v1/orgs/:organizationId/agent-instructions",
    {
      schema: {
        tags,
        operationId: "updateOrganizationAgentInstructions",
        params: OrganizationParams,
        body: UpdateAgentInstructionsBody,
        response: { 200: AgentInstructionsSchema, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { org, permissions } = await requireOrganization(db, actor, request.params.organizationId);
      authorize(permissions, "admin", {
        notFound: `No organization with id "${org.id}".`,
        forbidden: "Only organization admins can change the agent instructions.",
      });
      const instructions = { ...request.body.instructions, data: request.body.instructions.data ?? {} };
      await updateOrganization(db, org.id, {
        agentInstructions: JSON.stringify(instructions),
        agentInstructionsUpdatedAt: nowIso(),
        agentInstructionsUpdatedBy: actor.user.id,
      });
      const updated = await getOrganization(db, org.id);
      return presentAgentInstructions(updated ?? org);
    },
  );

  app.post(
    "/v1/orgs/:organizationId/ping",
    {
      config: { audit: { skip: "records when the member was last seen, not a change of the organization" } },
      schema: {
        tags,
        operationId: "updateOrganizationMemberLastSeenAt",
        params: OrganizationParams,
        response: { 200: PingResponse, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { org, access } = await requireOrganization(db, actor, request.params.organizationId);
      await markMemberSeen(db, org.id, actor.user.id);
      // A token of the member's visitor claims, which the organization's visitor-auth sites accept:
      // only for members with a role, since a guest reads no content unless granted.
      const role = access.membership?.role ?? null;
      if (!memberClaimsAllowed(role)) return {};
      const serviceVisitorClaims = await signMemberClaims(deps.secret, { orgId: org.id, userId: actor.user.id, role });
      return { serviceVisitorClaims };
    },
  );

  function presentAgentInstructions(org: {
    id: string;
    createdAt: string;
    agentInstructions: string | null;
    agentInstructionsUpdatedAt: string | null;
    agentInstructionsUpdatedBy: string | null;
  }) {
    return {
      object: "agent-instructions" as const,
      instructions: org.agentInstructions
        ? parseJson<RichDocumentValue>(org.agentInstructions, "organizations.agent_instructions")
        : { object: "document" as const, data: {}, nodes: [] },
      updatedAt: org.agentInstructionsUpdatedAt ?? org.createdAt,
      updatedBy: org.agentInstructionsUpdatedBy ?? "",
      urls: { location: urls.api(`/orgs/${org.id}/agent-instructions`) },
    };
  }
};

/**
 * Anyone with a verified address at a listed domain may join, so a domain may only be listed by
 * someone who owns it: each must be the verified email domain of an admin (or of the creator).
 */
async function assertDomainsAllowed(domains: string[], owned: Set<string>): Promise<void> {
  for (const domain of domains) {
    if (!owned.has(domain.toLowerCase())) {
      throw badRequest(
        `Cannot add the email domain "${domain}": it must be the domain of an organization admin's email address verified by an operator or a sign-in link ` +
          "(single sign-on vouches for an address inside its own organization only).",
      );
    }
  }
}
