/**
 * Site spaces, sections, groups and the structure, as the API shows them. Pure: the model and the
 * spaces (presented for the caller) are loaded before.
 *
 * Published URLs (only while the site is published): the site at `{QUIRE_PUBLIC_URL}/s/{basename}`,
 * a share key as the first segment after it when the caller gave one, then the section's path
 * (none for the home section), then the site space's path (none for its section's default).
 */
import type { SiteSectionGroupRow, SiteSectionRow, SpaceRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import type { OrgAccess } from "../../permissions/access.js";
import type { SpaceCounts } from "../spaces/space-activity.queries.js";
import { presentSpacesFor } from "../spaces/spaces.presenter.js";
import type { SpaceResponse } from "../spaces/spaces.schemas.js";
import {
  childrenOf,
  defaultSectionId,
  defaultSiteSpaceId,
  groupRow,
  hasSections,
  type ModelSiteSpace,
  type SiteModel,
  sectionRow,
  sectionVisible,
  siteSpaceSegments,
  visibleSiteSpacesOf,
} from "./structure.model.js";
import type { SiteSectionGroupResponse, SiteSectionResponse, SiteSpaceResponse, SiteStructureResponse } from "./structure.schemas.js";

export interface StructureContext {
  model: SiteModel;
  /** The spaces of the site's site spaces, presented for the caller, by id. */
  spaces: ReadonlyMap<string, SpaceResponse>;
  urls: Urls;
  /** A verified share key to put in published URLs. */
  shareKey?: string | undefined;
}

/** What the structure presenter needs: the model and the spaces of its visible site spaces (loadStructureSpaces), presented for the caller. */
export function structureContextOf(
  access: OrgAccess,
  model: SiteModel,
  loaded: { spaces: readonly SpaceRow[]; counts: ReadonlyMap<string, SpaceCounts> },
  urls: Urls,
  shareKey?: string,
): StructureContext {
  const presented = presentSpacesFor(access, loaded.spaces, loaded.counts, urls);
  return { model, spaces: new Map(presented.map((s) => [s.id, s])), urls, shareKey };
}

function publishedUrl(ctx: StructureContext, ...segments: (string | null)[]): { published?: string } {
  const { site } = ctx.model;
  if (!site.published) return {};
  return { published: ctx.urls.site(site.basename, ctx.shareKey, ...segments) };
}

function sectionSegment(ctx: StructureContext, sectionId: string | null): string | null {
  if (sectionId === null || sectionId === defaultSectionId(ctx.model)) return null;
  return ctx.model.sections.find((s) => s.id === sectionId)?.path ?? null;
}

export function presentSiteSpace(ctx: StructureContext, siteSpace: ModelSiteSpace): SiteSpaceResponse {
  const isDefault = defaultSiteSpaceId(ctx.model, siteSpace.sectionId) === siteSpace.id;
  const space = ctx.spaces.get(siteSpace.spaceId);
  if (!space) throw new Error(`presentSiteSpace: space ${siteSpace.spaceId} was not presented`);
  return {
    object: "site-space",
    id: siteSpace.id,
    path: siteSpace.path,
    ...(siteSpace.sectionId ? { section: siteSpace.sectionId } : {}),
    space,
    title: siteSpace.space.title,
    default: isDefault,
    ...(siteSpace.condition ? { condition: siteSpace.condition } : {}),
    urls: publishedUrl(ctx, ...siteSpaceSegments(ctx.model, siteSpace)),
  };
}

export function presentSection(ctx: StructureContext, section: SiteSectionRow): SiteSectionResponse {
  return {
    object: "site-section",
    id: section.id,
    title: section.title,
    ...(section.description !== null ? { description: section.description } : {}),
    default: defaultSectionId(ctx.model) === section.id,
    path: section.path,
    ...(section.condition ? { condition: section.condition } : {}),
    ...(section.groupId ? { sectionGroup: section.groupId } : {}),
    siteSpaces: visibleSiteSpacesOf(ctx.model, section.id).map((s) => presentSiteSpace(ctx, s)),
    urls: publishedUrl(ctx, sectionSegment(ctx, section.id)),
    ...(section.icon ? { icon: section.icon } : {}),
  };
}

/**
 * A group with its children. `onlyVisible` leaves out sections that show nothing (and groups left
 * empty), as a reader sees them; the API's lists show every section.
 */
export function presentGroup(
  ctx: StructureContext,
  group: SiteSectionGroupRow,
  options: { onlyVisible?: boolean } = {},
  seen: Set<string> = new Set(),
): SiteSectionGroupResponse {
  seen.add(group.id);
  const children: SiteSectionGroupResponse["children"] = [];
  const sections: SiteSectionResponse[] = [];
  for (const child of childrenOf(ctx.model, group.id)) {
    if (child.type === "site-section") {
      const section = sectionRow(ctx.model, child.id);
      if (options.onlyVisible && !sectionVisible(ctx.model, section.id)) continue;
      const presented = presentSection(ctx, section);
      sections.push(presented);
      children.push(presented);
    } else if (!seen.has(child.id)) {
      const nested = presentGroup(ctx, groupRow(ctx.model, child.id), options, seen);
      if (options.onlyVisible && nested.children.length === 0) continue;
      children.push(nested);
    }
  }
  return {
    object: "site-section-group",
    id: group.id,
    title: group.title,
    ...(group.icon ? { icon: group.icon } : {}),
    ...(group.parentId ? { sectionGroup: group.parentId } : {}),
    sections,
    children,
  };
}

/** What a reader sees at the site's root: sections and groups, or site spaces; hidden items left out. */
export function presentStructure(ctx: StructureContext): SiteStructureResponse {
  const { model } = ctx;
  if (!hasSections(model)) {
    return { type: "siteSpaces", structure: visibleSiteSpacesOf(model, null).map((s) => presentSiteSpace(ctx, s)) };
  }
  const structure: (SiteSectionResponse | SiteSectionGroupResponse)[] = [];
  for (const child of childrenOf(model, null)) {
    if (child.type === "site-section") {
      if (sectionVisible(model, child.id)) structure.push(presentSection(ctx, sectionRow(model, child.id)));
    } else {
      const group = presentGroup(ctx, groupRow(model, child.id), { onlyVisible: true });
      if (group.children.length > 0) structure.push(group);
    }
  }
  return { type: "sections", structure };
}
