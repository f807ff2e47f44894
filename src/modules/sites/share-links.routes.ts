import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { errorResponses, ListOf, ListQuery, NoContent } from "../../http/schemas.js";
import { missing } from "../../lib/errors.js";
import { toList } from "../../lib/pagination.js";
import { presentShareLink } from "./share-links.presenter.js";
import { deleteShareLinkRow, getShareLink, listShareLinks, updateShareLinkRow } from "./share-links.queries.js";
import { CreateShareLinkBody, ShareLinkParams, ShareLinkSchema, UpdateShareLinkBody } from "./share-links.schemas.js";
import { createShareLink, shareLinkKey } from "./share-links.service.js";
import { requireSite } from "./sites.loader.js";
import { allow, refuseExposure } from "./sites.policy.js";
import { SiteParams } from "./sites.schemas.js";

const tags = ["share links"];
const MANAGE_MESSAGE = "Only members with the create role, or the edit level on this site, can manage a site's share links.";

/** Share links of a site: anyone holding one's URL may read the site while the link is active. */
export const shareLinkRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls, secret } = deps;

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId/share-links",
    {
      schema: {
        tags,
        operationId: "listSiteShareLinks",
        description:
          "The site's share links, oldest first. Their URLs (which hold the secret keys) are shown only to callers who may manage share links (`permissions.manageShareLinks`: the create role and the read level on every space the site shows).",
        params: SiteParams,
        querystring: ListQuery,
        response: { 200: ListOf(ShareLinkSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { site, permissions } = await requireSite(db, actorOf(request), request.params.organizationId, request.params.siteId);
      const page = await listShareLinks(db, site.id, request.query);
      return toList(page, (link) =>
        presentShareLink(link, site, permissions.manageShareLinks ? shareLinkKey(link, secret) : undefined, urls),
      );
    },
  );

  app.post(
    "/v1/orgs/:organizationId/sites/:siteId/share-links",
    {
      schema: {
        tags,
        operationId: "createSiteShareLink",
        description:
          "Creates an active share link with a new secret key (about 190 random bits). Needs the organization role `create` and the read level on every space the site shows.",
        params: SiteParams,
        body: CreateShareLinkBody,
        response: { 201: ShareLinkSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { site, permissions, unreadable } = await requireSite(db, actor, request.params.organizationId, request.params.siteId);
      allow(permissions.edit, MANAGE_MESSAGE);
      refuseExposure(unreadable, "create a share link to this site");
      const link = await db
        .transaction()
        .execute((trx) => createShareLink(trx, { siteId: site.id, name: request.body.name, actorId: actor.user.id, secret }));
      reply.code(201).header("location", urls.api(`/orgs/${site.orgId}/sites/${site.id}/share-links/${link.id}`));
      return presentShareLink(link, site, shareLinkKey(link, secret), urls);
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId",
    {
      schema: {
        tags,
        operationId: "updateSiteShareLinkById",
        description:
          "Renames a share link or (de)activates it: an inactive link's URL stops working. Needs the organization role `create` and the read level on every space the site shows (the answer holds the link's key).",
        params: ShareLinkParams,
        body: UpdateShareLinkBody,
        response: { 200: ShareLinkSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { site, permissions, unreadable } = await requireSite(
        db,
        actorOf(request),
        request.params.organizationId,
        request.params.siteId,
      );
      allow(permissions.edit, MANAGE_MESSAGE);
      // The answer holds the link's key, and `active: true` opens the site again.
      refuseExposure(unreadable, "change a share link of this site");
      const link = await getShareLink(db, site.id, request.params.shareLinkId);
      if (!link) throw missing(`No share link with id "${request.params.shareLinkId}" in this site.`);
      const { name, active } = request.body;
      await updateShareLinkRow(db, link.id, {
        ...(name !== undefined ? { name } : {}),
        ...(active !== undefined ? { active: active ? 1 : 0 } : {}),
      });
      const updated = (await getShareLink(db, site.id, link.id)) ?? link;
      return presentShareLink(updated, site, shareLinkKey(updated, secret), urls);
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId",
    {
      schema: {
        tags,
        operationId: "deleteSiteShareLinkById",
        description: "Deletes a share link: its URL stops working. 204 also when it did not exist.",
        params: ShareLinkParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { site, permissions } = await requireSite(db, actorOf(request), request.params.organizationId, request.params.siteId);
      // Deleting a link only narrows who reads the site: the create role is enough.
      allow(permissions.edit, MANAGE_MESSAGE);
      await deleteShareLinkRow(db, site.id, request.params.shareLinkId);
      return reply.code(204).send(null);
    },
  );
};
