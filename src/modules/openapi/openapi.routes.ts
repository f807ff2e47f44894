import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import Type from "typebox";
import type { Deps } from "../../deps.js";
import { actorOf, optionalActor } from "../../http/authenticate.js";
import { errorResponses, ListOf, ListQuery, NoContent } from "../../http/schemas.js";
import { invalid, missing, notAllowed } from "../../lib/errors.js";
import { toList } from "../../lib/pagination.js";
import { authorize } from "../../permissions/authorize.js";
import { loadSpec, loadSpecForDocument, loadSpecsOrg, loadVersion, specNotFound } from "./openapi.loader.js";
import { canReadDocument } from "./openapi.policy.js";
import { contentJson, presentSpec, presentVersion, versionDocumentUrl } from "./openapi.presenter.js";
import { deleteSpec, getSpecBySlug, getVersionDocument, listSpecs, listVersions, setVisibility } from "./openapi.queries.js";
import {
  CreateOpenAPISpecBody,
  ListOpenAPISpecsQuery,
  OpenAPIOrgParams,
  OpenAPISpecContentSchema,
  OpenAPISpecParams,
  OpenAPISpecSchema,
  OpenAPISpecVersionParams,
  OpenAPISpecVersionSchema,
  PutOpenAPISpecBody,
  UpdateOpenAPISpecBody,
} from "./openapi.schemas.js";
import { createSpec, putSpec } from "./openapi.service.js";

const tags = ["openapi"];
const versionTags = ["openapi-versions"];

const EDIT_FORBIDDEN = "Only members with the create role or higher can create, change or delete OpenAPI specs.";

