import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import Type from "typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { errorResponses, NoContent } from "../../http/schemas.js";
import { invalid, missing } from "../../lib/errors.js";
import type { Actor } from "../../permissions/actor.js";
import { getSpacesByIds } from "../spaces/spaces.queries.js";
import {
  applyOverride,
  customizationFromBody,
  mergeOverride,
  parseCustomization,
  parseOverride,
  spacesNamedBy,
} from "./customization.model.js";
import {
  OverrideSiteSpaceCustomizationBody,
  SiteCustomizationSchema,
  SiteSpaceCustomizationParams,
  UpdateSiteCustomizationBody,
} from "./customization.schemas.js";
import { type LoadedSite, requireSiteWithModel } from "./sites.loader.js";
import { allow } from "./sites.policy.js";
import { setSiteCustomization, setSiteSpaceCustomization } from "./sites.queries.js";
import { SiteParams } from "./sites.schemas.js";

const tags = ["site-customization"];
const EDIT_MESSAGE = "Only members with the create role, or the edit level on this site, can read or change a site's customization.";

const UnmaskedQuery = Type.Object({
  unmasked: Type.Optional(Type.Boolean({ description: "Deprecated in GitBook's API; accepted and ignored (nothing is masked)" })),
});

/**
 * A site's customization (`GET/PUT {site}/customization`) and a site space's overrides of it
 * (`GET/PATCH/DELETE {site}/site-spaces/{id}/customization`). Reading and writing both need what
 * changing the site needs (sites.policy.ts `edit`); published pages show the result.
 */
export const siteCustomizationRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db } = deps;

  async function loadForEdit(actor: Actor, params: { organizationId: string; siteId: string }) {
    const loaded = await requireSiteWithModel(db, actor, params.organizationId, params.siteId);
    allow(loaded.permissions.edit, EDIT_MESSAGE);
    return loaded;
  }

  const siteSpaceOf = (loaded: Awaited<ReturnType<typeof loadForEdit>>, id: string) => {
    const siteSpace = loaded.model.siteSpaces.find((s) => s.id === id && !s.hidden);
    if (!siteSpace) throw missing(`No site space with id "${id}" in this site.`);
    return siteSpace;
  };

  /** Links may name spaces of this organization only: another organization's ids are refused like unknown ones. */
  async function checkLinkedSpaces(loaded: LoadedSite, ids: string[]) {
    if (ids.length === 0) return;
    const found = new Map((await getSpacesByIds(db, ids)).map((s) => [s.id, s]));
    for (const id of ids) {
      const space = found.get(id);
      if (!space || space.orgId !== loaded.site.orgId || space.deletedAt) {
        throw invalid(`A link names space "${id}", which does not exist in this organization.`);
      }
    }
  }

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId/customization",
    {
      schema: {
        tags,
        operationId: "getSiteCustomizationById",
        description:
          "The site's customization: what was last PUT, with Quire's defaults for what was never set. `title` is present only when set (readers otherwise see the site's title).",
        params: SiteParams,
        querystring: UnmaskedQuery,
        response: { 200: SiteCustomizationSchema, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await loadForEdit(actorOf(request), request.params);
      return parseCustomization(loaded.site.customization);
    },
  );

  app.put(
    "/v1/orgs/:organizationId/sites/:siteId/customization",
    {
      schema: {
        tags,
        operationId: "updateSiteCustomizationById",
        description:
          "Replaces the site's customization. A top-level section left out takes Quire's default; inside a section the spec's required fields are required. Colors are hex, URLs absolute http(s) without credentials, links of kind `url`, `page`, `anchor` or `space` (spaces of this organization). Nothing is written when a field is refused.",
        params: SiteParams,
        body: UpdateSiteCustomizationBody,
        response: { 200: SiteCustomizationSchema, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await loadForEdit(actorOf(request), request.params);
      const settings = customizationFromBody(request.body);
      await checkLinkedSpaces(loaded, spacesNamedBy(settings));
      await setSiteCustomization(db, loaded.site.id, JSON.stringify(settings));
      return settings;
    },
  );

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/customization",
    {
      schema: {
        tags,
        operationId: "getSiteSpaceCustomizationById",
        description: "What readers of this site space see: the site's customization with the site space's overrides applied.",
        params: SiteSpaceCustomizationParams,
        querystring: UnmaskedQuery,
        response: { 200: SiteCustomizationSchema, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await loadForEdit(actorOf(request), request.params);
      const siteSpace = siteSpaceOf(loaded, request.params.siteSpaceId);
      return applyOverride(parseCustomization(loaded.site.customization), parseOverride(siteSpace.customization));
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/customization",
    {
      schema: {
        tags,
        operationId: "overrideSiteSpaceCustomizationById",
        description:
          "Overrides fields of the site's customization for this site space: a value replaces the site's, `null` removes the override (the site's value shows again), a field left out keeps its current override. Answers the site space's resulting customization.",
        params: SiteSpaceCustomizationParams,
        body: OverrideSiteSpaceCustomizationBody,
        response: { 200: SiteCustomizationSchema, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await loadForEdit(actorOf(request), request.params);
      const siteSpace = siteSpaceOf(loaded, request.params.siteSpaceId);
      const override = mergeOverride(parseOverride(siteSpace.customization), request.body);
      await checkLinkedSpaces(loaded, spacesNamedBy(override));
      const json = Object.keys(override).length > 0 ? JSON.stringify(override) : null;
      await setSiteSpaceCustomization(db, loaded.site.id, siteSpace.id, json);
      return applyOverride(parseCustomization(loaded.site.customization), override);
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/customization",
    {
      schema: {
        tags,
        operationId: "deleteSiteSpaceCustomizationById",
        description:
          "Removes every override of this site space: it shows its site's customization again. 204 also when it had none (or the site space does not exist).",
        params: SiteSpaceCustomizationParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const loaded = await loadForEdit(actorOf(request), request.params);
      const siteSpace = loaded.model.siteSpaces.find((s) => s.id === request.params.siteSpaceId);
      if (siteSpace?.customization) await setSiteSpaceCustomization(db, loaded.site.id, siteSpace.id, null);
      return reply.code(204).send(null);
    },
  );
};
