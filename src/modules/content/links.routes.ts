/**
 * Links and backlinks of a revision: GET .../links (all links of the space, grouped by target),
 * .../page/{pageId}/links, .../page/{pageId}/backlinks and .../files/{fileId}/backlinks.
 * Items are one per target; `stats` count every link written in the pages.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import Type, { type TObject } from "typebox";
import type { ContentRef } from "../../content/document/types.js";
import { collectLinks, type LinkUsage, targetKey } from "../../content/links/links.js";
import { loadDocuments } from "../../content/revision/storage.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { notFound } from "../../http/errors.js";
import { errorResponses, ListQuery } from "../../http/schemas.js";
import { listOf, paginateRows, toList } from "../../lib/pagination.js";
import { organizationPermissions } from "../organizations/organizations.policy.js";
import { presentOrganization } from "../organizations/organizations.presenter.js";
import { getOrganization } from "../organizations/organizations.queries.js";
import { spaceActivityCount } from "../spaces/space-activity.queries.js";
import { spacePermissions } from "../spaces/spaces.policy.js";
import { presentSpace } from "../spaces/spaces.presenter.js";
import type { RevisionView } from "./content.loader.js";
import { presentFile, presentPage } from "./content.presenter.js";

const Status = Type.Enum(["ok", "broken", "in-app"]);
const Location = Type.Record(Type.String(), Type.Unknown(), {
  description: "ContentLocation: {kind: page|file|url|reusable-content, ...}",
});
const Usage = Type.Object({
  status: Status,
  relation: Type.Enum(["reference", "dependsOn"]),
  targetReference: Type.Optional(Location),
  locationReferences: Type.Array(Location),
});
const Stats = Type.Object({
  total: Type.Number(),
  broken: Type.Object({ total: Type.Number(), changeRequest: Type.Optional(Type.Number()) }),
});
const LinksList = Type.Object({
  next: Type.Optional(Type.Object({ page: Type.String() })),
  count: Type.Number(),
  items: Type.Array(Usage),
  stats: Stats,
});
const LocationsList = Type.Object({
  next: Type.Optional(Type.Object({ page: Type.String() })),
  count: Type.Number(),
  items: Type.Array(Location),
});
const LinksQuery = Type.Object({ ...ListQuery.properties, status: Type.Optional(Status) });

export interface LinkReadSet {
  base: string;
  params: TObject;
  tags: string[];
  operationIds: { pageLinks?: string; pageBacklinks?: string; fileBacklinks?: string; links?: string };
  /** Where the space-wide links list is mounted (it is not under `base`). */
  linksPath?: string;
  resolve(request: FastifyRequest): Promise<RevisionView>;
}

