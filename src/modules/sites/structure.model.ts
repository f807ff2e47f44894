/**
 * The structure of one site in memory, and the pure rules over it: order, defaults, paths,
 * published URLs and where a moved item lands. Everything here is decided without the database, so
 * a bad request is refused before anything is written.
 *
 * A site is either flat (site spaces at its root, no sections) or made of sections (every site space
 * in a section), which groups may gather; groups nest. Siblings are ordered by a fractional key:
 * site spaces within their section (or the root), sections and groups within their group (or the
 * root). The home section and each section's default site space are stored, and fall back to the
 * first visible one in order when unset or gone.
 */
import type { SiteRow, SiteSectionGroupRow, SiteSectionRow, SiteSpaceRow, SpaceRow } from "../../db/schema.js";
import { ExpressionError, parseExpression } from "../../expr/index.js";
import { invalid } from "../../lib/errors.js";
import { keyBetween, keysBetween } from "../content-tree/positions.model.js";

export interface ModelSiteSpace extends SiteSpaceRow {
  space: SpaceRow;
  /** The space is deleted (restorable) or no longer in the site's organization. */
  hidden: boolean;
}

export interface SiteModel {
  site: SiteRow;
  groups: SiteSectionGroupRow[];
  sections: SiteSectionRow[];
  siteSpaces: ModelSiteSpace[];
}

export type StructureItemType = "site-space" | "site-section" | "site-section-group";

/** An item among its siblings, for ordering. */
export interface Positioned {
  type: StructureItemType;
  id: string;
  position: string;
}

function byPosition<T extends { position: string; id: string }>(a: T, b: T): number {
  return a.position < b.position ? -1 : a.position > b.position ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Rows the model is known to hold (a missing one is a bug, not a bad request). */
export function sectionRow(model: SiteModel, id: string): SiteSectionRow {
  const row = model.sections.find((s) => s.id === id);
  if (!row) throw new Error(`site model: no section ${id}`);
  return row;
}

export function groupRow(model: SiteModel, id: string): SiteSectionGroupRow {
  const row = model.groups.find((g) => g.id === id);
  if (!row) throw new Error(`site model: no section group ${id}`);
  return row;
}

export function siteSpaceRow(model: SiteModel, id: string): ModelSiteSpace {
  const row = model.siteSpaces.find((s) => s.id === id);
  if (!row) throw new Error(`site model: no site space ${id}`);
  return row;
}

export function hasSections(model: SiteModel): boolean {
  return model.sections.length > 0;
}

/** Sections and groups directly under a group (or the root), in order. */
export function childrenOf(model: SiteModel, groupId: string | null): Positioned[] {
  return [
    ...model.sections.filter((s) => s.groupId === groupId).map((s) => ({ type: "site-section" as const, id: s.id, position: s.position })),
    ...model.groups
      .filter((g) => g.parentId === groupId)
      .map((g) => ({ type: "site-section-group" as const, id: g.id, position: g.position })),
  ].sort(byPosition);
}

/** Site spaces of a section (or of the root), in order, hidden ones included. */
export function siteSpacesOf(model: SiteModel, sectionId: string | null): ModelSiteSpace[] {
  return model.siteSpaces.filter((s) => s.sectionId === sectionId).sort(byPosition);
}

export function visibleSiteSpacesOf(model: SiteModel, sectionId: string | null): ModelSiteSpace[] {
  return siteSpacesOf(model, sectionId).filter((s) => !s.hidden);
}

/** Every section in reading order (depth first through groups). */
export function sectionsInOrder(model: SiteModel, groupId: string | null = null, seen = new Set<string>()): SiteSectionRow[] {
  const result: SiteSectionRow[] = [];
  for (const child of childrenOf(model, groupId)) {
    if (child.type === "site-section") {
      const section = model.sections.find((s) => s.id === child.id);
      if (section) result.push(section);
    } else if (!seen.has(child.id)) {
      seen.add(child.id);
      result.push(...sectionsInOrder(model, child.id, seen));
    }
  }
  return result;
}

/** A section shows when at least one of its site spaces does. */
export function sectionVisible(model: SiteModel, sectionId: string): boolean {
  return model.siteSpaces.some((s) => s.sectionId === sectionId && !s.hidden);
}

/** The home section: the stored one while it shows, else the first that shows. */
export function defaultSectionId(model: SiteModel): string | null {
  const stored = model.site.defaultSiteSectionId;
  if (stored && model.sections.some((s) => s.id === stored) && sectionVisible(model, stored)) return stored;
  return sectionsInOrder(model).find((s) => sectionVisible(model, s.id))?.id ?? null;
}

/** The default site space of a section (or of the root): the stored one while it shows, else the first. */
export function defaultSiteSpaceId(model: SiteModel, sectionId: string | null): string | null {
  const stored = sectionId === null ? model.site.defaultSiteSpaceId : model.sections.find((s) => s.id === sectionId)?.defaultSiteSpaceId;
  const visible = visibleSiteSpacesOf(model, sectionId);
  if (stored && visible.some((s) => s.id === stored)) return stored;
  return visible[0]?.id ?? null;
}

/**
 * The URL segments of a site space from its site's root, as published URLs and the published site
 * build them: its section's path unless it is the home section, then its own path unless it is its
 * section's default.
 */
export function siteSpaceSegments(model: SiteModel, siteSpace: SiteSpaceRow): string[] {
  const home = defaultSectionId(model);
  const section =
    siteSpace.sectionId !== null && siteSpace.sectionId !== home ? model.sections.find((s) => s.id === siteSpace.sectionId) : undefined;
  return [...(section ? [section.path] : []), ...(siteSpace.id !== defaultSiteSpaceId(model, siteSpace.sectionId) ? [siteSpace.path] : [])];
}

// Paths.

const PATH_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** 400 unless `path` is one URL segment of the accepted form. */
export function checkPath(path: string, field: string): void {
  if (!PATH_PATTERN.test(path)) {
    throw invalid(
      `${field} "${path}" is not a valid path: use letters, digits, '.', '_' and '-', starting and ending with a letter or digit.`,
    );
  }
}

/** A path made from a title: lower-case, words joined by hyphens, at most 100 characters. */
export function slugify(title: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 90)
    .replace(/-+$/g, "");
  return slug || "page";
}

