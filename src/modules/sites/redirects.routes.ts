import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { isUniqueViolation } from "../../db/dialect.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { errorResponses, ListOf, NoContent } from "../../http/schemas.js";
import { conflicting, missing } from "../../lib/errors.js";
import { paginateRows, toList } from "../../lib/pagination.js";
import { nowIso } from "../../lib/time.js";
import type { RedirectDestination } from "./redirects.model.js";
import { presentRedirect } from "./redirects.presenter.js";
import {
  deleteSiteRedirectRow,
  findSiteRedirectBySource,
  getSiteRedirect,
  insertSiteRedirect,
  listSiteRedirectRows,
  updateSiteRedirectRow,
} from "./redirects.queries.js";
import {
  BulkRedirectsBody,
  BulkRedirectsResponse,
  CreateRedirectBody,
  ListRedirectsQuery,
  RedirectBySourceQuery,
  RedirectBySourceResponse,
  RedirectParams,
  SiteRedirectSchema,
  UpdateRedirectBody,
} from "./redirects.schemas.js";
import { bulkUpsertRedirects, checkRedirectRoom, destinationSegments, newRedirectRow, resolveDestination } from "./redirects.service.js";
import { inSiteTransaction, requireSite, verifiedShareKey } from "./sites.loader.js";
import { allow } from "./sites.policy.js";
import { SiteParams } from "./sites.schemas.js";
import { loadSiteModel } from "./structure.queries.js";

const tags = ["site-redirects"];
const EDIT_MESSAGE = "Only members with the create role, or the edit level on this site, can change its redirects.";
const prefix = "/v1/orgs/:organizationId/sites/:siteId";

const redirectNotFound = (id: string) => missing(`No redirect with id "${id}" on this site.`);
const sourceTaken = (source: string, draft: boolean) =>
  conflicting(
    `This site already has a ${draft ? "draft" : "live"} redirect of "${source}": change that one (PATCH) or use PUT .../redirects to upsert.`,
  );

/**
 * A site's own redirects (GitBook 0.202): the published site answers a path that leads nowhere
 * with the live redirect whose source matches it (apps/site/pages/page.page.ts). Members who see
 * the site read them; members who may edit it change them.
 */
