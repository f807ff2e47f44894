/**
 * Writes to a site's structure. Each function checks everything against the loaded model first
 * (400 naming the field, nothing written), then writes; the caller passes its transaction.
 * A path change (or a site space moved to another section) records the old path as a redirect.
 */
import type { Executor } from "../../db/database.js";
import type { SiteSectionRow, SpaceRow } from "../../db/schema.js";
import { invalid, missing } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { nowIso } from "../../lib/time.js";
import { keysBetween } from "../content-tree/positions.model.js";
import { recordRedirect, updateSiteRow } from "./sites.queries.js";
import {
  checkCondition,
  checkPath,
  childrenOf,
  defaultSectionId,
  fullSiteSpacePath,
  hasSections,
  keyAfter,
  type ModelSiteSpace,
  type Positioned,
  type PositionPointer,
  planPosition,
  type SiteModel,
  sectionPaths,
  sectionsInOrder,
  siteSpacePaths,
  siteSpaceRow,
  siteSpacesOf,
  slugify,
  uniquePath,
  visibleSiteSpacesOf,
} from "./structure.model.js";
import {
  deleteGroupRow,
  insertGroup,
  insertSection,
  insertSiteSpace,
  moveUnsectionedSiteSpaces,
  updateGroupRow,
  updateSectionRow,
  updateSiteSpaceRow,
} from "./structure.queries.js";

function sectionOf(model: SiteModel, id: string, field: string): SiteSectionRow {
  const section = model.sections.find((s) => s.id === id);
  if (!section) throw invalid(`${field} names section "${id}", which is not a section of this site.`);
  return section;
}

function where(sectionId: string | null): string {
  return sectionId ? `section "${sectionId}"` : "the root of this site";
}

/** A title made acceptable for a section (2 to 128 characters). */
function sectionTitle(title: string): string {
  const chars = Array.from(title.trim());
  if (chars.length < 2) return "Section";
  return chars.slice(0, 128).join("");
}

// Site spaces.

/**
 * Adds a space to a site: into the given section, else the home section of a site with sections,
 * else the root. Its path comes from the space's title, made unique among its siblings.
 */
