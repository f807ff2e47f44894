/**
 * SCIM 2.0 (RFC 7643/7644) at `/scim/v2`: the organization is the one whose SCIM token the client
 * sends as `Authorization: Bearer` (one base URL for every organization; the token chooses).
 * Users are members, Groups are teams. Answers are `application/scim+json`; errors carry SCIM's
 * error body (`schemas`, `status`, `scimType`, `detail`) and Quire's `error` object. Also the
 * admin API of SCIM tokens under `/v1/orgs/{org}/scim/tokens`.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { statusOfDomainError } from "../../http/error-handler.js";
import { errorResponses, NoContent, Timestamp } from "../../http/schemas.js";
import { DomainError, invalid, missing, preconditionFailed } from "../../lib/errors.js";
import { authorize } from "../../permissions/authorize.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { loadSamlOrganization } from "../saml/saml.loader.js";
import {
  type AttributeSelection,
  ERROR_SCHEMA,
  GROUP_SCHEMA,
  listResponse,
  presentScimGroup,
  presentScimUser,
  type ScimResource,
  selectAttributes,
  USER_SCHEMA,
} from "./scim.presenter.js";
import {
  activeScimToken,
  externalIdsOf,
  findScimGroups,
  findScimUsers,
  insertScimToken,
  listScimTokens,
  membersOfTeams,
  revokeScimToken,
  teamsOfUsers,
  touchScimToken,
} from "./scim.queries.js";
import {
  changeScimGroup,
  changeScimUser,
  createScimGroup,
  createScimUser,
  deleteScimGroup,
  deleteScimUser,
  groupNotFound,
  userNotFound,
} from "./scim.service.js";
import { parseFilter } from "./scim-filter.model.js";
import type { UserChange } from "./scim-patch.model.js";
import { groupChangeOf, userChangeOf } from "./scim-patch.model.js";

const SCIM_TYPE = "application/scim+json; charset=utf-8";
const MAX_COUNT = 200;
const ADMINS_ONLY = "Only organization admins can manage SCIM tokens.";

declare module "fastify" {
  interface FastifyRequest {
    scimOrgId?: string;
  }
}

function scimError(reply: FastifyReply, status: number, detail: string) {
  const scimType = /^(\w+): /.exec(detail)?.[1];
  return reply
    .status(status)
    .type(SCIM_TYPE)
    .send({
      schemas: [ERROR_SCHEMA],
      status: String(status),
      ...(scimType && status === 400 ? { scimType } : scimType && status === 409 ? { scimType: "uniqueness" } : {}),
      detail,
      error: { code: status, message: detail },
    });
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** A User body (POST, PUT) as a change. */
function userBodyOf(body: unknown): UserChange {
  const b = (body ?? {}) as Record<string, unknown>;
  const name = (b.name ?? {}) as Record<string, unknown>;
  const emails = Array.isArray(b.emails) ? (b.emails as Record<string, unknown>[]) : [];
  const email = str((emails.find((e) => e?.primary === true) ?? emails[0])?.value);
  const active = b.active;
  return {
    ...(str(b.userName) !== undefined ? { userName: str(b.userName) } : email !== undefined ? { userName: email } : {}),
    ...(str(b.displayName) !== undefined
      ? { displayName: str(b.displayName) }
      : str(name.formatted) !== undefined
        ? { displayName: str(name.formatted) }
        : {}),
    ...(str(name.givenName) !== undefined ? { givenName: str(name.givenName) } : {}),
    ...(str(name.familyName) !== undefined ? { familyName: str(name.familyName) } : {}),
    ...(typeof active === "boolean" ? { active } : typeof active === "string" ? { active: active.toLowerCase() === "true" } : {}),
    ...(str(b.externalId) !== undefined ? { externalId: str(b.externalId) } : {}),
  };
}

function groupBodyOf(body: unknown): { displayName: string; externalId?: string; members: string[] } {
  const b = (body ?? {}) as Record<string, unknown>;
  const displayName = str(b.displayName)?.trim();
  if (!displayName || displayName.length > 100) throw invalid("invalidValue: displayName is required (1 to 100 characters).");
  const members = Array.isArray(b.members) ? (b.members as { value?: unknown }[]).map((m) => str(m?.value) ?? "") : [];
  if (members.some((m) => m === "")) throw invalid("invalidValue: every member needs a value (a user id).");
  return { displayName, ...(str(b.externalId) !== undefined ? { externalId: str(b.externalId) as string } : {}), members };
}

