import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import Type from "typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { errorResponses, Id, ListOf, ListQuery, NoContent } from "../../http/schemas.js";
import { toList } from "../../lib/pagination.js";
import type { Actor } from "../../permissions/actor.js";
import { authorize } from "../../permissions/authorize.js";
import { isRole, type Role } from "../../permissions/roles.js";
import { type LoadedSite, requireSite } from "../sites/sites.loader.js";
import { teamPermissions } from "../teams/teams.policy.js";
import { presentTeam } from "../teams/teams.presenter.js";
import { teamCounts } from "../teams/teams.queries.js";
import { presentUser } from "../users/users.presenter.js";
import { siteGrantsPolicy } from "./content-permissions.policy.js";
import { listTeamGrants, listUserGrants } from "./content-permissions.queries.js";
import { SitePermissionBody, TeamSitePermission, UserSitePermission } from "./content-permissions.schemas.js";
import { assertPrincipalsInOrganization, setGrants } from "./content-permissions.service.js";

const tags = ["site-permissions"];
const SiteParams = Type.Object({ organizationId: Id, siteId: Id });
const prefix = "/v1/orgs/:organizationId/sites/:siteId/permissions";

/**
 * Who may see and change a site beyond what their organization role gives (sites.policy.ts
 * `siteLevel`): the user and team grants on the site, listed and set the way a space's are.
 * GitBook 0.202 has no invite operation for sites: PATCH sets a grant whether or not there was one,
 * and a body without `role` (or with `role: null`) removes it.
 */
export const sitePermissionRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  async function loadFor(actor: Actor, orgId: string, siteId: string, action: "list" | "manage"): Promise<LoadedSite> {
    const loaded = await requireSite(db, actor, orgId, siteId);
    authorize(siteGrantsPolicy(loaded.access, loaded.permissions), action, {
      notFound: `No site with id "${siteId}" in this organization.`,
      forbidden:
        action === "manage"
          ? `Only organization admins, the site's creator and members with the admin level on site "${siteId}" can change who has access to it.`
          : `Guests cannot list who has access to site "${siteId}".`,
    });
    return loaded;
  }

  app.get(
    `${prefix}/users`,
    {
      schema: {
        tags,
        operationId: "listUserPermissionsInSite",
        description:
          "The users granted a level on this site (raising what their organization role gives), oldest grant first. Members who see the site can list them; guests cannot.",
        params: SiteParams,
        querystring: ListQuery,
        response: { 200: ListOf(UserSitePermission), ...errorResponses },
      },
    },
    async (request) => {
      const { site } = await loadFor(actorOf(request), request.params.organizationId, request.params.siteId, "list");
      const page = await listUserGrants(db, site.id, request.query);
      return toList(page, (row) => {
        const { grantRole, grantCreatedAt: _created, ...user } = row;
        return { permission: asRole(grantRole), user: presentUser(user, urls) };
      });
    },
  );

  app.get(
    `${prefix}/teams`,
    {
      schema: {
        tags,
        operationId: "listTeamPermissionsInSite",
        description: "The teams granted a level on this site, oldest grant first. Members who see the site can list them; guests cannot.",
        params: SiteParams,
        querystring: ListQuery,
        response: { 200: ListOf(TeamSitePermission), ...errorResponses },
      },
    },
    async (request) => {
      const { site, access } = await loadFor(actorOf(request), request.params.organizationId, request.params.siteId, "list");
      const page = await listTeamGrants(db, site.id, request.query);
      const counts = await teamCounts(
        db,
        site.orgId,
        page.rows.map((t) => t.id),
      );
      return toList(page, (team) => ({
        permission: asRole(team.grantRole),
        team: presentTeam(team, counts.get(team.id)!, teamPermissions(access, team)),
      }));
    },
  );

  for (const principal of ["user", "team"] as const) {
    const idParam = principal === "user" ? "userId" : "teamId";
    const Name = principal === "user" ? "User" : "Team";
    app.patch(
      `${prefix}/${principal}s/:${idParam}`,
      {
        schema: {
          tags,
          operationId: `update${Name}PermissionInSite`,
          description: `Sets the ${principal}'s level on this site (a ${principal === "user" ? "member or guest" : "team"} of the organization; 404 otherwise), or removes it when \`role\` is absent or null. \`read\` lets them see the site; \`edit\`, \`review\` and \`create\` let them change its settings, structure and customization (publishing and share links also need the read level on every space it shows); \`admin\` also lets them delete it and manage its visitor authentication and who has access. Needs the admin level on the site.`,
          params: Type.Object({ organizationId: Id, siteId: Id, [idParam]: Id }),
          body: SitePermissionBody,
          response: { 204: NoContent, ...errorResponses },
        },
      },
      async (request, reply) => {
        const actor = actorOf(request);
        const params = request.params as Record<string, string>;
        const principalId = params[idParam] as string;
        const { site } = await loadFor(actor, params.organizationId as string, params.siteId as string, "manage");
        const role = request.body.role ?? null;
        // Removing is allowed for an id that is no longer a member or team (its grant may linger).
        if (role !== null) {
          await assertPrincipalsInOrganization(db, site.orgId, {
            users: principal === "user" ? [principalId] : [],
            teams: principal === "team" ? [principalId] : [],
          });
        }
        await db.transaction().execute((trx) =>
          setGrants(trx, {
            target: { type: "site", id: site.id, orgId: site.orgId },
            role,
            users: principal === "user" ? [principalId] : [],
            teams: principal === "team" ? [principalId] : [],
          }),
        );
        actor.access.invalidate(site.orgId);
        return reply.code(204).send(null);
      },
    );
  }
};

function asRole(value: string): Role {
  if (!isRole(value)) throw new Error(`Stored grant role "${value}" is not a role`);
  return value;
}
