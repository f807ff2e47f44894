import type { Executor } from "../../db/database.js";
import type {
  SiteRow,
  SiteSectionGroupRow,
  SiteSectionGroupsTable,
  SiteSectionRow,
  SiteSectionsTable,
  SiteSpaceRow,
  SiteSpacesTable,
} from "../../db/schema.js";
import { nowIso } from "../../lib/time.js";
import { getSpacesByIds } from "../spaces/spaces.queries.js";
import { hasSections, type SiteModel, sectionsInOrder, siteSpaceSegments, visibleSiteSpacesOf } from "./structure.model.js";

/**
 * The whole structure of a site in four queries: groups, sections, site spaces and the spaces they
 * show. Sites are small (tens of items), so every read and every check works on this model.
 * A site space is `hidden` while its space is deleted (restorable) or belongs to another
 * organization: it is left out of everything a caller sees, but its path stays reserved.
 */
export async function loadSiteModel(db: Executor, site: SiteRow): Promise<SiteModel> {
  const [groups, sections, siteSpaces] = await Promise.all([
    db.selectFrom("siteSectionGroups").selectAll().where("siteId", "=", site.id).execute(),
    db.selectFrom("siteSections").selectAll().where("siteId", "=", site.id).execute(),
    db.selectFrom("siteSpaces").selectAll().where("siteId", "=", site.id).execute(),
  ]);
  const spaces = new Map((await getSpacesByIds(db, [...new Set(siteSpaces.map((s) => s.spaceId))])).map((s) => [s.id, s]));
  return {
    site,
    groups,
    sections,
    siteSpaces: siteSpaces.flatMap((row) => {
      const space = spaces.get(row.spaceId);
      if (!space) return [];
      return [{ ...row, space, hidden: space.deletedAt !== null || space.orgId !== site.orgId }];
    }),
  };
}

export async function insertSiteSpace(db: Executor, row: SiteSpaceRow): Promise<void> {
  await db.insertInto("siteSpaces").values(row).execute();
}

export async function updateSiteSpaceRow(
  db: Executor,
  id: string,
  changes: Partial<Pick<SiteSpacesTable, "path" | "condition" | "spaceId" | "sectionId" | "position">>,
): Promise<void> {
  await db
    .updateTable("siteSpaces")
    .set({ ...changes, updatedAt: nowIso() })
    .where("id", "=", id)
    .execute();
}

export async function deleteSiteSpaceRow(db: Executor, siteId: string, id: string): Promise<void> {
  await db.deleteFrom("siteSpaces").where("id", "=", id).where("siteId", "=", siteId).execute();
}

/** Puts the site spaces of a site that has no sections yet into its first section. */
export async function moveUnsectionedSiteSpaces(db: Executor, siteId: string, sectionId: string): Promise<void> {
  await db.updateTable("siteSpaces").set({ sectionId }).where("siteId", "=", siteId).where("sectionId", "is", null).execute();
}

export async function insertSection(db: Executor, row: SiteSectionRow): Promise<void> {
  await db.insertInto("siteSections").values(row).execute();
}

export async function updateSectionRow(
  db: Executor,
  id: string,
  changes: Partial<Omit<SiteSectionsTable, "id" | "siteId" | "createdAt">>,
): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.updateTable("siteSections").set(changes).where("id", "=", id).execute();
}

export async function deleteSectionRow(db: Executor, siteId: string, id: string): Promise<void> {
  // Its site spaces follow through their foreign key.
  await db.deleteFrom("siteSections").where("id", "=", id).where("siteId", "=", siteId).execute();
}

export async function insertGroup(db: Executor, row: SiteSectionGroupRow): Promise<void> {
  await db.insertInto("siteSectionGroups").values(row).execute();
}

export async function updateGroupRow(
  db: Executor,
  id: string,
  changes: Partial<Omit<SiteSectionGroupsTable, "id" | "siteId" | "createdAt">>,
): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.updateTable("siteSectionGroups").set(changes).where("id", "=", id).execute();
}

export async function deleteGroupRow(db: Executor, siteId: string, id: string): Promise<void> {
  await db.deleteFrom("siteSectionGroups").where("id", "=", id).where("siteId", "=", siteId).execute();
}

/**
 * Where a space is published: for each published site of its organization that shows it (ten at
 * most), the site and the URL segments of that site space from the site's root
 * (`siteSpaceSegments`). A page's address there is the site's address, these segments, then the
 * page's path.
 */
export async function publishedPlacesOfSpace(
  db: Executor,
  space: { id: string; orgId: string },
): Promise<{ basename: string; title: string; segments: string[] }[]> {
  const sites = await db
    .selectFrom("sites")
    .selectAll("sites")
    .where("sites.orgId", "=", space.orgId)
    .where("sites.published", "=", 1)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("siteSpaces")
          .select("siteSpaces.id")
          .whereRef("siteSpaces.siteId", "=", "sites.id")
          .where("siteSpaces.spaceId", "=", space.id),
      ),
    )
    .orderBy("sites.title")
    .orderBy("sites.id")
    .limit(10)
    .execute();
  const places: { basename: string; title: string; segments: string[] }[] = [];
  for (const site of sites) {
    const model = await loadSiteModel(db, site);
    const sections = hasSections(model) ? sectionsInOrder(model) : [null];
    for (const section of sections) {
      for (const siteSpace of visibleSiteSpacesOf(model, section?.id ?? null)) {
        if (siteSpace.spaceId === space.id)
          places.push({ basename: site.basename, title: site.title, segments: siteSpaceSegments(model, siteSpace) });
      }
    }
  }
  return places;
}
