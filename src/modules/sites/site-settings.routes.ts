/** A site's adaptive schema, visitor authentication (signing key) and preview links. */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { errorResponses } from "../../http/schemas.js";
import { invalid, missing } from "../../lib/errors.js";
import { parseJson } from "../../lib/json.js";
import { checkAdaptiveSchema, templateConditions } from "./adaptive.model.js";
import { previewParams } from "./preview.model.js";
import { requireSite, requireSiteWithModel } from "./sites.loader.js";
import { allow, refuseExposure } from "./sites.policy.js";
import { getAdaptiveSchema, putAdaptiveSchema } from "./sites.queries.js";
import {
  AdaptiveSchemaSchema,
  PreviewQuery,
  PreviewResponse,
  PublishingAuthSchema,
  SiteParams,
  TemplateConditionsResponse,
  UpdateAdaptiveSchemaBody,
  UpdatePublishingAuthBody,
} from "./sites.schemas.js";
import { ensurePublishingAuth, presentPublishingAuth, updatePublishingAuth } from "./sites.service.js";
import { defaultSectionId, defaultSiteSpaceId } from "./structure.model.js";

const tags = ["sites"];
const ADMIN_MESSAGE = "Only organization admins and the site's creator can see or change its visitor authentication.";
// The key signs visitor tokens with any claims: its holder reads the whole site.
const KEY_ACTION = "see or change this site's visitor-token signing key";