export function registerLinkReads(app: FastifyInstance, deps: Deps, set: LinkReadSet): void {
  const { db, urls, secret, config } = deps;
  const withParams = (extra: TObject) => Type.Object({ ...set.params.properties, ...extra.properties });

  /** The view plus everything needed to present locations: links, organization and space. */
  async function load(request: FastifyRequest) {
    const view = await set.resolve(request);
    const actor = actorOf(request);
    const [access, org] = await Promise.all([actor.access.forOrg(view.space.orgId), getOrganization(db, view.space.orgId)]);
    const documents = await loadDocuments(
      db,
      [...view.locations().values()].flatMap((l) => (l.page.documentHash ? [l.page.documentHash] : [])),
    );
    const usages = collectLinks(
      { spaceId: view.space.id, content: view.content, locations: view.locations(), publicUrl: config.publicUrl },
      documents,
    );
    const ctx = { urls, secret, orgId: view.space.orgId, spaceId: view.space.id, metadata: true };
    const organization = presentOrganization(org!, organizationPermissions(access), urls);
    const space = presentSpace(
      view.space,
      { permissions: spacePermissions(access, view.space), counts: await spaceActivityCount(db, view.space.id) },
      urls,
    );
    // `versionContext` is optional and would embed the whole revision in every location: omitted.
    const pageLocation = (pageId: string, anchor?: string) => {
      const location = view.locations().get(pageId);
      if (!location) return undefined;
      return {
        kind: "page" as const,
        organization,
        space,
        page: presentPage(location.page, location.path, ctx),
        ...(anchor ? { internalLocation: { type: "anchor", anchor } } : {}),
      };
    };
    const targetLocation = (ref: ContentRef): Record<string, unknown> | undefined => {
      switch (ref.kind) {
        case "url":
          return { kind: "url", url: ref.url };
        case "page":
          return ref.space && ref.space !== view.space.id ? undefined : pageLocation(ref.page);
        case "anchor":
          return ref.page && (!ref.space || ref.space === view.space.id) ? pageLocation(ref.page, ref.anchor) : undefined;
        case "file": {
          const file = view.content.files.find((f) => f.id === ref.file);
          return file ? { kind: "file", organization, space, file: presentFile(file, ctx) } : undefined;
        }
        default:
          return undefined;
      }
    };
    return { view, usages, pageLocation, targetLocation };
  }

  /** One item per target, in the order targets first appear; stats count every link. */
  function usageList(
    usages: LinkUsage[],
    loaded: Awaited<ReturnType<typeof load>>,
    query: { status?: string; page?: string; limit?: number },
  ) {
    const groups = new Map<string, LinkUsage[]>();
    for (const usage of usages) {
      const key = targetKey(usage.target);
      groups.set(key, [...(groups.get(key) ?? []), usage]);
    }
    const entries = [...groups.entries()]
      .map(([key, list], order) => ({ key, list, order, status: list[0]!.status }))
      .filter((e) => !query.status || e.status === query.status);
    const page = paginateRows(entries, [{ direction: "asc", value: (e) => e.order }], query);
    const broken = usages.filter((u) => u.status === "broken").length;
    return {
      ...toList(page, ({ list }) => {
        const target = loaded.targetLocation(list[0]!.target);
        const sources = [...new Set(list.map((u) => u.sourcePageId))];
        return {
          status: list[0]!.status,
          relation: list[0]!.relation,
          ...(target ? { targetReference: target } : {}),
          locationReferences: sources.flatMap((id) => loaded.pageLocation(id) ?? []),
        };
      }),
      stats: { total: usages.length, broken: { total: broken } },
    };
  }

  function backlinkList(sources: string[], loaded: Awaited<ReturnType<typeof load>>, query: { page?: string; limit?: number }) {
    const unique = [...new Set(sources)].map((id, order) => ({ id, order }));
    const page = paginateRows(unique, [{ direction: "asc", value: (e) => e.order }], query);
    return listOf(
      page,
      page.rows.flatMap((e) => loaded.pageLocation(e.id) ?? []),
    );
  }

  const pageParams = withParams(Type.Object({ pageId: Type.String({ minLength: 1, maxLength: 100 }) }));

  if (set.linksPath && set.operationIds.links) {
    app.get(
      set.linksPath,
      {
        schema: {
          tags: set.tags,
          operationId: set.operationIds.links,
          params: set.params,
          querystring: LinksQuery,
          response: { 200: LinksList, ...errorResponses },
        },
      },
      async (request) => {
        const loaded = await load(request);
        return usageList(loaded.usages, loaded, request.query as never);
      },
    );
  }

  if (set.operationIds.pageLinks) {
    app.get(
      `${set.base}/page/:pageId/links`,
      {
        schema: {
          tags: set.tags,
          operationId: set.operationIds.pageLinks,
          params: pageParams,
          querystring: LinksQuery,
          response: { 200: LinksList, ...errorResponses },
        },
      },
      async (request) => {
        const loaded = await load(request);
        const { pageId } = request.params as { pageId: string };
        if (!loaded.view.locations().has(pageId)) throw notFound(`No page with id "${pageId}" in this revision.`);
        return usageList(
          loaded.usages.filter((u) => u.sourcePageId === pageId),
          loaded,
          request.query as never,
        );
      },
    );
  }

  if (set.operationIds.pageBacklinks) {
    app.get(
      `${set.base}/page/:pageId/backlinks`,
      {
        schema: {
          tags: set.tags,
          operationId: set.operationIds.pageBacklinks,
          params: pageParams,
          querystring: ListQuery,
          response: { 200: LocationsList, ...errorResponses },
        },
      },
      async (request) => {
        const loaded = await load(request);
        const { pageId } = request.params as { pageId: string };
        if (!loaded.view.locations().has(pageId)) throw notFound(`No page with id "${pageId}" in this revision.`);
        const sources = loaded.usages
          .filter(
            (u) =>
              (u.target.kind === "page" && u.target.page === pageId && !u.target.space) ||
              (u.target.kind === "anchor" && u.target.page === pageId),
          )
          .map((u) => u.sourcePageId);
        return backlinkList(sources, loaded, request.query as never);
      },
    );
  }

  if (set.operationIds.fileBacklinks) {
    app.get(
      `${set.base}/files/:fileId/backlinks`,
      {
        schema: {
          tags: set.tags,
          operationId: set.operationIds.fileBacklinks,
          params: withParams(Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 100 }) })),
          querystring: ListQuery,
          response: { 200: LocationsList, ...errorResponses },
        },
      },
      async (request) => {
        const loaded = await load(request);
        const { fileId } = request.params as { fileId: string };
        if (!loaded.view.content.files.some((f) => f.id === fileId)) throw notFound(`No file with id "${fileId}" in this revision.`);
        const sources = loaded.usages.filter((u) => u.target.kind === "file" && u.target.file === fileId).map((u) => u.sourcePageId);
        return backlinkList(sources, loaded, request.query as never);
      },
    );
  }
}