/** `base`, or `base-2`, `base-3`... whichever is not in `taken`. */
export function uniquePath(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Paths used by the site spaces of a section (or of the root), hidden ones included. */
export function siteSpacePaths(model: SiteModel, sectionId: string | null, exceptId?: string): Set<string> {
  return new Set(model.siteSpaces.filter((s) => s.sectionId === sectionId && s.id !== exceptId).map((s) => s.path));
}

export function sectionPaths(model: SiteModel, exceptId?: string): Set<string> {
  return new Set(model.sections.filter((s) => s.id !== exceptId).map((s) => s.path));
}

/** The path of a site space from the site's root (its section's path first), as redirects record it. */
export function fullSiteSpacePath(model: SiteModel, siteSpace: { sectionId: string | null; path: string }): string {
  if (siteSpace.sectionId === null) return siteSpace.path;
  const section = model.sections.find((s) => s.id === siteSpace.sectionId);
  return section ? `${section.path}/${siteSpace.path}` : siteSpace.path;
}

// Positions.

export interface PositionPointer {
  type: StructureItemType;
  id: string;
}

export interface PlannedMove {
  /** The new parent: a section id for a site space (null: the root), a group id for a section or group. */
  parentId: string | null;
  /** Keys to write (the moved item's, or its new siblings' when they had to be renumbered). */
  positions: Positioned[];
}

function describe(pointer: PositionPointer): string {
  return `${pointer.type} "${pointer.id}"`;
}

/** The group a section or group is in, and its parent chain. */
function parentOf(model: SiteModel, pointer: PositionPointer): string | null {
  if (pointer.type === "site-section") return model.sections.find((s) => s.id === pointer.id)?.groupId ?? null;
  return model.groups.find((g) => g.id === pointer.id)?.parentId ?? null;
}

function exists(model: SiteModel, pointer: PositionPointer): boolean {
  if (pointer.type === "site-space") return model.siteSpaces.some((s) => s.id === pointer.id && !s.hidden);
  if (pointer.type === "site-section") return model.sections.some((s) => s.id === pointer.id);
  return model.groups.some((g) => g.id === pointer.id);
}

/** Whether `groupId` is `ancestorId` or nested (at any depth) in it. */
export function isWithin(model: SiteModel, groupId: string | null, ancestorId: string): boolean {
  const seen = new Set<string>();
  let current = groupId;
  while (current && !seen.has(current)) {
    if (current === ancestorId) return true;
    seen.add(current);
    current = model.groups.find((g) => g.id === current)?.parentId ?? null;
  }
  return false;
}

/**
 * Where `item` lands for a position `{before?, after?}`: next to the pointed item, in that item's
 * parent. Both given: they must be neighbours, `after` first. Neither: at the end of the item's
 * current parent. 400 (nothing moves) for a pointer of the wrong type, an unknown or foreign one,
 * the item itself, or a group that would end up inside itself.
 */
export function planPosition(
  model: SiteModel,
  item: PositionPointer,
  position: { before?: PositionPointer | undefined; after?: PositionPointer | undefined } | undefined,
  fields: { before: string; after: string } = { before: "body.position.before", after: "body.position.after" },
): PlannedMove {
  const checkPointer = (pointer: PositionPointer, field: string) => {
    const allowed: StructureItemType[] = item.type === "site-space" ? ["site-space"] : ["site-section", "site-section-group"];
    if (!allowed.includes(pointer.type)) {
      throw invalid(
        `Invalid position: ${field} points at a ${pointer.type}, but a ${item.type} can only be placed next to a ${allowed.join(" or a ")}.`,
      );
    }
    if (pointer.type === item.type && pointer.id === item.id) {
      throw invalid(`Invalid position: ${field} is the ${item.type} being moved; an item cannot be placed next to itself.`);
    }
    if (!exists(model, pointer)) throw invalid(`Invalid position: ${field} names ${describe(pointer)}, which is not in this site.`);
  };
  const { before, after } = position ?? {};
  if (before) checkPointer(before, fields.before);
  if (after) checkPointer(after, fields.after);

  const parentOfPointer = (pointer: PositionPointer): string | null =>
    pointer.type === "site-space" ? (model.siteSpaces.find((s) => s.id === pointer.id)?.sectionId ?? null) : parentOf(model, pointer);
  const currentParent =
    item.type === "site-space" ? (model.siteSpaces.find((s) => s.id === item.id)?.sectionId ?? null) : parentOf(model, item);
  const anchor = before ?? after;
  const parentId = anchor ? parentOfPointer(anchor) : currentParent;
  if (before && after && parentOfPointer(before) !== parentOfPointer(after)) {
    throw invalid(`Invalid position: ${fields.after} and ${fields.before} are not in the same place of the site.`);
  }
  if (item.type === "site-section-group" && isWithin(model, parentId, item.id)) {
    throw invalid(`Invalid position: it would put section group "${item.id}" inside itself.`);
  }

  const siblings: Positioned[] =
    item.type === "site-space"
      ? siteSpacesOf(model, parentId).map((s) => ({ type: "site-space" as const, id: s.id, position: s.position }))
      : childrenOf(model, parentId);
  const others = siblings.filter((s) => !(s.type === item.type && s.id === item.id));
  const indexOf = (pointer: PositionPointer) => others.findIndex((s) => s.type === pointer.type && s.id === pointer.id);
  let index = others.length;
  if (before && after) {
    const a = indexOf(after);
    const b = indexOf(before);
    if (b !== a + 1) throw invalid(`Invalid position: ${fields.after} and ${fields.before} are not next to each other.`);
    index = b;
  } else if (before) index = indexOf(before);
  else if (after) index = indexOf(after) + 1;

  const moved: Positioned = { type: item.type, id: item.id, position: "" };
  const order = [...others.slice(0, index), moved, ...others.slice(index)];
  const prev = order[index - 1]?.position ?? null;
  const next = order[index + 1]?.position ?? null;
  if (prev === null || next === null || prev < next) {
    return { parentId, positions: [{ ...moved, position: keyBetween(prev, next) }] };
  }
  const keys = keysBetween(null, null, order.length);
  return { parentId, positions: order.map((s, i) => ({ ...s, position: keys[i] as string })) };
}

/** The key for a new last child among `siblings`. */
export function keyAfter(siblings: readonly { position: string; id: string }[]): string {
  const last = [...siblings].sort(byPosition).at(-1);
  return keyBetween(last?.position ?? null, null);
}

/** A condition as stored: null to remove (null or ""), else checked with the expression parser. */
export function checkCondition(condition: string | null, field: string): string | null {
  if (condition === null || condition.trim() === "") return null;
  try {
    parseExpression(condition, { maxLength: 1024 });
  } catch (error) {
    if (error instanceof ExpressionError) throw invalid(`${field} is not a valid expression: ${error.message}.`);
    throw error;
  }
  return condition;
}
