import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Executor } from "../../db/database.js";
import { isUniqueViolation } from "../../db/dialect.js";
import type { SiteRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { errorResponses, ListOf, NoContent } from "../../http/schemas.js";
import type { Urls } from "../../http/urls.js";
import { conflicting } from "../../lib/errors.js";
import { listOf } from "../../lib/pagination.js";
import type { OrgAccess } from "../../permissions/access.js";
import { requestImagesOfSite } from "../files/image-variants.jobs.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { applyOverride, parseCustomization, parseOverride } from "./customization.model.js";
import {
  inSiteTransaction,
  loadSitesContext,
  loadSpacesForSite,
  loadStructureSpaces,
  requireOrgAccess,
  requireSite,
  siteNotFound,
  verifiedShareKey,
} from "./sites.loader.js";
import { allow, mayCreateSites, refuseExposure, sitePermissions, widensAudience } from "./sites.policy.js";
import { presentSites } from "./sites.presenter.js";
import { deleteSiteRow, getSite, listSites, updateSiteRow } from "./sites.queries.js";
import {
  CreateSiteBody,
  ListSitesQuery,
  PublishedContentSiteSchema,
  PublishResponse,
  ShareKeyQuery,
  SiteParams,
  SiteSchema,
  UpdateSiteBody,
} from "./sites.schemas.js";
import { checkSpacesForSite, createSite, updateSite } from "./sites.service.js";

import type { SiteModel } from "./structure.model.js";
import { presentStructure, structureContextOf } from "./structure.presenter.js";
import { loadSiteModel } from "./structure.queries.js";

const tags = ["sites"];

/** The customization readers see: the site's (its title when none is set), and each shown site space's with its overrides. */
function publishedCustomizations(site: SiteRow, model: SiteModel) {
  const siteSettings = { ...parseCustomization(site.customization) };
  siteSettings.title ??= site.title;
  const siteSpaces: Record<string, ReturnType<typeof applyOverride>> = {};
  for (const siteSpace of model.siteSpaces) {
    if (!siteSpace.hidden) siteSpaces[siteSpace.id] = applyOverride(siteSettings, parseOverride(siteSpace.customization));
  }
  return { site: siteSettings, siteSpaces };
}

/** Docs sites of an organization: settings, publishing, and what readers see. */
export const siteRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, dialect, urls, secret } = deps;

  app.get(
    "/v1/orgs/:organizationId/sites",
    {
      schema: {
        tags,
        operationId: "listSites",
        description:
          "The organization's sites, oldest first; filters: `space` (sites showing that space), `title` (case-insensitive part), `published`, `type`.",
        params: OrganizationParams,
        querystring: ListSitesQuery,
        response: { 200: ListOf(SiteSchema), ...errorResponses },
      },
    },
    async (request) => {
      const access = await requireOrgAccess(db, actorOf(request), request.params.organizationId);
      // Guests see only the sites granted to them (or their teams); members with a role see every one.
      const only = access.membership?.role ? undefined : [...access.grants.keys()];
      const page = await listSites(db, dialect, access.orgId, { ...request.query, only });
      return listOf(page, presentSites(page.rows, await loadSitesContext(db, access, page.rows), urls));
    },
  );

  app.post(
    "/v1/orgs/:organizationId/sites",
    {
      schema: {
        tags,
        operationId: "createSite",
        description:
          "Creates an unpublished site (type `basic`, visibility `public` by default). Each of `spaces` becomes a site space at the root, in order; the caller needs the edit level on each. Needs the organization role `create`. The basename is made from the title (unique on this Quire).",
        params: OrganizationParams,
        body: CreateSiteBody,
        response: { 201: SiteSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const access = await requireOrgAccess(db, actor, request.params.organizationId);
      allow(mayCreateSites(access), "Only members with the create role or higher can create sites.");
      const ids = request.body.spaces ?? [];
      const spaces = checkSpacesForSite(await loadSpacesForSite(db, access, ids), ids, (i) => `body.spaces[${i}]`);
      const create = (retry: boolean) =>
        db
          .transaction()
          .execute((trx) => createSite(trx, { orgId: access.orgId, actorId: actor.user.id, body: request.body, spaces, secret, retry }));
      // Sites created at once may pick the same free basename; the losers try again with a random suffix.
      let site: Awaited<ReturnType<typeof create>> | undefined;
      for (let attempt = 0; !site; attempt++) {
        try {
          site = await create(attempt > 0);
        } catch (error) {
          if (!isUniqueViolation(error) || attempt >= 3) throw error;
        }
      }
      reply.code(201).header("location", urls.api(`/orgs/${site.orgId}/sites/${site.id}`));
      return presentSiteFor(db, access, site, urls);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId",
    {
      schema: { tags, operationId: "getSiteById", params: SiteParams, response: { 200: SiteSchema, ...errorResponses } },
    },
    async (request) => {
      const { site, access } = await requireSite(db, actorOf(request), request.params.organizationId, request.params.siteId);
      return presentSiteFor(db, access, site, urls);
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/sites/:siteId",
    {
      schema: {
        tags,
        operationId: "updateSiteById",
        description:
          "Changes a site's settings. `basename` must be unused on this Quire (409 otherwise); `defaultSiteSpace` names a site space at the root of a site without sections, or in the default section of a site with sections; `proxy: null` removes the proxy. A `visibility` that is not narrower than the current one (public > unlisted > share-link or visitor-auth) and `agentsContext: included` need the read level on every space the site shows (403 otherwise). Nothing is written when a field is refused.",
        params: SiteParams,
        body: UpdateSiteBody,
        response: { 200: SiteSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { site, access, permissions, unreadable } = await requireSite(
        db,
        actorOf(request),
        request.params.organizationId,
        request.params.siteId,
      );
      allow(permissions.edit, "Only members with the create role, or the edit level on this site, can change it.");
      const { visibility, agentsContext } = request.body;
      if (visibility !== undefined && widensAudience(site.visibility, visibility)) {
        refuseExposure(unreadable, `change this site's visibility from "${site.visibility}" to "${visibility}"`);
      }
      if (agentsContext === "included" && site.agentsContext !== "included") refuseExposure(unreadable, "let agents read this site");
      await inSiteTransaction(db, site, (trx, current) => updateSite(trx, { model: current, body: request.body })).catch((error) => {
        // Another site took the basename between the check and the write.
        if (isUniqueViolation(error))
          throw conflicting(`body.basename "${request.body.basename}" is already used by another site on this Quire; choose another.`);
        throw error;
      });
      return presentSiteFor(db, access, (await getSite(db, site.orgId, site.id)) ?? site, urls);
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/sites/:siteId",
    {
      schema: {
        tags,
        operationId: "deleteSiteById",
        description:
          "Deletes the site, its structure, share links, adaptive schema and signing key; the spaces it showed are kept. 204 also when it did not exist.",
        params: SiteParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const access = await requireOrgAccess(db, actor, request.params.organizationId);
      const site = await getSite(db, access.orgId, request.params.siteId);
      const permissions = site && sitePermissions(access, site);
      // A site the caller may not see answers like one that does not exist.
      if (site && permissions?.view) {
        allow(
          permissions.admin,
          "Only organization admins, members with the admin level on this site and the site's creator can delete it.",
        );
        await db.transaction().execute((trx) => deleteSiteRow(trx, access.orgId, site.id));
      }
      return reply.code(204).send(null);
    },
  );

  for (const [action, operationId, published] of [
    ["publish", "publishSite", 1],
    ["unpublish", "unpublishSite", 0],
  ] as const) {
    app.post(
      `/v1/orgs/:organizationId/sites/:siteId/${action}`,
      {
        schema: {
          tags,
          operationId,
          description:
            published === 1
              ? "Publishes the site: it is served at `urls.published` to the audience its visibility sets. Needs the organization role `create` and the read level on every space the site shows (403 otherwise). A self-hosted Quire never asks for a checkout: the answer is always the Site."
              : "Unpublishes the site: it is no longer served (its settings and structure are kept). Needs the organization role `create`.",
          params: SiteParams,
          response: { 200: PublishResponse, ...errorResponses },
        },
      },
      async (request) => {
        const { site, access, permissions, unreadable } = await requireSite(
          db,
          actorOf(request),
          request.params.organizationId,
          request.params.siteId,
        );
        allow(permissions.edit, "Only members with the create role, or the edit level on this site, can publish or unpublish it.");
        // Unpublishing only narrows who reads the site; publishing shows every space of it.
        if (published === 1) refuseExposure(unreadable, "publish this site");
        if (site.published !== published) {
          await db.transaction().execute(async (trx) => {
            await updateSiteRow(trx, site.id, { published });
            // Its images are made at the widths pages show them before readers ask (a low-priority job per space).
            if (published === 1) await requestImagesOfSite(trx, site.id);
          });
          if (published === 1) deps.notifyJobs();
        }
        return presentSiteFor(db, access, { ...site, published }, urls);
      },
    );
  }

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId/published",
    {
      schema: {
        tags,
        operationId: "getPublishedContentSite",
        description:
          "What a reader at the site's root sees: the site, its structure (sections and groups, or site spaces; items of deleted spaces and empty sections left out) and customization. 404 while the site is not published. With `shareKey` (an active share link's key), published URLs carry the key.",
        params: SiteParams,
        querystring: ShareKeyQuery,
        response: { 200: PublishedContentSiteSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { site, access } = await requireSite(db, actorOf(request), request.params.organizationId, request.params.siteId);
      if (site.published !== 1) throw siteNotFound(site.id);
      const shareKey = await verifiedShareKey(db, site.id, request.query.shareKey);
      const model = await loadSiteModel(db, site);
      const ctx = structureContextOf(access, model, await loadStructureSpaces(db, model), urls, shareKey);
      return {
        object: "published-content-site" as const,
        site: await presentSiteFor(db, access, site, urls),
        structure: presentStructure(ctx),
        customizations: publishedCustomizations(site, model),
        scripts: [],
      };
    },
  );
};

/** One site as the caller sees it. */
async function presentSiteFor(db: Executor, access: OrgAccess, site: SiteRow, urls: Urls) {
  const [presented] = presentSites([site], await loadSitesContext(db, access, [site]), urls);
  if (!presented) throw new Error("presentSites returned nothing for one site");
  return presented;
}
