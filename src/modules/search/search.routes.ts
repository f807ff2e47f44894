/**
 * GET /v1/spaces/{spaceId}/search and GET /v1/orgs/{organizationId}/search: full-text search over
 * the primary content, sections split at headings, best pages first, with snippets. The
 * organization search covers only the spaces the caller may read.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import Type from "typebox";
import { fullTextIndex } from "../../content/search/engine.js";
import { searchTerms } from "../../content/search/fulltext.js";
import { decodeOffset, describePages, encodeOffset, MAX_SECTION_HITS, type PageResult, rankPages, type RankedPage } from "../../content/search/search.service.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { badRequest } from "../../http/errors.js";
import { ListOf, ListQuery, errorResponses } from "../../http/schemas.js";
import { contentLevel } from "../../permissions/access.js";
import { atLeast } from "../../permissions/roles.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { requireOrganization } from "../organizations/organizations.service.js";
import { listSpaceNodes } from "../spaces/spaces.queries.js";
import { SpaceParams } from "../spaces/spaces.schemas.js";
import { requireLiveSpace } from "../spaces/spaces.service.js";

const tags = ["search"];

const SearchQuery = Type.Object({
  ...ListQuery.properties,
  query: Type.String({ minLength: 1, maxLength: 512, description: "Words to search for; the last one also matches as a prefix" }),
});

const Section = Type.Object({ id: Type.String(), title: Type.String(), path: Type.String(), body: Type.String(), urls: Type.Object({ app: Type.String() }) });
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
      sections: result.sections.map((s) => ({ ...s, urls: { app: s.path.includes("#") ? `${pageUrl}#${s.path.split("#")[1]}` : pageUrl } })),
      ancestors: result.ancestors,
      urls: { app: pageUrl },
    };
  };

  const termsOf = (query: string) => {
    const terms = searchTerms(query);
    if (terms.length === 0) throw badRequest("The query has no words to search for (letters or digits).");
    return terms;
  };

  app.get(
    "/v1/spaces/:spaceId/search",
    { schema: { tags, operationId: "searchSpaceContent", params: SpaceParams, querystring: SearchQuery, response: { 200: ListOf(PageResultSchema), ...errorResponses } } },
    async (request) => {
      const { space } = await requireLiveSpace(db, actorOf(request), request.params.spaceId);
      const { query, page, limit = 20 } = request.query;
      const offset = decodeOffset(page);
      const terms = termsOf(query);
      const pages = rankPages(await index.search(db, [space.id], terms, MAX_SECTION_HITS));
      const slice = await describePages(index, db, terms, pages.slice(offset, offset + limit));
      return {
        items: slice.map((r) => presentPage(space.orgId, r)),
        count: pages.length,
        ...(offset + limit < pages.length ? { next: { page: encodeOffset(offset + limit) } } : {}),
      };
    },
  );

  app.get(
    "/v1/orgs/:organizationId/search",
    { schema: { tags, operationId: "searchOrganizationContent", params: OrganizationParams, querystring: SearchQuery, response: { 200: ListOf(SpaceResultSchema), ...errorResponses } } },
    async (request) => {
      const { org, access } = await requireOrganization(db, actorOf(request), request.params.organizationId);
      const { query, page, limit = 20 } = request.query;
      const offset = decodeOffset(page);
      const readable = (await listSpaceNodes(db, { orgId: org.id })).filter((node) => atLeast(contentLevel(access, node), "read"));
      const titles = new Map(
        (readable.length ? await db.selectFrom("spaces").select(["id", "title"]).where("id", "in", readable.map((n) => n.id)).execute() : []).map((s) => [s.id, s.title]),
      );
      const terms = termsOf(query);
      const hits = await index.search(db, [...titles.keys()], terms, MAX_SECTION_HITS);
      // Spaces in the order of their best page.
      const bySpace = new Map<string, RankedPage[]>();
      for (const result of rankPages(hits)) {
        const list = bySpace.get(result.spaceId) ?? [];
        list.push(result);
        bySpace.set(result.spaceId, list);
      }
      const spaces = [...bySpace.entries()];
      const slice = spaces.slice(offset, offset + limit).map(([spaceId, results]) => [spaceId, results.slice(0, 20)] as const);
      const described = await describePages(index, db, terms, slice.flatMap(([, results]) => results));
      const bySpaceDescribed = new Map<string, PageResult[]>();
      for (const result of described) bySpaceDescribed.set(result.spaceId, [...(bySpaceDescribed.get(result.spaceId) ?? []), result]);
      return {
        items: slice.map(([spaceId]) => ({
          id: spaceId,
          title: titles.get(spaceId) ?? "",
          pages: (bySpaceDescribed.get(spaceId) ?? []).map((r) => presentPage(org.id, r)),
        })),
        count: spaces.length,
        ...(offset + limit < spaces.length ? { next: { page: encodeOffset(offset + limit) } } : {}),
      };
    },
  );
};
