import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { errorResponses, ListOf, ListQuery, NoContent } from "../../http/schemas.js";
import { listOf } from "../../lib/pagination.js";
import { authorize } from "../../permissions/authorize.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { loadDefaultTeams, loadSamlOrganization, loadSamlProvider, samlProviderNotFound } from "./saml.loader.js";
import { ssoLoginPermissions } from "./saml.policy.js";
import { presentSamlProvider, samlProviderStatus, serviceProviderUrls } from "./saml.presenter.js";
import { allSamlProviders, deleteSamlProvider, listSamlProviders } from "./saml.queries.js";
import { CreateSamlProviderBody, SamlProviderParams, SamlProviderSchema, SsoLoginsSchema, UpdateSamlProviderBody } from "./saml.schemas.js";
import { changeSamlProvider, createSamlProvider } from "./saml.service.js";

const tags = ["saml"];
const ADMINS_ONLY = "Only organization admins can manage SAML single sign-on.";

/** The organization's SAML identity providers and its sign-in options. */
export const samlRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  app.get(
    "/v1/orgs/:organizationId/saml",
    {
      schema: {
        tags,
        operationId: "listSAMLProvidersInOrganizationById",
        params: OrganizationParams,
        querystring: ListQuery,
        response: { 200: ListOf(SamlProviderSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { org, access, permissions } = await loadSamlOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "admin", { notFound: `No organization with id "${org.id}".`, forbidden: ADMINS_ONLY });
      const page = await listSamlProviders(db, org.id, request.query);
      const defaults = await loadDefaultTeams(db, org.id, page.rows, access);
      return listOf(
        page,
        page.rows.map((p) => presentSamlProvider(p, defaults, urls)),
      );
    },
  );

  app.post(
    "/v1/orgs/:organizationId/saml",
    {
      schema: {
        tags,
        operationId: "createOrganizationSAMLProvider",
        params: OrganizationParams,
        body: CreateSamlProviderBody,
        response: { 201: SamlProviderSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { org, access, permissions } = await loadSamlOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "admin", { notFound: `No organization with id "${org.id}".`, forbidden: ADMINS_ONLY });
      const provider = await createSamlProvider(db, org.id, request.body);
      const presented = presentSamlProvider(provider, await loadDefaultTeams(db, org.id, [provider], access), urls);
      reply.code(201).header("location", presented.urls.location);
      return presented;
    },
  );

  app.get(
    "/v1/orgs/:organizationId/saml/:samlProviderId",
    {
      schema: {
        tags,
        operationId: "getOrganizationSAMLProviderById",
        params: SamlProviderParams,
        response: { 200: SamlProviderSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { org, access, permissions } = await loadSamlOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "admin", { notFound: samlProviderNotFound(request.params.samlProviderId), forbidden: ADMINS_ONLY });
      const provider = await loadSamlProvider(db, org.id, request.params.samlProviderId);
      return presentSamlProvider(provider, await loadDefaultTeams(db, org.id, [provider], access), urls);
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/saml/:samlProviderId",
    {
      schema: {
        tags,
        operationId: "updateOrganizationSAMLProvider",
        params: SamlProviderParams,
        body: UpdateSamlProviderBody,
        response: { 200: SamlProviderSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { org, access, permissions } = await loadSamlOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "admin", { notFound: samlProviderNotFound(request.params.samlProviderId), forbidden: ADMINS_ONLY });
      const provider = await loadSamlProvider(db, org.id, request.params.samlProviderId);
      const updated = await changeSamlProvider(db, provider, request.body);
      return presentSamlProvider(updated, await loadDefaultTeams(db, org.id, [updated], access), urls);
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/saml/:samlProviderId",
    {
      schema: {
        tags,
        operationId: "deleteOrganizationSAMLProvider",
        params: SamlProviderParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { org, permissions } = await loadSamlOrganization(db, actorOf(request), request.params.organizationId);
      authorize(permissions, "admin", { notFound: `No organization with id "${org.id}".`, forbidden: ADMINS_ONLY });
      await db.transaction().execute((trx) => deleteSamlProvider(trx, org.id, request.params.samlProviderId));
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/sso",
    {
      schema: {
        tags,
        operationId: "listSSOProviderLoginsInOrganization",
        params: OrganizationParams,
        response: { 200: SsoLoginsSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { org, access } = await loadSamlOrganization(db, actorOf(request), request.params.organizationId);
      authorize(ssoLoginPermissions(access), "view", { notFound: `No organization with id "${org.id}".`, forbidden: "" });
      const providers = (await allSamlProviders(db, org.id)).filter((p) => samlProviderStatus(p) === "active");
      return { items: providers.map((p) => ({ id: p.id, label: p.label, startURL: serviceProviderUrls(urls, p.id).startURL })) };
    },
  );
};