export const siteRedirectRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  app.get(
    `${prefix}/redirects`,
    {
      schema: {
        tags,
        operationId: "listSiteRedirects",
        description:
          "The site's live redirects (`draft=true`: its drafts), newest first (`orderBy=updatedAt`: last changed first; `source`: by source path). `search` keeps those whose source contains it.",
        params: SiteParams,
        querystring: ListRedirectsQuery,
        response: { 200: ListOf(SiteRedirectSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { site } = await requireSite(db, actorOf(request), request.params.organizationId, request.params.siteId);
      const { search, draft, orderBy = "createdAt" } = request.query;
      const needle = search?.toLowerCase();
      const rows = (await listSiteRedirectRows(db, site.id, draft ?? false)).filter(
        (row) => !needle || row.source.toLowerCase().includes(needle),
      );
      const page = paginateRows(
        rows,
        orderBy === "source"
          ? [
              { direction: "asc", value: (r) => r.source },
              { direction: "asc", value: (r) => r.id },
            ]
          : [
              { direction: "desc", value: (r) => (orderBy === "updatedAt" ? (r.updatedAt ?? r.createdAt) : r.createdAt) },
              { direction: "desc", value: (r) => r.id },
            ],
        request.query,
      );
      return toList(page, presentRedirect);
    },
  );

  app.post(
    `${prefix}/redirects`,
    {
      schema: {
        tags,
        operationId: "createSiteRedirect",
        description:
          "Adds a redirect: `destination` is a section, site space or page of this site (a page may be given by its `path` in a space the site shows), or an http(s) URL. 409 when the source already has a redirect of the same kind (live or draft).",
        params: SiteParams,
        body: CreateRedirectBody,
        response: { 201: SiteRedirectSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { site, permissions } = await requireSite(db, actorOf(request), request.params.organizationId, request.params.siteId);
      allow(permissions.edit, EDIT_MESSAGE);
      const body = request.body;
      const draft = body.draft ?? false;
      const row = await inSiteTransaction(db, site, async (trx, model) => {
        const destination = await resolveDestination(trx, model, body.destination, "body.destination");
        if (await findSiteRedirectBySource(trx, site.id, body.source, draft)) throw sourceTaken(body.source, draft);
        await checkRedirectRoom(trx, site.id, 1);
        const created = newRedirectRow(site.id, {
          source: body.source,
          draft,
          captureWildcard: body.captureWildcard ?? false,
          permanent: body.permanent ?? false,
          destination,
        });
        await insertSiteRedirect(trx, created);
        return created;
      });
      reply.code(201).header("location", urls.api(`/orgs/${site.orgId}/sites/${site.id}/redirects/${row.id}`));
      return presentRedirect(row);
    },
  );

  app.put(
    `${prefix}/redirects`,
    {
      bodyLimit: 2 * 1024 * 1024,
      schema: {
        tags,
        operationId: "bulkUpsertSiteRedirects",
        description:
          "Up to 500 operations in order, each reported on its own: upsert the live (`intent: live`, the default) or draft redirect of a source, delete it (`destination: null`), or publish a source's draft (`intent: publish`). An item that cannot apply is reported as `error` and the others still do.",
        params: SiteParams,
        body: BulkRedirectsBody,
        response: { 200: BulkRedirectsResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { site, permissions } = await requireSite(db, actorOf(request), request.params.organizationId, request.params.siteId);
      allow(permissions.edit, EDIT_MESSAGE);
      const results = await inSiteTransaction(db, site, (trx, model) => bulkUpsertRedirects(trx, model, request.body.redirects));
      return { results };
    },
  );

  app.patch(
    `${prefix}/redirects/:siteRedirectId`,
    {
      schema: {
        tags,
        operationId: "updateSiteRedirectById",
        description:
          "Changes the fields given. `draft: false` on a draft makes it live (409 when its source already has a live redirect: publish it through PUT .../redirects instead).",
        params: RedirectParams,
        body: UpdateRedirectBody,
        response: { 200: SiteRedirectSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { site, permissions } = await requireSite(db, actorOf(request), request.params.organizationId, request.params.siteId);
      allow(permissions.edit, EDIT_MESSAGE);
      const id = request.params.siteRedirectId;
      const body = request.body;
      const updated = await inSiteTransaction(db, site, async (trx, model) => {
        const current = await getSiteRedirect(trx, site.id, id);
        if (!current) throw redirectNotFound(id);
        const destination: RedirectDestination | undefined = body.destination
          ? await resolveDestination(trx, model, body.destination, "body.destination")
          : undefined;
        const source = body.source ?? current.source;
        const draft = body.draft ?? current.draft === 1;
        const clash = await findSiteRedirectBySource(trx, site.id, source, draft);
        if (clash && clash.id !== id) throw sourceTaken(source, draft);
        await updateSiteRedirectRow(trx, id, {
          source,
          draft: draft ? 1 : 0,
          ...(body.captureWildcard !== undefined ? { captureWildcard: body.captureWildcard ? 1 : 0 } : {}),
          ...(body.permanent !== undefined ? { permanent: body.permanent ? 1 : 0 } : {}),
          ...(destination ? { destination: JSON.stringify(destination) } : {}),
          updatedAt: nowIso(),
        });
        return getSiteRedirect(trx, site.id, id);
      }).catch((error) => {
        // Another write took the source between the check and the update.
        if (isUniqueViolation(error)) throw sourceTaken(body.source ?? "", body.draft ?? false);
        throw error;
      });
      if (!updated) throw redirectNotFound(id);
      return presentRedirect(updated);
    },
  );

  app.delete(
    `${prefix}/redirects/:siteRedirectId`,
    {
      schema: {
        tags,
        operationId: "deleteSiteRedirectById",
        description: "Deletes the redirect: 205 when it was deleted, 204 when there was none (as 0.202 answers).",
        params: RedirectParams,
        response: { 204: NoContent, 205: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { site, permissions } = await requireSite(db, actorOf(request), request.params.organizationId, request.params.siteId);
      allow(permissions.edit, EDIT_MESSAGE);
      const deleted = await deleteSiteRedirectRow(db, site.id, request.params.siteRedirectId);
      return reply.code(deleted ? 205 : 204).send(null);
    },
  );

  app.get(
    `${prefix}/redirect`,
    {
      schema: {
        tags,
        operationId: "getSiteRedirectBySource",
        description:
          "The live redirect of exactly this source and the URL it leads to on the published site (with `shareKey`, an active share link's key, in it). 404 when there is none, or when its destination no longer exists.",
        params: SiteParams,
        querystring: RedirectBySourceQuery,
        response: { 200: RedirectBySourceResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { site } = await requireSite(db, actorOf(request), request.params.organizationId, request.params.siteId);
      const shareKey = await verifiedShareKey(db, site.id, request.query.shareKey);
      const row = await findSiteRedirectBySource(db, site.id, request.query.source, false);
      if (!row) throw missing(`This site has no live redirect of "${request.query.source}".`);
      const redirect = presentRedirect(row);
      const target = await destinationSegments(db, await loadSiteModel(db, site), redirect.destination);
      if (!target)
        throw missing(`The destination of the redirect of "${row.source}" no longer exists on this site; change or delete the redirect.`);
      return { redirect, target: "url" in target ? target.url : urls.site(site.basename, shareKey, ...target.segments) };
    },
  );
};
