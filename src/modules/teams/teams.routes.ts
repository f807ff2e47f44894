import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Executor } from "../../db/database.js";
import type { TeamRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { badRequest, notFound } from "../../http/errors.js";
import { errorResponses, ListOf, ListQuery, NoContent } from "../../http/schemas.js";
import { listOf, toList } from "../../lib/pagination.js";
import type { OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { authorize } from "../../permissions/authorize.js";
import { getMember } from "../../permissions/memberships.queries.js";
import { GUEST_FORBIDDEN, memberNotFound, memberPermissions } from "../members/members.policy.js";
import { memberCounts } from "../members/members.queries.js";
import { ListMemberTeamsQuery, MemberParams } from "../members/members.schemas.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { teamPermissions } from "./teams.policy.js";
import { presentTeam, presentTeamMember } from "./teams.presenter.js";
import {
  deleteTeam,
  deleteTeamMembers,
  getTeam,
  listTeamMembers,
  listTeams,
  listTeamsOfMember,
  renameTeam,
  teamCounts,
} from "./teams.queries.js";
import {
  AddTeamMemberBody,
  CreateTeamBody,
  ListTeamsQuery,
  MemberTeamSchema,
  TeamMemberParams,
  TeamMemberSchema,
  TeamParams,
  TeamSchema,
  UpdateTeamBody,
  UpdateTeamMembersBody,
} from "./teams.schemas.js";
import { createTeam, putTeamMember, requireTeam, teamNotFound, updateTeamMembers } from "./teams.service.js";

const tags = ["teams"];

/** Presents teams with their counts, loaded for the whole batch at once. */
export async function presentTeams(db: Executor, orgId: string, teams: TeamRow[], access: OrgAccess) {
  const counts = await teamCounts(
    db,
    orgId,
    teams.map((t) => t.id),
  );
  return teams.map((team) => presentTeam(team, counts.get(team.id)!, teamPermissions(access, team)));
}

/** Teams of an organization and their members; the teams of a member. */
export const teamRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, dialect, urls } = deps;

  /** The team, for a caller who may change its members (organization admin or team owner). */
  async function requireTeamMemberAdmin(actor: Actor, params: { organizationId: string; teamId: string }) {
    const loaded = await requireTeam(db, actor, params.organizationId, params.teamId);
    authorize(loaded.teamPermissions, "admin", {
      notFound: teamNotFound(loaded.team.id),
      forbidden: "Only organization admins and the team's owners can change its members.",
    });
    return loaded;
  }

  app.get(
    "/v1/orgs/:organizationId/teams",
    {
      schema: {
        tags,
        operationId: "listTeamsInOrganizationById",
        params: OrganizationParams,
        querystring: ListTeamsQuery,
        response: { 200: ListOf(TeamSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { org, access, permissions } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "listTeams", {
        notFound: `No organization with id "${org.id}".`,
        forbidden: "Guests cannot list the organization's teams.",
      });
      const { owner, ...options } = request.query;
      let ownedBy: string | undefined;
      if (owner !== undefined) {
        const ownerMember = await getMember(db, org.id, owner);
        if (!ownerMember) throw badRequest(`query parameter "owner" names "${owner}", which is not a member of this organization.`);
        // A disabled member manages nothing; an admin manages every team.
        if (ownerMember.disabled) return { items: [], count: 0 };
        if (ownerMember.role !== "admin") ownedBy = owner;
      }
      const page = await listTeams(db, dialect, org.id, { ...options, ownedBy });
      return listOf(page, await presentTeams(db, org.id, page.rows, access));
    },
  );

  app.put(
    "/v1/orgs/:organizationId/teams",
    {
      schema: {
        tags,
        operationId: "createOrganizationTeam",
        params: OrganizationParams,
        body: CreateTeamBody,
        response: { 201: TeamSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { org, permissions } = await requireOrganization(db, actor, request.params.organizationId);
      authorize(permissions, "admin", {
        notFound: `No organization with id "${org.id}".`,
        forbidden: "Only organization admins can create teams.",
      });
      const team = await db
        .transaction()
        .execute((trx) => createTeam(trx, { orgId: org.id, title: request.body.title, memberIds: request.body.members ?? [] }));
      const access = await actor.access.forOrg(org.id);
      const [presented] = await presentTeams(db, org.id, [team], access);
      reply.code(201).header("location", urls.api(`/orgs/${org.id}/teams/${team.id}`));
      return presented!;
    },
  );

  app.get(
    "/v1/orgs/:organizationId/teams/:teamId",
    {
      schema: {
        tags,
        operationId: "getTeamInOrganizationById",
        params: TeamParams,
        response: { 200: TeamSchema, ...errorResponses },
      },
    },
    async (request) => {
      const {
        org,
        team,
        teamPermissions: permissions,
      } = await requireTeam(db, actorOf(request), request.params.organizationId, request.params.teamId);
      authorize(permissions, "view", { notFound: teamNotFound(team.id), forbidden: "You cannot view this team." });
      const counts = await teamCounts(db, org.id, [team.id]);
      return presentTeam(team, counts.get(team.id)!, permissions);
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/teams/:teamId",
    {
      schema: {
        tags,
        operationId: "updateTeamInOrganizationById",
        params: TeamParams,
        body: UpdateTeamBody,
        response: { 200: TeamSchema, ...errorResponses },
      },
    },
    async (request) => {
      const {
        org,
        team,
        teamPermissions: permissions,
      } = await requireTeam(db, actorOf(request), request.params.organizationId, request.params.teamId);
      authorize(permissions, "admin", {
        notFound: teamNotFound(team.id),
        forbidden: "Only organization admins and the team's owners can rename this team.",
      });
      await renameTeam(db, org.id, team.id, request.body.title);
      const updated = (await getTeam(db, org.id, team.id)) ?? team;
      const counts = await teamCounts(db, org.id, [team.id]);
      return presentTeam(updated, counts.get(team.id)!, permissions);
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/teams/:teamId",
    {
      schema: {
        tags,
        operationId: "removeTeamFromOrganizationById",
        params: TeamParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { org, permissions } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      // Checked before looking the team up, so that the answer does not tell whether it exists.
      authorize(permissions, "admin", {
        notFound: `No organization with id "${org.id}".`,
        forbidden: "Only organization admins can delete teams.",
      });
      await db.transaction().execute((trx) => deleteTeam(trx, org.id, request.params.teamId));
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/teams/:teamId/members",
    {
      schema: {
        tags,
        operationId: "listTeamMembersInOrganizationById",
        params: TeamParams,
        querystring: ListQuery,
        response: { 200: ListOf(TeamMemberSchema), ...errorResponses },
      },
    },
    async (request) => {
      const {
        org,
        team,
        teamPermissions: permissions,
      } = await requireTeam(db, actorOf(request), request.params.organizationId, request.params.teamId);
      authorize(permissions, "view", { notFound: teamNotFound(team.id), forbidden: "You cannot view this team's members." });
      const page = await listTeamMembers(db, org.id, team.id, request.query);
      const counts = await memberCounts(
        db,
        org.id,
        page.rows.map((r) => r.userId),
      );
      return toList(page, (row) => presentTeamMember(row, counts.get(row.userId)!, permissions, urls));
    },
  );

  app.put(
    "/v1/orgs/:organizationId/teams/:teamId/members",
    {
      schema: {
        tags,
        operationId: "updateMembersInOrganizationTeam",
        params: TeamParams,
        body: UpdateTeamMembersBody,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { org, team } = await requireTeamMemberAdmin(actor, request.params);
      await db.transaction().execute((trx) => updateTeamMembers(trx, { orgId: org.id, teamId: team.id, change: request.body }));
      actor.access.invalidate(org.id);
      return reply.code(204).send(null);
    },
  );

  app.put(
    "/v1/orgs/:organizationId/teams/:teamId/members/:userId",
    {
      schema: {
        tags,
        operationId: "addMemberToOrganizationTeamById",
        params: TeamMemberParams,
        body: AddTeamMemberBody,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { org, team } = await requireTeamMemberAdmin(actor, request.params);
      await db
        .transaction()
        .execute((trx) => putTeamMember(trx, { orgId: org.id, teamId: team.id, userId: request.params.userId, role: request.body.role }));
      actor.access.invalidate(org.id);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/teams/:teamId/members/:userId",
    {
      schema: {
        tags,
        operationId: "deleteMemberFromOrganizationTeamById",
        params: TeamMemberParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { org, team } = await requireTeamMemberAdmin(actor, request.params);
      await deleteTeamMembers(db, team.id, [request.params.userId]);
      actor.access.invalidate(org.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/members/:userId/teams",
    {
      schema: {
        tags: ["members"],
        operationId: "listTeamsForOrganizationMember",
        params: MemberParams,
        querystring: ListMemberTeamsQuery,
        response: { 200: ListOf(MemberTeamSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { userId } = request.params;
      const { org, access } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      authorize(memberPermissions(access, { userId }), "read", { notFound: memberNotFound(userId), forbidden: GUEST_FORBIDDEN });
      if (!(await getMember(db, org.id, userId))) throw notFound(memberNotFound(userId));
      const page = await listTeamsOfMember(db, dialect, org.id, userId, request.query);
      const counts = await teamCounts(
        db,
        org.id,
        page.rows.map((t) => t.id),
      );
      return toList(page, (team) => ({
        team: presentTeam(team, counts.get(team.id)!, teamPermissions(access, team)),
        member: { role: team.memberRole },
      }));
    },
  );
};