function pageOf(query: { startIndex?: number; count?: number }) {
  const startIndex = Math.max(1, query.startIndex ?? 1);
  const count = Math.min(MAX_COUNT, Math.max(0, query.count ?? 100));
  return { startIndex, offset: startIndex - 1, limit: count };
}

const ListQuery = Type.Object({
  filter: Type.Optional(Type.String({ maxLength: 1000 })),
  startIndex: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
  count: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
  attributes: Type.Optional(Type.String({ maxLength: 1000 })),
  excludedAttributes: Type.Optional(Type.String({ maxLength: 1000 })),
});
const ResourceParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const ResourceQuery = Type.Object({
  attributes: Type.Optional(Type.String({ maxLength: 1000 })),
  excludedAttributes: Type.Optional(Type.String({ maxLength: 1000 })),
});
const AnyBody = Type.Unknown();

const excludesMembers = (q: { excludedAttributes?: string | undefined }) => /(^|,)\s*members\s*(,|$)/i.test(q.excludedAttributes ?? "");

/** The SCIM endpoints. */
export const scimRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db } = deps;
  const base = `${deps.urls.base}/scim/v2`;

  app.addContentTypeParser("application/scim+json", { parseAs: "string", bodyLimit: 1024 * 1024 }, (_req, text, done) => {
    try {
      done(null, text === "" ? {} : JSON.parse(text as string));
    } catch {
      done(invalid("invalidSyntax: the request body is not valid JSON."), undefined);
    }
  });

  app.setErrorHandler((error: Error, request, reply) => {
    if (error instanceof DomainError) return scimError(reply, statusOfDomainError[error.kind], error.message);
    const status = (error as { statusCode?: number }).statusCode;
    if ((error as { validation?: unknown }).validation) return scimError(reply, 400, `invalidValue: ${error.message}`);
    if (status && status >= 400 && status < 500) return scimError(reply, status, error.message);
    request.log.error({ err: error }, "unhandled error");
    return scimError(reply, 500, `Internal server error (request ${request.id}). The server log has the details.`);
  });

  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");
    const token = match?.[1] ? await activeScimToken(db, match[1]) : undefined;
    if (!token) {
      reply.header("www-authenticate", 'Bearer realm="scim"');
      return scimError(
        reply,
        401,
        "Authentication required: send a SCIM token of your organization as `Authorization: Bearer <token>` (unknown and revoked tokens are refused).",
      );
    }
    request.scimOrgId = token.orgId;
    request.auditCaller = { actor: { type: "integration", id: token.id, label: `SCIM token ${token.label}` }, orgId: token.orgId };
    if (!token.lastUsedAt || Date.now() - Date.parse(token.lastUsedAt) > 60_000) await touchScimToken(db, token.id);
  });
  app.addHook("preSerialization", async (_request, reply, payload) => {
    reply.type(SCIM_TYPE);
    return payload;
  });

  const orgOf = (request: FastifyRequest) => request.scimOrgId as string;

  async function userResource(orgId: string, userId: string): Promise<ScimResource> {
    const { rows } = await findScimUsers(db, orgId, [{ attribute: "id", value: userId }], { offset: 0, limit: 1 });
    const row = rows[0];
    if (!row) throw missing(userNotFound(userId));
    const [ext, teams] = await Promise.all([externalIdsOf(db, orgId, "User", [userId]), teamsOfUsers(db, orgId, [userId])]);
    return presentScimUser(base, row, ext.get(userId), teams.get(userId) ?? []);
  }

  async function groupResource(orgId: string, teamId: string, withMembers = true): Promise<ScimResource> {
    const { rows } = await findScimGroups(db, orgId, [{ attribute: "id", value: teamId }], { offset: 0, limit: 1 });
    const row = rows[0];
    if (!row) throw missing(groupNotFound(teamId));
    const [ext, members] = await Promise.all([externalIdsOf(db, orgId, "Group", [teamId]), membersOfTeams(db, [teamId])]);
    return presentScimGroup(base, row, ext.get(teamId), withMembers ? members.get(teamId) : undefined);
  }

  /** The If-Match precondition of a write (RFC 7644 3.14): 412 when the resource changed since. */
  function checkIfMatch(request: FastifyRequest, current: ScimResource): void {
    const wanted = request.headers["if-match"];
    if (wanted === undefined || wanted.trim() === "*") return;
    const versions = wanted.split(",").map((v) => v.trim());
    if (!versions.includes(current.meta.version as string)) {
      throw preconditionFailed(`The resource changed since version ${wanted}; it is now ${current.meta.version as string}. Read it again.`);
    }
  }

  /** The resource as asked (`attributes`, `excludedAttributes` in the query), with its version and location in headers. */
  function send(request: FastifyRequest, reply: FastifyReply, status: number, resource: ScimResource) {
    return reply
      .status(status)
      .header("etag", resource.meta.version as string)
      .header("location", resource.meta.location as string)
      .type(SCIM_TYPE)
      .send(selectAttributes(resource, request.query as AttributeSelection));
  }

  // --- Discovery ---

  app.get("/scim/v2/ServiceProviderConfig", { schema: { hide: true } }, async () => ({
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
    documentationUri: `${deps.urls.base}/reference`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_COUNT },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "SCIM token",
        description: "A SCIM token an organization admin created, as Authorization: Bearer",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${base}/ServiceProviderConfig` },
  }));

  const resourceTypes = [
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
      id: "User",
      name: "User",
      endpoint: "/Users",
      schema: USER_SCHEMA,
      meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
      id: "Group",
      name: "Group",
      endpoint: "/Groups",
      schema: GROUP_SCHEMA,
      meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/Group` },
    },
  ];
  app.get("/scim/v2/ResourceTypes", { schema: { hide: true } }, async () => listResponse(resourceTypes as unknown as ScimResource[], 2, 1));
  app.get("/scim/v2/ResourceTypes/:id", { schema: { hide: true, params: ResourceParams } }, async (request) => {
    const found = resourceTypes.find((t) => t.id === request.params.id);
    if (!found) throw missing(`No resource type "${request.params.id}".`);
    return found;
  });

  const attribute = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
    name,
    type,
    multiValued: false,
    required: false,
    caseExact: false,
    mutability: "readWrite",
    returned: "default",
    uniqueness: "none",
    ...extra,
  });
  const schemas = [
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
      id: USER_SCHEMA,
      name: "User",
      description: "A member of the organization",
      attributes: [
        attribute("userName", "string", { required: true, uniqueness: "server", description: "The member's email address" }),
        attribute("name", "complex", {
          subAttributes: [attribute("formatted", "string"), attribute("givenName", "string"), attribute("familyName", "string")],
        }),
        attribute("displayName", "string"),
        attribute("emails", "complex", {
          multiValued: true,
          subAttributes: [attribute("value", "string"), attribute("type", "string"), attribute("primary", "boolean")],
        }),
        attribute("active", "boolean", { description: "false suspends the membership" }),
        attribute("externalId", "string", { caseExact: true }),
        attribute("groups", "complex", {
          multiValued: true,
          mutability: "readOnly",
          subAttributes: [attribute("value", "string"), attribute("display", "string")],
        }),
      ],
      meta: { resourceType: "Schema", location: `${base}/Schemas/${USER_SCHEMA}` },
    },
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
      id: GROUP_SCHEMA,
      name: "Group",
      description: "A team of the organization",
      attributes: [
        attribute("displayName", "string", { required: true }),
        attribute("externalId", "string", { caseExact: true }),
        attribute("members", "complex", {
          multiValued: true,
          subAttributes: [attribute("value", "string"), attribute("display", "string")],
        }),
      ],
      meta: { resourceType: "Schema", location: `${base}/Schemas/${GROUP_SCHEMA}` },
    },
  ];
  app.get("/scim/v2/Schemas", { schema: { hide: true } }, async () =>
    listResponse(schemas as unknown as ScimResource[], schemas.length, 1),
  );
  app.get("/scim/v2/Schemas/:id", { schema: { hide: true, params: ResourceParams } }, async (request) => {
    const found = schemas.find((s) => s.id === request.params.id);
    if (!found) throw missing(`No schema "${request.params.id}".`);
    return found;
  });

  // --- Users ---

  app.get("/scim/v2/Users", { schema: { hide: true, querystring: ListQuery } }, async (request) => {
    const orgId = orgOf(request);
    const page = pageOf(request.query);
    const filters = parseFilter(request.query.filter, ["username", "externalid", "id", "emails.value", "emails"]);
    const { total, rows } = await findScimUsers(db, orgId, filters, page);
    const ids = rows.map((r) => r.userId);
    const [ext, teams] = await Promise.all([externalIdsOf(db, orgId, "User", ids), teamsOfUsers(db, orgId, ids)]);
    return listResponse(
      rows.map(
        (r) => selectAttributes(presentScimUser(base, r, ext.get(r.userId), teams.get(r.userId) ?? []), request.query) as ScimResource,
      ),
      total,
      page.startIndex,
    );
  });

  app.get("/scim/v2/Users/:id", { schema: { hide: true, params: ResourceParams, querystring: ResourceQuery } }, async (request, reply) => {
    const resource = await userResource(orgOf(request), request.params.id);
    if (request.headers["if-none-match"] === resource.meta.version) return reply.status(304).send();
    return send(request, reply, 200, resource);
  });

  app.post("/scim/v2/Users", { schema: { hide: true, body: AnyBody } }, async (request, reply) => {
    const orgId = orgOf(request);
    const userId = await db.transaction().execute((trx) => createScimUser(trx, orgId, userBodyOf(request.body)));
    return send(request, reply, 201, await userResource(orgId, userId));
  });

  app.put("/scim/v2/Users/:id", { schema: { hide: true, params: ResourceParams, body: AnyBody } }, async (request, reply) => {
    const orgId = orgOf(request);
    checkIfMatch(request, await userResource(orgId, request.params.id));
    const change = userBodyOf(request.body);
    // PUT replaces: what it leaves out is cleared where Quire can clear it.
    await db.transaction().execute((trx) => changeScimUser(trx, orgId, request.params.id, { active: true, externalId: null, ...change }));
    return send(request, reply, 200, await userResource(orgId, request.params.id));
  });

  app.patch("/scim/v2/Users/:id", { schema: { hide: true, params: ResourceParams, body: AnyBody } }, async (request, reply) => {
    const orgId = orgOf(request);
    checkIfMatch(request, await userResource(orgId, request.params.id));
    const change = userChangeOf(request.body);
    await db.transaction().execute((trx) => changeScimUser(trx, orgId, request.params.id, change));
    return send(request, reply, 200, await userResource(orgId, request.params.id));
  });

  app.delete("/scim/v2/Users/:id", { schema: { hide: true, params: ResourceParams } }, async (request, reply) => {
    const orgId = orgOf(request);
    checkIfMatch(request, await userResource(orgId, request.params.id));
    await db.transaction().execute((trx) => deleteScimUser(trx, orgId, request.params.id));
    return reply.status(204).send();
  });

  // --- Groups ---

  app.get("/scim/v2/Groups", { schema: { hide: true, querystring: ListQuery } }, async (request) => {
    const orgId = orgOf(request);
    const page = pageOf(request.query);
    const filters = parseFilter(request.query.filter, ["displayname", "externalid", "id", "members.value"]);
    const { total, rows } = await findScimGroups(db, orgId, filters, page);
    const ids = rows.map((r) => r.id);
    const withMembers = !excludesMembers(request.query);
    const [ext, members] = await Promise.all([externalIdsOf(db, orgId, "Group", ids), withMembers ? membersOfTeams(db, ids) : new Map()]);
    return listResponse(
      rows.map(
        (r) =>
          selectAttributes(
            presentScimGroup(base, r, ext.get(r.id), withMembers ? (members.get(r.id) ?? []) : undefined),
            request.query,
          ) as ScimResource,
      ),
      total,
      page.startIndex,
    );
  });

  app.get("/scim/v2/Groups/:id", { schema: { hide: true, params: ResourceParams, querystring: ResourceQuery } }, async (request, reply) => {
    const resource = await groupResource(orgOf(request), request.params.id, !excludesMembers(request.query));
    return send(request, reply, 200, resource);
  });

  app.post("/scim/v2/Groups", { schema: { hide: true, body: AnyBody } }, async (request, reply) => {
    const orgId = orgOf(request);
    const teamId = await db.transaction().execute((trx) => createScimGroup(trx, orgId, groupBodyOf(request.body)));
    return send(request, reply, 201, await groupResource(orgId, teamId));
  });

  app.put("/scim/v2/Groups/:id", { schema: { hide: true, params: ResourceParams, body: AnyBody } }, async (request, reply) => {
    const orgId = orgOf(request);
    checkIfMatch(request, await groupResource(orgId, request.params.id));
    const body = groupBodyOf(request.body);
    await db.transaction().execute((trx) =>
      changeScimGroup(trx, orgId, request.params.id, {
        displayName: body.displayName,
        externalId: body.externalId ?? null,
        setMembers: body.members,
      }),
    );
    return send(request, reply, 200, await groupResource(orgId, request.params.id));
  });

  app.patch("/scim/v2/Groups/:id", { schema: { hide: true, params: ResourceParams, body: AnyBody } }, async (request, reply) => {
    const orgId = orgOf(request);
    checkIfMatch(request, await groupResource(orgId, request.params.id));
    const change = groupChangeOf(request.body);
    await db.transaction().execute((trx) => changeScimGroup(trx, orgId, request.params.id, change));
    // Entra expects 204 or 200; the resource is returned so that clients need not read it again.
    return send(request, reply, 200, await groupResource(orgId, request.params.id));
  });

  app.delete("/scim/v2/Groups/:id", { schema: { hide: true, params: ResourceParams } }, async (request, reply) => {
    const orgId = orgOf(request);
    checkIfMatch(request, await groupResource(orgId, request.params.id));
    await db.transaction().execute((trx) => deleteScimGroup(trx, orgId, request.params.id));
    return reply.status(204).send();
  });
};

