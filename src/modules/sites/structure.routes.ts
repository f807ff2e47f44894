import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import Type from "typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { errorResponses, ListOf, NoContent } from "../../http/schemas.js";
import { missing } from "../../lib/errors.js";
import { listOf, paginateRows } from "../../lib/pagination.js";
import type { Actor } from "../../permissions/actor.js";
import {
  inSiteTransaction,
  type LoadedSite,
  loadSpacesForSite,
  loadStructureSpaces,
  requireSiteWithModel,
  verifiedShareKey,
} from "./sites.loader.js";
import { allow, refuseExposure } from "./sites.policy.js";
import { SiteParams } from "./sites.schemas.js";
import { checkSpacesForSite } from "./sites.service.js";
import {
  defaultSiteSpaceId,
  type ModelSiteSpace,
  type PositionPointer,
  planPosition,
  type SiteModel,
  type StructureItemType,
  sectionsInOrder,
  siteSpacesOf,
} from "./structure.model.js";
import {
  presentGroup,
  presentSection,
  presentSiteSpace,
  presentStructure,
  type StructureContext,
  structureContextOf,
} from "./structure.presenter.js";
import { deleteSectionRow, deleteSiteSpaceRow, loadSiteModel, updateGroupRow } from "./structure.queries.js";
import {
  AddSectionBody,
  AddSectionGroupBody,
  AddSectionToGroupBody,
  AddSiteSpaceBody,
  GroupSectionParams,
  ListSiteSpacesQuery,
  ListWithShareKeyQuery,
  MoveSiteSectionBody,
  MoveSiteSectionGroupBody,
  MoveSiteSpaceBody,
  SiteSectionGroupParams,
  SiteSectionGroupSchema,
  SiteSectionParams,
  SiteSectionSchema,
  SiteSpaceParams,
  SiteSpaceSchema,
  SiteStructureSchema,
  SortStructureBody,
  UpdateSectionBody,
  UpdateSectionGroupBody,
  UpdateSiteSpaceBody,
} from "./structure.schemas.js";
import {
  addGroup,
  addSection,
  addSectionToGroup,
  addSiteSpace,
  deleteGroup,
  moveItem,
  removeSectionFromGroup,
  updateSection,
  updateSiteSpace,
} from "./structure.service.js";

const tags = ["site structure"];
const EDIT_MESSAGE = "Only members with the create role, or the edit level on this site, can change a site's structure.";
const SORT_NOTE = "Deprecated: use PATCH {site}/structure/sort.";

type MovePosition = { before?: PositionPointer | undefined; after?: PositionPointer | undefined } | undefined;

/** Items of a site in reading order: sections depth first, each with its site spaces. */
function orderedSiteSpaces(model: SiteModel): ModelSiteSpace[] {
  const sections = sectionsInOrder(model);
  const ordered = sections.length === 0 ? siteSpacesOf(model, null) : sections.flatMap((s) => siteSpacesOf(model, s.id));
  return ordered.filter((s) => !s.hidden);
}

function groupsInOrder(model: SiteModel, parentId: string | null = null, seen = new Set<string>()): SiteModel["groups"] {
  const result: SiteModel["groups"] = [];
  const children = model.groups
    .filter((g) => g.parentId === parentId && !seen.has(g.id))
    .sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : a.id < b.id ? -1 : 1));
  for (const group of children) {
    seen.add(group.id);
    result.push(group, ...groupsInOrder(model, group.id, seen));
  }
  return result;
}

/** Paging over items in structure order: the cursor holds the last item's place in that order and its id. */
function pageInOrder<T extends { id: string }>(items: readonly T[], options: { page?: string | undefined; limit?: number | undefined }) {
  const indexed = items.map((item, index) => ({ item, index }));
  const page = paginateRows(
    indexed,
    [
      { direction: "asc", value: (r) => r.index },
      { direction: "asc", value: (r) => r.item.id },
    ],
    options,
  );
  return { ...page, rows: page.rows.map((r) => r.item) };
}

