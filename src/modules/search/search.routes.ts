/**
 * GET /v1/spaces/{spaceId}/search and GET /v1/orgs/{organizationId}/search: full-text search over
 * the primary content, sections split at headings, best pages first, with snippets. The
 * organization search covers only the spaces the caller may read.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import Type from "typebox";
import { fullTextIndex } from "../../content/search/engine.js";
import { type PageResult, searchOrganization, searchPages } from "../../content/search/search.service.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { errorResponses, ListOf, ListQuery } from "../../http/schemas.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { readableSpaceNodes, requireLiveSpace } from "../spaces/spaces.loader.js";
import { getSpacesByIds, listSpaceNodes } from "../spaces/spaces.queries.js";
import { SpaceParams } from "../spaces/spaces.schemas.js";

const tags = ["search"];

const SearchQuery = Type.Object({
  ...ListQuery.properties,
  query: Type.String({ minLength: 1, maxLength: 512, description: "Words to search for; the last one also matches as a prefix" }),
});

const Section = Type.Object({
  id: Type.String(),
  title: Type.String(),
  path: Type.String(),
  body: Type.String(),
  urls: Type.Object({ app: Type.String() }),
});
const PageResultSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  path: Type.String(),
  sections: Type.Array(Section),
  ancestors: Type.Array(Type.Object({ title: Type.String() })),
  urls: Type.Object({ app: Type.String() }),
});
const SpaceResultSchema = Type.Object({ id: Type.String(), title: Type.String(), pages: Type.Array(PageResultSchema) });

export const searchRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, dialect, urls } = deps;
  const index = fullTextIndex(dialect);

  const presentPage = (orgId: string, result: PageResult) => {
    const pageUrl = urls.app(`/o/${orgId}/s/${result.spaceId}/p/${result.pageId}`);
    return {
      id: result.pageId,
      title: result.title,
      path: result.path,
      sections: result.sections.map((s) => ({
        ...s,
        urls: { app: s.path.includes("#") ? `${pageUrl}#${s.path.split("#")[1]}` : pageUrl },
      })),
      ancestors: result.ancestors,
      urls: { app: pageUrl },
    };
  };

  app.get(
    "/v1/spaces/:spaceId/search",
    {
      schema: {
        tags,
        operationId: "searchSpaceContent",
        params: SpaceParams,
        querystring: SearchQuery,
        response: { 200: ListOf(PageResultSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { space } = await requireLiveSpace(db, actorOf(request), request.params.spaceId);
      const { query, page, limit } = request.query;
      const found = await searchPages(index, db, [space.id], query, { page, limit });
      return {
        items: found.results.map((r) => presentPage(space.orgId, r)),
        count: found.count,
        ...(found.next ? { next: found.next } : {}),
      };
    },
  );

  app.get(
    "/v1/orgs/:organizationId/search",
    {
      schema: {
        tags,
        operationId: "searchOrganizationContent",
        params: OrganizationParams,
        querystring: SearchQuery,
        response: { 200: ListOf(SpaceResultSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { org, access } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      const { query, page, limit } = request.query;
      const readable = readableSpaceNodes(access, await listSpaceNodes(db, { orgId: org.id }));
      const found = await searchOrganization(
        index,
        db,
        readable.map((n) => n.id),
        query,
        { page, limit },
      );
      const titles = new Map(
        (
          await getSpacesByIds(
            db,
            found.results.map((s) => s.spaceId),
          )
        ).map((s) => [s.id, s.title]),
      );
      return {
        items: found.results.map((s) => ({
          id: s.spaceId,
          title: titles.get(s.spaceId) ?? "",
          pages: s.pages.map((r) => presentPage(org.id, r)),
        })),
        count: found.count,
        ...(found.next ? { next: found.next } : {}),
      };
    },
  );
};
