import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { errorResponses, ListOf, ListQuery, NoContent } from "../../http/schemas.js";
import { listOf } from "../../lib/pagination.js";
import { authorize } from "../../permissions/authorize.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { loadDefaultTeams } from "../saml/saml.loader.js";
import { loadOidcOrganization, loadOidcProvider, oidcProviderNotFound } from "./oidc.loader.js";
import { presentOidcProvider } from "./oidc.presenter.js";
import { deleteOidcProvider, listOidcProviders } from "./oidc.queries.js";
import { CreateOidcProviderBody, OidcProviderParams, OidcProviderSchema, UpdateOidcProviderBody } from "./oidc.schemas.js";
import { changeOidcProvider, createOidcProvider } from "./oidc.service.js";

const tags = ["oidc"];
const ADMINS_ONLY = "Only organization admins can manage OpenID Connect single sign-on.";

/** The organization's OpenID Connect providers (a Quire extension, shaped like the SAML providers). */
export const oidcRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;
  const env = { secret: deps.secret, allowNetworks: deps.config.fetchAllowNetworks };

  app.get(
    "/v1/orgs/:organizationId/oidc",
    {
      schema: {
        tags,
        operationId: "listOIDCProvidersInOrganizationById",
        params: OrganizationParams,
        querystring: ListQuery,
        response: { 200: ListOf(OidcProviderSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { org, access, permissions } = await loadOidcOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "admin", { notFound: `No organization with id "${org.id}".`, forbidden: ADMINS_ONLY });
      const page = await listOidcProviders(db, org.id, request.query);
      const defaults = await loadDefaultTeams(db, org.id, page.rows, access);
      return listOf(
        page,
        page.rows.map((p) => presentOidcProvider(p, defaults, urls)),
      );
    },
  );

  app.post(
    "/v1/orgs/:organizationId/oidc",
    {
      schema: {
        tags,
        operationId: "createOrganizationOIDCProvider",
        params: OrganizationParams,
        body: CreateOidcProviderBody,
        response: { 201: OidcProviderSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { org, access, permissions } = await loadOidcOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "admin", { notFound: `No organization with id "${org.id}".`, forbidden: ADMINS_ONLY });
      const provider = await createOidcProvider(db, env, org.id, request.body);
      const presented = presentOidcProvider(provider, await loadDefaultTeams(db, org.id, [provider], access), urls);
      reply.code(201).header("location", presented.urls.location);
      return presented;
    },
  );

  app.get(
    "/v1/orgs/:organizationId/oidc/:oidcProviderId",
    {
      schema: {
        tags,
        operationId: "getOrganizationOIDCProviderById",
        params: OidcProviderParams,
        response: { 200: OidcProviderSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { org, access, permissions } = await loadOidcOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "admin", { notFound: oidcProviderNotFound(request.params.oidcProviderId), forbidden: ADMINS_ONLY });
      const provider = await loadOidcProvider(db, org.id, request.params.oidcProviderId);
      return presentOidcProvider(provider, await loadDefaultTeams(db, org.id, [provider], access), urls);
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/oidc/:oidcProviderId",
    {
      schema: {
        tags,
        operationId: "updateOrganizationOIDCProvider",
        params: OidcProviderParams,
        body: UpdateOidcProviderBody,
        response: { 200: OidcProviderSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { org, access, permissions } = await loadOidcOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "admin", { notFound: oidcProviderNotFound(request.params.oidcProviderId), forbidden: ADMINS_ONLY });
      const provider = await loadOidcProvider(db, org.id, request.params.oidcProviderId);
      const updated = await changeOidcProvider(db, env, provider, request.body);
      return presentOidcProvider(updated, await loadDefaultTeams(db, org.id, [updated], access), urls);
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/oidc/:oidcProviderId",
    {
      schema: {
        tags,
        operationId: "deleteOrganizationOIDCProvider",
        params: OidcProviderParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { org, permissions } = await loadOidcOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "admin", { notFound: oidcProviderNotFound(request.params.oidcProviderId), forbidden: ADMINS_ONLY });
      // Nothing deleted: the 404 is thrown inside the transaction, so that it rolls back with the
      // audit entry it would otherwise have committed (db/audit.ts writes entries with a transaction).
      await db.transaction().execute(async (trx) => {
        if (!(await deleteOidcProvider(trx, org.id, request.params.oidcProviderId))) {
          await loadOidcProvider(trx, org.id, request.params.oidcProviderId);
        }
      });
      return reply.code(204).send(null);
    },
  );
};