export const siteSettingsRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls, secret } = deps;

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId/adaptive-schema",
    {
      schema: {
        tags,
        operationId: "getSiteAdaptiveSchema",
        description: "The JSON Schema of the claims the site's visitors bring. 404 when none was set.",
        params: SiteParams,
        response: { 200: AdaptiveSchemaSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { site } = await requireSite(db, actorOf(request), request.params.organizationId, request.params.siteId);
      const stored = await getAdaptiveSchema(db, site.id);
      if (!stored) throw missing(`Site "${site.id}" has no adaptive schema; set one with PUT on this address.`);
      return {
        object: "site-adaptive-schema" as const,
        jsonSchema: parseJson<Record<string, unknown>>(stored.jsonSchema, "site_adaptive_schemas.json_schema"),
        updatedAt: stored.updatedAt,
      };
    },
  );

  app.put(
    "/v1/orgs/:organizationId/sites/:siteId/adaptive-schema",
    {
      schema: {
        tags,
        operationId: "updateSiteAdaptiveSchema",
        description:
          "Sets the site's adaptive schema. It must have exactly the shape described by `jsonSchema` (draft-07); otherwise a 400 says where and why, and nothing is stored. Needs the organization role `create` and the read level on every space the site shows.",
        params: SiteParams,
        body: UpdateAdaptiveSchemaBody,
        response: { 200: AdaptiveSchemaSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { site, permissions, unreadable } = await requireSite(
        db,
        actorOf(request),
        request.params.organizationId,
        request.params.siteId,
      );
      allow(permissions.edit, "Only members with the create role, or the edit level on this site, can change a site's adaptive schema.");
      // Claims it declares unsigned are set by any visitor, and conditions decide what they read.
      refuseExposure(unreadable, "change this site's adaptive schema");
      const jsonSchema = request.body.jsonSchema;
      checkAdaptiveSchema(jsonSchema);
      const updatedAt = await putAdaptiveSchema(db, site.id, JSON.stringify(jsonSchema));
      return { object: "site-adaptive-schema" as const, jsonSchema, updatedAt };
    },
  );

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId/adaptive-schema/template-conditions",
    {
      schema: {
        tags,
        operationId: "listSiteAdaptiveTemplateConditions",
        description:
          "Conditions generated from the adaptive schema: one per boolean claim and one per value of each enum (empty without a schema).",
        params: SiteParams,
        response: { 200: TemplateConditionsResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { site } = await requireSite(db, actorOf(request), request.params.organizationId, request.params.siteId);
      const stored = await getAdaptiveSchema(db, site.id);
      if (!stored) return { items: [] };
      return { items: templateConditions(parseJson(stored.jsonSchema, "site_adaptive_schemas.json_schema")) };
    },
  );

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId/publishing/auth",
    {
      schema: {
        tags,
        operationId: "getSitePublishingAuthById",
        description:
          "The key that signs the site's visitor tokens (HS256 JWTs given as `jwt_token`). Organization admins and the site's creator only, while they may read every space the site shows.",
        params: SiteParams,
        response: { 200: PublishingAuthSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { site, permissions, unreadable } = await requireSite(
        db,
        actorOf(request),
        request.params.organizationId,
        request.params.siteId,
      );
      allow(permissions.admin, ADMIN_MESSAGE);
      refuseExposure(unreadable, KEY_ACTION);
      const row = await db.transaction().execute((trx) => ensurePublishingAuth(trx, site.id, secret));
      return presentPublishingAuth(row, secret);
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/sites/:siteId/publishing/auth",
    {
      schema: {
        tags,
        operationId: "updateSitePublishingAuthById",
        description:
          "Sets the visitor authentication backend (`custom` only: Quire has no integrations) and `fallbackURL` (null removes it). Organization admins and the site's creator only, while they may read every space the site shows.",
        params: SiteParams,
        body: UpdatePublishingAuthBody,
        response: { 200: PublishingAuthSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { site, permissions, unreadable } = await requireSite(
        db,
        actorOf(request),
        request.params.organizationId,
        request.params.siteId,
      );
      allow(permissions.admin, ADMIN_MESSAGE);
      refuseExposure(unreadable, KEY_ACTION);
      const { backend, fallbackURL, oidcProvider } = request.body;
      if (fallbackURL && !/^https?:\/\//i.test(fallbackURL)) throw invalid("body.fallbackURL must be an http(s) address.");
      const row = await db
        .transaction()
        .execute((trx) => updatePublishingAuth(trx, { siteId: site.id, orgId: site.orgId, secret, backend, fallbackURL, oidcProvider }));
      return presentPublishingAuth(row, secret);
    },
  );

  app.post(
    "/v1/orgs/:organizationId/sites/:siteId/publishing/auth/regenerate",
    {
      schema: {
        tags,
        operationId: "regenerateSitePublishingAuthById",
        description:
          "Replaces the signing key: tokens signed with the old key stop working. Organization admins and the site's creator only, while they may read every space the site shows.",
        params: SiteParams,
        response: { 200: PublishingAuthSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { site, permissions, unreadable } = await requireSite(
        db,
        actorOf(request),
        request.params.organizationId,
        request.params.siteId,
      );
      allow(permissions.admin, ADMIN_MESSAGE);
      refuseExposure(unreadable, KEY_ACTION);
      const row = await db.transaction().execute(async (trx) => {
        const current = await ensurePublishingAuth(trx, site.id, secret);
        return updatePublishingAuth(trx, { siteId: site.id, secret, backend: current.backend, regenerate: true });
      });
      return presentPublishingAuth(row, secret);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId/publishing/preview",
    {
      schema: {
        tags,
        operationId: "getSitePublishingPreviewById",
        description:
          "A signed address, valid one hour, that shows the site (published or not) at `siteSpace` (default: its root), optionally as a visitor with `claims` (Rison-encoded). Needs the right to change the site and the read level on every space it shows.",
        params: SiteParams,
        querystring: PreviewQuery,
        response: { 200: PreviewResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { site, permissions, model, unreadable } = await requireSiteWithModel(
        db,
        actorOf(request),
        request.params.organizationId,
        request.params.siteId,
      );
      allow(permissions.edit, "Only members with the create role, or the edit level on this site, can preview sites.");
      // Whoever holds the link reads the whole site (not only `siteSpace`), with any claims.
      refuseExposure(unreadable, "make a preview link of this site");
      const { siteSpace: siteSpaceId, claims } = request.query;
      let path: (string | null)[] = [];
      let target = "";
      if (siteSpaceId !== undefined) {
        const siteSpace = model.siteSpaces.find((s) => s.id === siteSpaceId && !s.hidden);
        if (!siteSpace) throw invalid(`query parameter "siteSpace" names site space "${siteSpaceId}", which is not in this site.`);
        target = siteSpace.id;
        // As the published URLs: no segment for the home section, nor for a section's default site space.
        const section =
          siteSpace.sectionId === defaultSectionId(model) ? undefined : model.sections.find((s) => s.id === siteSpace.sectionId);
        path = [section?.path ?? null, defaultSiteSpaceId(model, siteSpace.sectionId) === siteSpace.id ? null : siteSpace.path];
      }
      const params = previewParams(secret, { siteId: site.id, siteSpaceId: target, claims });
      return { url: `${urls.site(site.basename, ...path)}?${params.toString()}` };
    },
  );
};