export const siteStructureRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  async function loadForRead(actor: Actor, params: { organizationId: string; siteId: string }, shareKey?: string) {
    const loaded = await requireSiteWithModel(db, actor, params.organizationId, params.siteId);
    const key = await verifiedShareKey(db, loaded.site.id, shareKey);
    return { ...loaded, ctx: structureContextOf(loaded.access, loaded.model, await loadStructureSpaces(db, loaded.model), urls, key) };
  }

  async function loadForWrite(actor: Actor, params: { organizationId: string; siteId: string }) {
    const loaded = await requireSiteWithModel(db, actor, params.organizationId, params.siteId);
    allow(loaded.permissions.edit, EDIT_MESSAGE);
    return loaded;
  }

  /** The model again after a write, presented for the caller. */
  async function reloaded(loaded: LoadedSite): Promise<StructureContext> {
    const model = await loadSiteModel(db, loaded.site);
    return structureContextOf(loaded.access, model, await loadStructureSpaces(db, model), urls);
  }

  const siteSpaceOf = (model: SiteModel, id: string) => {
    const siteSpace = model.siteSpaces.find((s) => s.id === id && !s.hidden);
    if (!siteSpace) throw missing(`No site space with id "${id}" in this site.`);
    return siteSpace;
  };
  const sectionOf = (model: SiteModel, id: string) => {
    const section = model.sections.find((s) => s.id === id);
    if (!section) throw missing(`No section with id "${id}" in this site.`);
    return section;
  };
  const groupOf = (model: SiteModel, id: string) => {
    const group = model.groups.find((g) => g.id === id);
    if (!group) throw missing(`No section group with id "${id}" in this site.`);
    return group;
  };

  async function spaceForSite(loaded: LoadedSite, spaceId: string, field: string) {
    const spaces = await loadSpacesForSite(db, loaded.access, [spaceId]);
    const [checked] = checkSpacesForSite(spaces, [spaceId], () => field);
    if (!checked) throw new Error("checkSpacesForSite returned nothing for one space");
    return checked.space;
  }

  /**
   * A site space's condition, and the section it sits in (whose condition also applies), decide who
   * reads its space: changing either needs the read level on that space.
   */
  function refuseExposingSiteSpace(loaded: LoadedSite, siteSpaceId: string, action: string) {
    refuseExposure(
      loaded.unreadable.filter((id) => id === siteSpaceId),
      action,
    );
  }

  /** A site space moved into another section falls under that section's condition instead of its own. */
  function refuseMovingToAnotherSection(loaded: LoadedSite & { model: SiteModel }, item: PositionPointer, position: MovePosition) {
    if (item.type !== "site-space") return;
    const current = siteSpaceOf(loaded.model, item.id).sectionId;
    if (planPosition(loaded.model, item, position).parentId !== current) {
      refuseExposingSiteSpace(loaded, item.id, "move this site space to another section");
    }
  }

  // Structure.

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId/structure",
    {
      schema: {
        tags,
        operationId: "getSiteStructure",
        description:
          "The site as a reader sees it: sections and groups (`type: sections`), or site spaces when the site has no sections. Site spaces of deleted spaces, and sections left without any, are left out.",
        params: SiteParams,
        querystring: Type.Object({ shareKey: ListWithShareKeyQuery.properties.shareKey }),
        response: { 200: SiteStructureSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { ctx } = await loadForRead(actorOf(request), request.params, request.query.shareKey);
      return presentStructure(ctx);
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/sites/:siteId/structure/sort",
    {
      schema: {
        tags,
        operationId: "sortSiteStructure",
        description:
          "Moves a site space, section or group next to `position.before` or `position.after` (both: between them, which must be neighbours; neither: to the end of its current place). A site space goes next to site spaces (possibly of another section), a section or group next to sections and groups (possibly in another group). 400, with nothing moved, for an unknown or foreign pointer, a pointer of the wrong type, the item itself, or a group that would end up inside itself. Moving a site space to another section needs the read level on its space.",
        params: SiteParams,
        body: SortStructureBody,
        response: { 200: Type.Union([SiteSpaceSchema, SiteSectionSchema, SiteSectionGroupSchema]), ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      const { item, position } = request.body;
      requireItem(loaded.model, item);
      refuseMovingToAnotherSection(loaded, item, position);
      await inSiteTransaction(db, loaded.site, (trx, model) => moveItem(trx, { model, item, position }));
      return presentItem(await reloaded(loaded), item);
    },
  );

  function requireItem(model: SiteModel, item: { type: StructureItemType; id: string }) {
    if (item.type === "site-space") siteSpaceOf(model, item.id);
    else if (item.type === "site-section") sectionOf(model, item.id);
    else groupOf(model, item.id);
  }

  function presentItem(ctx: StructureContext, item: { type: StructureItemType; id: string }) {
    if (item.type === "site-space") return presentSiteSpace(ctx, siteSpaceOf(ctx.model, item.id));
    if (item.type === "site-section") return presentSection(ctx, sectionOf(ctx.model, item.id));
    return presentGroup(ctx, groupOf(ctx.model, item.id));
  }

  // Site spaces.

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId/site-spaces",
    {
      schema: {
        tags,
        operationId: "listSiteSpaces",
        description:
          "Every site space of the site in reading order (sections in order, then their site spaces). `default=true`: only the default one of each section (or of the root); `false`: only the others.",
        params: SiteParams,
        querystring: ListSiteSpacesQuery,
        response: { 200: ListOf(SiteSpaceSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { ctx, model } = await loadForRead(actorOf(request), request.params, request.query.shareKey);
      let items = orderedSiteSpaces(model);
      if (request.query.default !== undefined) {
        const wanted = request.query.default;
        items = items.filter((s) => (defaultSiteSpaceId(model, s.sectionId) === s.id) === wanted);
      }
      const page = pageInOrder(items, request.query);
      return listOf(
        page,
        page.rows.map((s) => presentSiteSpace(ctx, s)),
      );
    },
  );

  app.post(
    "/v1/orgs/:organizationId/sites/:siteId/site-spaces",
    {
      schema: {
        tags,
        operationId: "addSpaceToSite",
        description:
          "Adds a space to the site: into `sectionId`, else the home section of a site with sections, else the root. The caller needs the edit level on the space. Its path comes from the space's title.",
        params: SiteParams,
        body: AddSiteSpaceBody,
        response: { 201: SiteSpaceSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      const space = await spaceForSite(loaded, request.body.spaceId, "body.spaceId");
      const id = await inSiteTransaction(db, loaded.site, (trx, model) =>
        addSiteSpace(trx, { model, space, sectionId: request.body.sectionId }),
      );
      const ctx = await reloaded(loaded);
      reply.code(201).header("location", urls.api(`/orgs/${loaded.site.orgId}/sites/${loaded.site.id}/site-spaces/${id}`));
      return presentSiteSpace(ctx, siteSpaceOf(ctx.model, id));
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId",
    {
      schema: {
        tags,
        operationId: "updateSiteSpaceById",
        description:
          "Changes a site space's path (unique in its section; the old one keeps working as a redirect), condition (checked when written; null removes it) or space (the caller needs the edit level on it). Changing or removing an existing condition needs the read level on the site space's space.",
        params: SiteSpaceParams,
        body: UpdateSiteSpaceBody,
        response: { 200: SiteSpaceSchema, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      const siteSpace = siteSpaceOf(loaded.model, request.params.siteSpaceId);
      const { spaceId, ...body } = request.body;
      // Adding a condition where there was none only narrows who reads the space.
      if (body.condition !== undefined && siteSpace.condition !== null && body.condition !== siteSpace.condition) {
        refuseExposingSiteSpace(loaded, siteSpace.id, "change the condition of this site space");
      }
      const space = spaceId === undefined ? undefined : await spaceForSite(loaded, spaceId, "body.spaceId");
      await inSiteTransaction(db, loaded.site, (trx, model) =>
        updateSiteSpace(trx, { model, siteSpace: siteSpaceOf(model, siteSpace.id), body, space }),
      );
      const ctx = await reloaded(loaded);
      return presentSiteSpace(ctx, siteSpaceOf(ctx.model, siteSpace.id));
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId",
    {
      schema: {
        tags,
        operationId: "deleteSiteSpaceById",
        description:
          "Takes a site space off the site (unpublished there); the space itself is kept. A section left without site spaces stays, hidden from readers. 204 also when it did not exist.",
        params: SiteSpaceParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      await deleteSiteSpaceRow(db, loaded.site.id, request.params.siteSpaceId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/move",
    {
      schema: {
        tags,
        operationId: "moveSiteSpace",
        deprecated: true,
        description: `${SORT_NOTE} Moves a site space next to another site space (into another section: needs the read level on its space).`,
        params: SiteSpaceParams,
        body: MoveSiteSpaceBody,
        response: { 200: SiteSpaceSchema, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      const item: PositionPointer = { type: "site-space", id: siteSpaceOf(loaded.model, request.params.siteSpaceId).id };
      const { before, after } = request.body.position ?? {};
      const position = {
        before: before && { type: before.type, id: before.siteSpace },
        after: after && { type: after.type, id: after.siteSpace },
      };
      refuseMovingToAnotherSection(loaded, item, position);
      await inSiteTransaction(db, loaded.site, (trx, model) => moveItem(trx, { model, item, position }));
      const ctx = await reloaded(loaded);
      return presentSiteSpace(ctx, siteSpaceOf(ctx.model, item.id));
    },
  );

  // Sections.

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId/sections",
    {
      schema: {
        tags,
        operationId: "listSiteSections",
        description: "Every section of the site in reading order (through groups), with its site spaces.",
        params: SiteParams,
        querystring: ListWithShareKeyQuery,
        response: { 200: ListOf(SiteSectionSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { ctx, model } = await loadForRead(actorOf(request), request.params, request.query.shareKey);
      const page = pageInOrder(sectionsInOrder(model), request.query);
      return listOf(
        page,
        page.rows.map((s) => presentSection(ctx, s)),
      );
    },
  );

  app.post(
    "/v1/orgs/:organizationId/sites/:siteId/sections",
    {
      schema: {
        tags,
        operationId: "addSectionToSite",
        description:
          "Adds a section at the end of the site's root, showing `spaceId` (the caller needs the edit level on it). Title: `title`, else the space's. On a site whose site spaces are at its root, they first move into a home section titled like the site (their URLs do not change).",
        params: SiteParams,
        body: AddSectionBody,
        response: { 201: SiteSectionSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      const space = await spaceForSite(loaded, request.body.spaceId, "body.spaceId");
      const id = await inSiteTransaction(db, loaded.site, (trx, model) =>
        addSection(trx, { model, space, title: request.body.title, icon: request.body.icon }),
      );
      const ctx = await reloaded(loaded);
      reply.code(201).header("location", urls.api(`/orgs/${loaded.site.orgId}/sites/${loaded.site.id}/sections/${id}`));
      return presentSection(ctx, sectionOf(ctx.model, id));
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId",
    {
      schema: {
        tags,
        operationId: "updateSiteSectionById",
        description:
          "Changes a section. `path` is unique in the site (the old one keeps working as a redirect); `defaultSiteSpace` must be one of its site spaces; `condition` is checked when written (null removes it); changing or removing an existing one needs the read level on every space of the section.",
        params: SiteSectionParams,
        body: UpdateSectionBody,
        response: { 200: SiteSectionSchema, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      const section = sectionOf(loaded.model, request.params.siteSectionId);
      const { condition } = request.body;
      if (condition !== undefined && section.condition !== null && condition !== section.condition) {
        const inSection = new Set(loaded.model.siteSpaces.filter((s) => s.sectionId === section.id).map((s) => s.id));
        refuseExposure(
          loaded.unreadable.filter((id) => inSection.has(id)),
          "change the condition of this section",
        );
      }
      await inSiteTransaction(db, loaded.site, (trx, model) =>
        updateSection(trx, { model, section: sectionOf(model, section.id), body: request.body }),
      );
      const ctx = await reloaded(loaded);
      return presentSection(ctx, sectionOf(ctx.model, section.id));
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId",
    {
      schema: {
        tags,
        operationId: "deleteSiteSectionById",
        description: "Takes a section and its site spaces off the site; the spaces are kept. 204 also when it did not exist.",
        params: SiteSectionParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      await deleteSectionRow(db, loaded.site.id, request.params.siteSectionId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId/move",
    {
      schema: {
        tags,
        operationId: "moveSiteSection",
        deprecated: true,
        description: `${SORT_NOTE} Moves a section next to another section.`,
        params: SiteSectionParams,
        body: MoveSiteSectionBody,
        response: { 200: SiteSectionSchema, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      const item: PositionPointer = { type: "site-section", id: sectionOf(loaded.model, request.params.siteSectionId).id };
      const { before, after } = request.body.position ?? {};
      const position = {
        before: before && { type: before.type, id: before.siteSection },
        after: after && { type: after.type, id: after.siteSection },
      };
      await inSiteTransaction(db, loaded.site, (trx, model) => moveItem(trx, { model, item, position }));
      const ctx = await reloaded(loaded);
      return presentSection(ctx, sectionOf(ctx.model, item.id));
    },
  );

  // Section groups.

  app.get(
    "/v1/orgs/:organizationId/sites/:siteId/section-groups",
    {
      schema: {
        tags,
        operationId: "listSiteSectionGroups",
        description: "Every section group of the site, in reading order (a group before the groups nested in it), with its children.",
        params: SiteParams,
        querystring: ListWithShareKeyQuery,
        response: { 200: ListOf(SiteSectionGroupSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { ctx, model } = await loadForRead(actorOf(request), request.params, request.query.shareKey);
      const page = pageInOrder(groupsInOrder(model), request.query);
      return listOf(
        page,
        page.rows.map((g) => presentGroup(ctx, g)),
      );
    },
  );

  app.post(
    "/v1/orgs/:organizationId/sites/:siteId/section-groups",
    {
      schema: {
        tags,
        operationId: "addSectionGroupToSite",
        description: "Adds a group at the end of `parent` (a group; absent: the site's root) and moves `sections` into it, in that order.",
        params: SiteParams,
        body: AddSectionGroupBody,
        response: { 201: SiteSectionGroupSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      const id = await inSiteTransaction(db, loaded.site, (trx, model) => addGroup(trx, { model, ...request.body }));
      const ctx = await reloaded(loaded);
      reply.code(201).header("location", urls.api(`/orgs/${loaded.site.orgId}/sites/${loaded.site.id}/section-groups/${id}`));
      return presentGroup(ctx, groupOf(ctx.model, id));
    },
  );

  app.patch(
    "/v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId",
    {
      schema: {
        tags,
        operationId: "updateSiteSectionGroupById",
        params: SiteSectionGroupParams,
        body: UpdateSectionGroupBody,
        response: { 200: SiteSectionGroupSchema, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      const group = groupOf(loaded.model, request.params.siteSectionGroupId);
      await updateGroupRow(db, group.id, {
        ...(request.body.title !== undefined ? { title: request.body.title } : {}),
        ...(request.body.icon !== undefined ? { icon: request.body.icon } : {}),
      });
      const ctx = await reloaded(loaded);
      return presentGroup(ctx, groupOf(ctx.model, group.id));
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId",
    {
      schema: {
        tags,
        operationId: "deleteSiteSectionGroupById",
        description: "Deletes a group; its sections and groups take its place. 204 also when it did not exist.",
        params: SiteSectionGroupParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      await inSiteTransaction(db, loaded.site, (trx, model) => deleteGroup(trx, { model, groupId: request.params.siteSectionGroupId }));
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/sections",
    {
      schema: {
        tags,
        operationId: "addSectionToGroup",
        description: "Moves a section of the site to the end of the group.",
        params: SiteSectionGroupParams,
        body: AddSectionToGroupBody,
        response: { 201: SiteSectionGroupSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      const group = groupOf(loaded.model, request.params.siteSectionGroupId);
      await inSiteTransaction(db, loaded.site, (trx, model) =>
        addSectionToGroup(trx, { model, groupId: group.id, sectionId: request.body.sectionId }),
      );
      const ctx = await reloaded(loaded);
      reply.code(201).header("location", urls.api(`/orgs/${loaded.site.orgId}/sites/${loaded.site.id}/section-groups/${group.id}`));
      return presentGroup(ctx, groupOf(ctx.model, group.id));
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/sections/:siteSectionId",
    {
      schema: {
        tags,
        operationId: "removeSectionFromGroup",
        description: "Takes a section out of the group; it goes right after the group. 204 also when it was not in the group.",
        params: GroupSectionParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      await inSiteTransaction(db, loaded.site, (trx, model) =>
        removeSectionFromGroup(trx, {
          model,
          groupId: request.params.siteSectionGroupId,
          sectionId: request.params.siteSectionId,
        }),
      );
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/move",
    {
      schema: {
        tags,
        operationId: "moveSiteSectionGroup",
        deprecated: true,
        description: `${SORT_NOTE} Moves a group next to a section or another group (possibly into another group, never into itself).`,
        params: SiteSectionGroupParams,
        body: MoveSiteSectionGroupBody,
        response: { 200: SiteSectionGroupSchema, ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await loadForWrite(actorOf(request), request.params);
      const item: PositionPointer = { type: "site-section-group", id: groupOf(loaded.model, request.params.siteSectionGroupId).id };
      await inSiteTransaction(db, loaded.site, (trx, model) => moveItem(trx, { model, item, position: request.body.position }));
      const ctx = await reloaded(loaded);
      return presentGroup(ctx, groupOf(ctx.model, item.id));
    },
  );
};
