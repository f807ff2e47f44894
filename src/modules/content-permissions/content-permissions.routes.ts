import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import Type from "typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { badRequest, notFound } from "../../http/errors.js";
import { errorResponses, Id, ListOf, ListQuery, NoContent } from "../../http/schemas.js";
import { paginateRows, toList } from "../../lib/pagination.js";
import { type ContentNode, contentLevel, loadMembersAccess, type OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { authorize } from "../../permissions/authorize.js";
import { deleteGrant, getGrantRole, type PrincipalType, type TargetType } from "../../permissions/grants.queries.js";
import { atLeast, isRole, type Role } from "../../permissions/roles.js";
import { requireCollection } from "../collections/collections.loader.js";
import { requireLiveSpace } from "../spaces/spaces.loader.js";
import { teamPermissions } from "../teams/teams.policy.js";
import { presentTeam } from "../teams/teams.presenter.js";
import { teamCounts } from "../teams/teams.queries.js";
import { presentUser } from "../users/users.presenter.js";
import { getUsersByIds } from "../users/users.queries.js";
import { contentPermissionsPolicy } from "./content-permissions.policy.js";
import { listEnabledMembers, listTeamGrants, listUserGrants } from "./content-permissions.queries.js";
import {
  AggregateQuery,
  InviteBody,
  TeamContentPermission,
  UpdatePermissionBody,
  UserContentPermission,
} from "./content-permissions.schemas.js";
import { assertPrincipalsInOrganization, type ContentTarget, setGrants } from "./content-permissions.service.js";

interface LoadedTarget {
  target: ContentTarget;
  node: ContentNode;
  access: OrgAccess;
  level: Role | null;
}

interface TargetKind {
  type: TargetType;
  /** Path parameter holding the object's id. */
  param: "spaceId" | "collectionId";
  prefix: string;
  /** Suffix of the spec's operation ids (inviteToSpace, removeTeamFromCollection...). */
  name: "Space" | "Collection";
  load(actor: Actor, id: string): Promise<LoadedTarget>;
}

/**
 * Who has access to a space or a collection: direct user and team grants (list, set, change,
 * remove) and everyone's effective level (aggregate). The same routes serve both objects.
 */
export const contentPermissionRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  const kinds: TargetKind[] = [
    {
      type: "space",
      param: "spaceId",
      prefix: "/v1/spaces/:spaceId",
      name: "Space",
      async load(actor, id) {
        // A deleted space's permissions are frozen until it is restored.
        const { space, access, level } = await requireLiveSpace(db, actor, id);
        return { target: { type: "space", id: space.id, orgId: space.orgId }, node: space, access, level };
      },
    },
    {
      type: "collection",
      param: "collectionId",
      prefix: "/v1/collections/:collectionId",
      name: "Collection",
      async load(actor, id) {
        const { collection, access } = await requireCollection(db, actor, id);
        return {
          target: { type: "collection", id: collection.id, orgId: collection.orgId },
          node: collection,
          access,
          level: contentLevel(access, collection),
        };
      },
    },
  ];

  for (const kind of kinds) {
    const tags = [`${kind.type}-permissions`];
    const Params = Type.Object({ [kind.param]: Id });
    const UserParams = Type.Object({ [kind.param]: Id, userId: Id });
    const TeamParams = Type.Object({ [kind.param]: Id, teamId: Id });
    const what = (id: string) => `${kind.type} "${id}"`;

    /** Loads the object and enforces `action` of the permission policy. */
    async function loadFor(actor: Actor, id: string, action: "list" | "manage"): Promise<LoadedTarget> {
      const loaded = await kind.load(actor, id);
      const policy = contentPermissionsPolicy(loaded.access, loaded.level);
      authorize(policy, action, {
        notFound: `No ${kind.type} with id "${id}".`,
        forbidden:
          action === "manage"
            ? `Only admins of ${what(id)} can manage who has access to it.`
            : `Guests cannot list who has access to ${what(id)}.`,
      });
      return loaded;
    }

    app.post(
      `${kind.prefix}/permissions`,
      {
        schema: {
          tags,
          operationId: `inviteTo${kind.name}`,
          params: Params,
          body: InviteBody,
          response: { 204: NoContent, ...errorResponses },
        },
      },
      async (request, reply) => {
        const actor = actorOf(request);
        const { target } = await loadFor(actor, request.params[kind.param] as string, "manage");
        const users = [...new Set(request.body.users ?? [])];
        const teams = [...new Set(request.body.teams ?? [])];
        if (users.length === 0 && teams.length === 0) {
          throw badRequest("Give body.users or body.teams: the ids of the users or teams whose access to set.");
        }
        await assertPrincipalsInOrganization(db, target.orgId, { users, teams });
        await db.transaction().execute((trx) => setGrants(trx, { target, role: request.body.role, users, teams }));
        actor.access.invalidate(target.orgId);
        return reply.code(204).send(null);
      },
    );

    app.get(
      `${kind.prefix}/permissions/users`,
      {
        schema: {
          tags,
          operationId: `listUserPermissionsIn${kind.name}`,
          params: Params,
          querystring: ListQuery,
          response: { 200: ListOf(UserContentPermission), ...errorResponses },
        },
      },
      async (request) => {
        const { target } = await loadFor(actorOf(request), request.params[kind.param] as string, "list");
        const page = await listUserGrants(db, target.id, request.query);
        return toList(page, (row) => {
          const { grantRole, grantCreatedAt: _created, ...user } = row;
          return { permission: asRole(grantRole), user: presentUser(user, urls) };
        });
      },
    );

    app.get(
      `${kind.prefix}/permissions/teams`,
      {
        schema: {
          tags,
          operationId: `listTeamPermissionsIn${kind.name}`,
          params: Params,
          querystring: ListQuery,
          response: { 200: ListOf(TeamContentPermission), ...errorResponses },
        },
      },
      async (request) => {
        const { target, access } = await loadFor(actorOf(request), request.params[kind.param] as string, "list");
        const page = await listTeamGrants(db, target.id, request.query);
        const counts = await teamCounts(
          db,
          target.orgId,
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
        `${kind.prefix}/permissions/${principal}s/:${idParam}`,
        {
          schema: {
            tags,
            operationId: `update${Name}PermissionIn${kind.name}`,
            params: principal === "user" ? UserParams : TeamParams,
            body: UpdatePermissionBody,
            response: { 204: NoContent, ...errorResponses },
          },
        },
        async (request, reply) => {
          const actor = actorOf(request);
          const params = request.params as Record<string, string>;
          const principalId = params[idParam] as string;
          const { target } = await loadFor(actor, params[kind.param] as string, "manage");
          const key = { targetId: target.id, principalType: principal as PrincipalType, principalId };
          if (!(await getGrantRole(db, key))) {
            throw notFound(
              `The ${principal} "${principalId}" has no permission on ${what(target.id)}; add it with POST ${kind.prefix.replace(`:${kind.param}`, target.id)}/permissions.`,
            );
          }
          await db.transaction().execute((trx) =>
            setGrants(trx, {
              target,
              role: request.body.role,
              users: principal === "user" ? [principalId] : [],
              teams: principal === "team" ? [principalId] : [],
            }),
          );
          actor.access.invalidate(target.orgId);
          return reply.code(204).send(null);
        },
      );

      app.delete(
        `${kind.prefix}/permissions/${principal}s/:${idParam}`,
        {
          schema: {
            tags,
            operationId: `remove${Name}From${kind.name}`,
            params: principal === "user" ? UserParams : TeamParams,
            response: { 204: NoContent, ...errorResponses },
          },
        },
        async (request, reply) => {
          const actor = actorOf(request);
          const params = request.params as Record<string, string>;
          const { target } = await loadFor(actor, params[kind.param] as string, "manage");
          // 204 whether or not the grant existed, like every DELETE.
          await deleteGrant(db, { targetId: target.id, principalType: principal, principalId: params[idParam] as string });
          actor.access.invalidate(target.orgId);
          return reply.code(204).send(null);
        },
      );
    }

    app.get(
      `${kind.prefix}/permissions/aggregate`,
      {
        schema: {
          tags,
          operationId: `listPermissionsAggregateIn${kind.name}`,
          params: Params,
          querystring: AggregateQuery,
          response: { 200: ListOf(UserContentPermission), ...errorResponses },
        },
      },
      async (request) => {
        const { target, node, access } = await loadFor(actorOf(request), request.params[kind.param] as string, "list");
        // Everyone's level comes from the same resolver as their own requests: grants on the
        // object and its ancestor collections (to them or their teams), defaults, organization admin.
        const ancestors = ancestorIds(access, node.parentId);
        const [everyone, members] = await Promise.all([
          loadMembersAccess(db, target.orgId, { targetIds: [target.id, ...ancestors] }),
          listEnabledMembers(db, target.orgId),
        ]);
        const wanted = request.query.role;
        const rows: { userId: string; joinedAt: string; level: Role }[] = [];
        for (const member of members) {
          const memberAccess = everyone.get(member.userId);
          const level = memberAccess ? contentLevel(memberAccess, node) : null;
          if (!level || !atLeast(level, "read")) continue;
          if (wanted && level !== wanted) continue;
          rows.push({ ...member, level });
        }
        const page = paginateRows(
          rows,
          [
            { direction: "asc", value: (r) => r.joinedAt },
            { direction: "asc", value: (r) => r.userId },
          ],
          request.query,
        );
        const users = new Map(
          (
            await getUsersByIds(
              db,
              page.rows.map((r) => r.userId),
            )
          ).map((u) => [u.id, u]),
        );
        return toList(
          { ...page, rows: page.rows.flatMap((r) => (users.has(r.userId) ? [{ ...r, user: users.get(r.userId)! }] : [])) },
          (r) => ({ permission: r.level, user: presentUser(r.user, urls) }),
        );
      },
    );
  }
};

/** Ancestor collection ids, nearest first (the access already holds the organization's tree). */
function ancestorIds(access: OrgAccess, parentId: string | null): string[] {
  const ids: string[] = [];
  let current = parentId;
  // Bounded like the resolver, so a corrupted tree cannot loop.
  for (let depth = 0; current && depth < 64; depth++) {
    ids.push(current);
    current = access.collections.get(current)?.parentId ?? null;
  }
  return ids;
}

function asRole(value: string): Role {
  if (!isRole(value)) throw new Error(`Stored grant role "${value}" is not a role`);
  return value;
}