export async function addSiteSpace(trx: Executor, input: { model: SiteModel; space: SpaceRow; sectionId?: string | undefined }) {
  const { model, space } = input;
  let sectionId: string | null = null;
  if (input.sectionId !== undefined) sectionId = sectionOf(model, input.sectionId, "body.sectionId").id;
  else if (hasSections(model)) sectionId = defaultSectionId(model) ?? sectionsInOrder(model)[0]?.id ?? null;
  const now = nowIso();
  const id = newId();
  await insertSiteSpace(trx, {
    customization: null,
    id,
    siteId: model.site.id,
    sectionId,
    spaceId: space.id,
    path: uniquePath(slugify(space.title), siteSpacePaths(model, sectionId)),
    condition: null,
    position: keyAfter(siteSpacesOf(model, sectionId)),
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

export async function updateSiteSpace(
  trx: Executor,
  input: {
    model: SiteModel;
    siteSpace: ModelSiteSpace;
    body: { path?: string | undefined; condition?: string | null | undefined };
    space?: SpaceRow | undefined;
  },
): Promise<void> {
  const { model, siteSpace, body } = input;
  const changes: Parameters<typeof updateSiteSpaceRow>[2] = {};
  if (body.path !== undefined && body.path !== siteSpace.path) {
    checkPath(body.path, "body.path");
    if (siteSpacePaths(model, siteSpace.sectionId, siteSpace.id).has(body.path)) {
      throw invalid(`body.path "${body.path}" is already used by another site space of ${where(siteSpace.sectionId)}.`);
    }
    changes.path = body.path;
  }
  if (body.condition !== undefined) changes.condition = checkCondition(body.condition, "body.condition");
  if (input.space) changes.spaceId = input.space.id;
  if (Object.keys(changes).length === 0) return;
  await updateSiteSpaceRow(trx, siteSpace.id, changes);
  if (changes.path) {
    await recordRedirect(trx, {
      siteId: model.site.id,
      fromPath: fullSiteSpacePath(model, siteSpace),
      targetType: "site-space",
      targetId: siteSpace.id,
    });
  }
}

// Sections.

/**
 * Adds a section showing `space`. The first section of a site whose site spaces are at its root
 * gathers them first into a home section (titled like the site): a site is either flat or made of
 * sections, and their URLs do not change (the home section is served at the root).
 */
export async function addSection(
  trx: Executor,
  input: { model: SiteModel; space: SpaceRow; title?: string | null | undefined; icon?: string | null | undefined },
): Promise<string> {
  const { model, space } = input;
  const now = nowIso();
  const paths = sectionPaths(model);
  const siblings: { id: string; position: string }[] = childrenOf(model, null);
  const root = siteSpacesOf(model, null);
  if (!hasSections(model) && root.length > 0) {
    const home: SiteSectionRow = {
      id: newId(),
      siteId: model.site.id,
      groupId: null,
      title: sectionTitle(model.site.title),
      description: null,
      path: uniquePath(slugify(model.site.title), paths),
      icon: null,
      condition: null,
      defaultSiteSpaceId: model.site.defaultSiteSpaceId,
      position: keyAfter(siblings),
      createdAt: now,
    };
    await insertSection(trx, home);
    paths.add(home.path);
    siblings.push(home);
    await moveUnsectionedSiteSpaces(trx, model.site.id, home.id);
    await updateSiteRow(trx, model.site.id, { defaultSiteSectionId: home.id, defaultSiteSpaceId: null });
  }
  const title = sectionTitle(input.title ?? space.title);
  const section: SiteSectionRow = {
    id: newId(),
    siteId: model.site.id,
    groupId: null,
    title,
    description: null,
    path: uniquePath(slugify(title), paths),
    icon: input.icon ?? null,
    condition: null,
    defaultSiteSpaceId: null,
    position: keyAfter(siblings),
    createdAt: now,
  };
  await insertSection(trx, section);
  await insertSiteSpace(trx, {
    customization: null,
    id: newId(),
    siteId: model.site.id,
    sectionId: section.id,
    spaceId: space.id,
    path: slugify(space.title),
    condition: null,
    position: keyAfter([]),
    createdAt: now,
    updatedAt: now,
  });
  return section.id;
}

export async function updateSection(
  trx: Executor,
  input: {
    model: SiteModel;
    section: SiteSectionRow;
    body: {
      title?: string | undefined;
      path?: string | undefined;
      defaultSiteSpace?: string | undefined;
      condition?: string | null | undefined;
      icon?: string | null | undefined;
      description?: string | null | undefined;
    };
  },
): Promise<void> {
  const { model, section, body } = input;
  const changes: Parameters<typeof updateSectionRow>[2] = {};
  if (body.title !== undefined) changes.title = body.title;
  if (body.path !== undefined && body.path !== section.path) {
    checkPath(body.path, "body.path");
    if (sectionPaths(model, section.id).has(body.path)) {
      throw invalid(`body.path "${body.path}" is already used by another section of this site.`);
    }
    changes.path = body.path;
  }
  if (body.defaultSiteSpace !== undefined) {
    if (!visibleSiteSpacesOf(model, section.id).some((s) => s.id === body.defaultSiteSpace)) {
      throw invalid(`body.defaultSiteSpace names site space "${body.defaultSiteSpace}", which is not in section "${section.id}".`);
    }
    changes.defaultSiteSpaceId = body.defaultSiteSpace;
  }
  if (body.condition !== undefined) changes.condition = checkCondition(body.condition, "body.condition");
  if (body.icon !== undefined) changes.icon = body.icon;
  if (body.description !== undefined) changes.description = body.description;
  await updateSectionRow(trx, section.id, changes);
  if (changes.path) {
    await recordRedirect(trx, { siteId: model.site.id, fromPath: section.path, targetType: "site-section", targetId: section.id });
  }
}

// Section groups.

export async function addGroup(
  trx: Executor,
  input: {
    model: SiteModel;
    title: string;
    icon?: string | null | undefined;
    sections?: string[] | undefined;
    parent?: string | undefined;
  },
): Promise<string> {
  const { model } = input;
  if (input.parent !== undefined && !model.groups.some((g) => g.id === input.parent)) {
    throw invalid(`body.parent names section group "${input.parent}", which is not a section group of this site.`);
  }
  const sectionIds = [...new Set(input.sections ?? [])];
  for (const [index, id] of sectionIds.entries()) sectionOf(model, id, `body.sections[${index}]`);
  const parentId = input.parent ?? null;
  const id = newId();
  await insertGroup(trx, {
    id,
    siteId: model.site.id,
    parentId,
    title: input.title,
    icon: input.icon ?? null,
    position: keyAfter(childrenOf(model, parentId).filter((c) => !(c.type === "site-section" && sectionIds.includes(c.id)))),
    createdAt: nowIso(),
  });
  const placed: { id: string; position: string }[] = [];
  for (const sectionId of sectionIds) {
    const position = keyAfter(placed);
    placed.push({ id: sectionId, position });
    await updateSectionRow(trx, sectionId, { groupId: id, position });
  }
  return id;
}

/** Deletes a group; its sections and groups take its place in its parent, in their order. */
export async function deleteGroup(trx: Executor, input: { model: SiteModel; groupId: string }): Promise<void> {
  const { model, groupId } = input;
  const group = model.groups.find((g) => g.id === groupId);
  if (!group) return;
  const parentId = group.parentId;
  const siblings = childrenOf(model, parentId);
  const at = siblings.findIndex((s) => s.type === "site-section-group" && s.id === groupId);
  const children = childrenOf(model, groupId);
  const order: Positioned[] = [...siblings.slice(0, at), ...children, ...siblings.slice(at + 1)];
  await writeOrder(trx, order, parentId);
  await deleteGroupRow(trx, model.site.id, groupId);
}

/** Puts a section at the end of a group (nothing when it is there already). */
export async function addSectionToGroup(trx: Executor, input: { model: SiteModel; groupId: string; sectionId: string }): Promise<void> {
  const { model, groupId } = input;
  const section = sectionOf(model, input.sectionId, "body.sectionId");
  if (section.groupId === groupId) return;
  await updateSectionRow(trx, section.id, { groupId, position: keyAfter(childrenOf(model, groupId)) });
}

/** Takes a section out of a group, right after the group in the group's parent (nothing when it is not in it). */
export async function removeSectionFromGroup(trx: Executor, input: { model: SiteModel; groupId: string; sectionId: string }) {
  const { model, groupId, sectionId } = input;
  const section = model.sections.find((s) => s.id === sectionId);
  const group = model.groups.find((g) => g.id === groupId);
  if (!section || !group || section.groupId !== groupId) return false;
  const siblings = childrenOf(model, group.parentId);
  const at = siblings.findIndex((s) => s.type === "site-section-group" && s.id === groupId);
  const order: Positioned[] = [
    ...siblings.slice(0, at + 1),
    { type: "site-section", id: section.id, position: "" },
    ...siblings.slice(at + 1),
  ];
  const prev = siblings[at]?.position ?? null;
  const next = siblings[at + 1]?.position ?? null;
  if (prev !== null && next !== null && prev >= next) await writeOrder(trx, order, group.parentId);
  else await updateSectionRow(trx, section.id, { groupId: group.parentId, position: keyAfter(siblings.slice(0, at + 1)) });
  return true;
}

/** Writes fresh keys for sections and groups in this order under `parentId`. */
async function writeOrder(trx: Executor, order: readonly Positioned[], parentId: string | null): Promise<void> {
  const keys = keysBetween(null, null, order.length);
  for (const [i, item] of order.entries()) {
    const position = keys[i] as string;
    if (item.type === "site-section") await updateSectionRow(trx, item.id, { groupId: parentId, position });
    else await updateGroupRow(trx, item.id, { parentId, position });
  }
}

// Moves.

/**
 * Moves a site space, section or group next to another item (see planPosition for what is
 * refused). A site space moved to another section keeps its path, which must be free there.
 */
export async function moveItem(
  trx: Executor,
  input: {
    model: SiteModel;
    item: PositionPointer;
    position?: { before?: PositionPointer | undefined; after?: PositionPointer | undefined } | undefined;
  },
): Promise<void> {
  const { model, item } = input;
  const found =
    item.type === "site-space"
      ? model.siteSpaces.some((s) => s.id === item.id && !s.hidden)
      : item.type === "site-section"
        ? model.sections.some((s) => s.id === item.id)
        : model.groups.some((g) => g.id === item.id);
  if (!found) throw missing(`No ${item.type} with id "${item.id}" in this site.`);
  const plan = planPosition(model, item, input.position);
  if (item.type === "site-space") {
    const siteSpace = siteSpaceRow(model, item.id);
    const moving = siteSpace.sectionId !== plan.parentId;
    if (moving && siteSpacePaths(model, plan.parentId).has(siteSpace.path)) {
      throw invalid(
        `Invalid position: ${where(plan.parentId)} already has a site space with path "${siteSpace.path}"; change the path of site space "${siteSpace.id}" first.`,
      );
    }
    for (const p of plan.positions) {
      await updateSiteSpaceRow(trx, p.id, p.id === item.id ? { sectionId: plan.parentId, position: p.position } : { position: p.position });
    }
    if (moving) {
      await recordRedirect(trx, {
        siteId: model.site.id,
        fromPath: fullSiteSpacePath(model, siteSpace),
        targetType: "site-space",
        targetId: siteSpace.id,
      });
    }
    return;
  }
  for (const p of plan.positions) {
    const parent = p.id === item.id && p.type === item.type ? { parent: plan.parentId } : {};
    if (p.type === "site-section") {
      await updateSectionRow(trx, p.id, { position: p.position, ...("parent" in parent ? { groupId: parent.parent } : {}) });
    } else {
      await updateGroupRow(trx, p.id, { position: p.position, ...("parent" in parent ? { parentId: parent.parent } : {}) });
    }
  }
}