const ScimTokenSchema = Type.Object({
  object: Type.Literal("scim-token"),
  id: Type.String(),
  label: Type.String(),
  token: Type.Optional(Type.String({ description: "The token, shown once, when it is created" })),
  baseURL: Type.String({ format: "uri", description: "The SCIM base URL to give the identity provider" }),
  createdAt: Timestamp,
  lastUsedAt: Type.Optional(Timestamp),
  revokedAt: Type.Optional(Timestamp),
});

/** The organization's SCIM tokens (a Quire extension): organization admins create, list and revoke them. */
export const scimTokenRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db } = deps;
  const baseURL = `${deps.urls.base}/scim/v2`;
  const present = (
    row: { id: string; label: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null },
    token?: string,
  ) => ({
    object: "scim-token" as const,
    id: row.id,
    label: row.label,
    ...(token ? { token } : {}),
    baseURL,
    createdAt: row.createdAt,
    ...(row.lastUsedAt ? { lastUsedAt: row.lastUsedAt } : {}),
    ...(row.revokedAt ? { revokedAt: row.revokedAt } : {}),
  });

  app.get(
    "/v1/orgs/:organizationId/scim/tokens",
    {
      schema: {
        tags: ["scim"],
        operationId: "listOrganizationSCIMTokens",
        params: OrganizationParams,
        response: { 200: Type.Object({ items: Type.Array(ScimTokenSchema) }), ...errorResponses },
      },
    },
    async (request) => {
      const { org, permissions } = await loadSamlOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "admin", { notFound: `No organization with id "${org.id}".`, forbidden: ADMINS_ONLY });
      return { items: (await listScimTokens(db, org.id)).map((row) => present(row)) };
    },
  );

  app.post(
    "/v1/orgs/:organizationId/scim/tokens",
    {
      schema: {
        tags: ["scim"],
        operationId: "createOrganizationSCIMToken",
        params: OrganizationParams,
        body: Type.Object({ label: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 201: ScimTokenSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { org, permissions } = await loadSamlOrganization(db, actor, request.params.organizationId);
      authorize(permissions, "admin", { notFound: `No organization with id "${org.id}".`, forbidden: ADMINS_ONLY });
      const { row, token } = await insertScimToken(db, { orgId: org.id, label: request.body.label, createdBy: actor.user.id });
      return reply.code(201).send(present(row, token));
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/scim/tokens/:tokenId",
    {
      schema: {
        tags: ["scim"],
        operationId: "revokeOrganizationSCIMToken",
        params: Type.Object({
          organizationId: Type.String({ minLength: 1, maxLength: 100 }),
          tokenId: Type.String({ minLength: 1, maxLength: 100 }),
        }),
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { org, permissions } = await loadSamlOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "admin", { notFound: `No organization with id "${org.id}".`, forbidden: ADMINS_ONLY });
      if (!(await revokeScimToken(db, org.id, request.params.tokenId)))
        throw missing(`No SCIM token with id "${request.params.tokenId}" in this organization.`);
      return reply.code(204).send(null);
    },
  );
};