/** OpenAPI specs of an organization, their versions, and their processed documents. */
export const openapiRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  /** Re-reads a spec after a write and presents it. */
  async function presentCurrent(orgId: string, slug: string, permissions: { view: boolean; edit: boolean }) {
    const spec = await getSpecBySlug(db, orgId, slug);
    if (!spec) throw specNotFound(slug);
    return presentSpec(spec, permissions, urls);
  }

  app.get(
    "/v1/orgs/:organizationId/openapi",
    {
      schema: {
        tags,
        operationId: "listOpenAPISpecs",
        params: OpenAPIOrgParams,
        querystring: ListOpenAPISpecsQuery,
        response: { 200: ListOf(OpenAPISpecSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { org, permissions } = await loadSpecsOrg(db, actorOf(request), request.params.organizationId);
      if (!permissions.view) throw notAllowed("Guests cannot list the organization's OpenAPI specs.");
      const page = await listSpecs(db, org.id, request.query);
      return toList(page, (spec) => presentSpec(spec, permissions, urls));
    },
  );

  app.post(
    "/v1/orgs/:organizationId/openapi",
    {
      schema: {
        tags,
        operationId: "createOpenAPISpec",
        params: OpenAPIOrgParams,
        body: CreateOpenAPISpecBody,
        response: { 201: OpenAPISpecSchema, 409: errorResponses[400], ...errorResponses },
      },
    },
    async (request, reply) => {
      const { org, permissions } = await loadSpecsOrg(db, actorOf(request), request.params.organizationId);
      if (!permissions.edit) throw notAllowed(EDIT_FORBIDDEN);
      const { slug, source } = request.body;
      await db.transaction().execute((trx) => createSpec(trx, { orgId: org.id, slug, source }));
      deps.notifyJobs();
      const presented = await presentCurrent(org.id, slug, permissions);
      reply.code(201).header("location", presented.urls.location);
      return presented;
    },
  );

  app.get(
    "/v1/orgs/:organizationId/openapi/:specSlug",
    {
      schema: {
        tags,
        operationId: "getOpenAPISpecBySlug",
        params: OpenAPISpecParams,
        response: { 200: OpenAPISpecSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { spec, permissions } = await loadSpec(db, actorOf(request), request.params.organizationId, request.params.specSlug);
      return presentSpec(spec, permissions, urls);
    },
  );

  app.put(
    "/v1/orgs/:organizationId/openapi/:specSlug",
    {
      schema: {
        tags,
        operationId: "createOrUpdateOpenAPISpecBySlug",
        params: OpenAPISpecParams,
        body: PutOpenAPISpecBody,
        response: { 200: OpenAPISpecSchema, 201: OpenAPISpecSchema, 409: errorResponses[400], ...errorResponses },
      },
    },
    async (request, reply) => {
      const { org, permissions } = await loadSpecsOrg(db, actorOf(request), request.params.organizationId);
      if (!permissions.edit) throw notAllowed(EDIT_FORBIDDEN);
      const slug = request.params.specSlug;
      if (!/^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/.test(slug)) {
        throw invalid(`path parameter "specSlug" must be letters and digits in groups separated by single hyphens, not "${slug}".`);
      }
      const created = await db.transaction().execute((trx) => putSpec(trx, { orgId: org.id, slug, source: request.body.source }));
      deps.notifyJobs();
      const presented = await presentCurrent(org.id, slug, permissions);
      if (created) reply.code(201).header("location", presented.urls.location);
      return presented;
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/openapi/:specSlug",
    {
      schema: {
        tags,
        operationId: "updateOpenAPISpecBySlug",
        params: OpenAPISpecParams,
        body: UpdateOpenAPISpecBody,
        response: { 200: OpenAPISpecSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { org, spec, permissions } = await loadSpec(db, actorOf(request), request.params.organizationId, request.params.specSlug);
      authorize(permissions, "edit", { notFound: specNotFound(spec.slug).message, forbidden: EDIT_FORBIDDEN });
      await setVisibility(db, spec.id, request.body.visibility);
      return presentCurrent(org.id, spec.slug, permissions);
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/openapi/:specSlug",
    {
      schema: {
        tags,
        operationId: "deleteOpenAPISpecBySlug",
        params: OpenAPISpecParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { org, permissions } = await loadSpecsOrg(db, actorOf(request), request.params.organizationId);
      // Checked before looking the spec up, so that the answer does not tell whether it exists.
      if (!permissions.edit) throw notAllowed(EDIT_FORBIDDEN);
      await db.transaction().execute((trx) => deleteSpec(trx, org.id, request.params.specSlug));
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/openapi/:specSlug/versions",
    {
      schema: {
        tags: versionTags,
        operationId: "listOpenAPISpecVersions",
        params: OpenAPISpecParams,
        querystring: ListQuery,
        response: { 200: ListOf(OpenAPISpecVersionSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { spec } = await loadSpec(db, actorOf(request), request.params.organizationId, request.params.specSlug);
      const page = await listVersions(db, spec.id, request.query);
      return toList(page, (version) => presentVersion(spec, version, urls));
    },
  );

  async function getVersion(params: { organizationId: string; specSlug: string }, actor: ReturnType<typeof actorOf>, versionId: string) {
    const { spec } = await loadSpec(db, actor, params.organizationId, params.specSlug);
    return presentVersion(spec, await loadVersion(db, spec, versionId), urls);
  }

  async function sendContent(
    params: { organizationId: string; specSlug: string },
    actor: ReturnType<typeof actorOf>,
    versionId: string,
    reply: FastifyReply,
  ) {
    const { spec } = await loadSpec(db, actor, params.organizationId, params.specSlug);
    const version = await loadVersion(db, spec, versionId);
    const document = await getVersionDocument(db, spec.id, version.id);
    if (document === undefined) throw missing(`No version "${versionId}" of the OpenAPI spec "${spec.slug}".`);
    // The stored document is already JSON: sent as is rather than parsed and serialized again.
    return reply.type("application/json; charset=utf-8").send(contentJson(document, versionDocumentUrl(urls, spec, version.id)));
  }

  app.get(
    "/v1/orgs/:organizationId/openapi/:specSlug/versions/latest",
    {
      schema: {
        tags: versionTags,
        operationId: "getLatestOpenAPISpecVersion",
        params: OpenAPISpecParams,
        response: { 200: OpenAPISpecVersionSchema, ...errorResponses },
      },
    },
    async (request) => getVersion(request.params, actorOf(request), "latest"),
  );

  app.get(
    "/v1/orgs/:organizationId/openapi/:specSlug/versions/latest/content",
    {
      schema: {
        tags: versionTags,
        operationId: "getLatestOpenAPISpecVersionContent",
        params: OpenAPISpecParams,
        response: { 200: OpenAPISpecContentSchema, ...errorResponses },
      },
    },
    async (request, reply) => sendContent(request.params, actorOf(request), "latest", reply),
  );

  app.get(
    "/v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId",
    {
      schema: {
        tags: versionTags,
        operationId: "getOpenAPISpecVersionById",
        params: OpenAPISpecVersionParams,
        response: { 200: OpenAPISpecVersionSchema, ...errorResponses },
      },
    },
    async (request) => getVersion(request.params, actorOf(request), request.params.versionId),
  );

  app.get(
    "/v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId/content",
    {
      schema: {
        tags: versionTags,
        operationId: "getOpenAPISpecVersionContentById",
        params: OpenAPISpecVersionParams,
        response: { 200: OpenAPISpecContentSchema, ...errorResponses },
      },
    },
    async (request, reply) => sendContent(request.params, actorOf(request), request.params.versionId, reply),
  );

  /** Serves a processed document: to anyone when the spec is public, else to those who may view it. */
  async function serveDocument(
    request: { params: { organizationId: string; specSlug: string; versionId?: string } },
    reply: FastifyReply,
    actorAccess: Awaited<ReturnType<typeof optionalActor>>,
  ) {
    const { organizationId, specSlug, versionId } = request.params;
    const { spec, permissions } = await loadSpecForDocument(db, actorAccess?.access, organizationId, specSlug);
    if (!spec || !canReadDocument(spec, permissions)) {
      throw missing(
        `No OpenAPI spec with slug "${specSlug}" that you may read: private specs are served to the organization's members only.`,
      );
    }
    const version = await loadVersion(db, spec, versionId ?? "latest");
    const document = await getVersionDocument(db, spec.id, version.id);
    if (document === undefined) throw missing(`No version "${versionId}" of the OpenAPI spec "${spec.slug}".`);
    return reply
      .type("application/json; charset=utf-8")
      .header("cache-control", spec.visibility === "public" ? "public, max-age=60" : "private, no-cache")
      .header("x-content-type-options", "nosniff")
      .send(document);
  }

  const DocumentResponse = { 200: Type.Unknown({ description: "The processed OpenAPI document (JSON)" }), ...errorResponses };

  app.get(
    "/v1/orgs/:organizationId/openapi/:specSlug/openapi.json",
    {
      config: { public: true },
      schema: {
        tags,
        operationId: "getLatestOpenAPISpecDocument",
        description: "The latest processed document. Public specs: anyone; private specs: members (send a token).",
        params: OpenAPISpecParams,
        response: DocumentResponse,
      },
    },
    async (request, reply) => serveDocument(request, reply, await optionalActor(db, request)),
  );

  app.get(
    "/v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId/openapi.json",
    {
      config: { public: true },
      schema: {
        tags: versionTags,
        operationId: "getOpenAPISpecVersionDocument",
        description: "A version's processed document. Public specs: anyone; private specs: members (send a token).",
        params: OpenAPISpecVersionParams,
        response: DocumentResponse,
      },
    },
    async (request, reply) => serveDocument(request, reply, await optionalActor(db, request)),
  );
};
