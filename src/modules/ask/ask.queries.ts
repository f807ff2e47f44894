import type { Executor } from "../../db/database.js";

/** The indexed revision of each space (what an answer's sources were read from). */
export async function indexedRevisionOf(db: Executor, spaceIds: readonly string[]): Promise<Map<string, string>> {
  if (spaceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("searchIndexState")
    .select(["spaceId", "revisionId"])
    .where("spaceId", "in", [...spaceIds])
    .execute();
  return new Map(rows.map((r) => [r.spaceId, r.revisionId]));
}

/** The site's site spaces with their section and order, and each section's default site space. */
export async function siteSpacesOfSite(
  db: Executor,
  siteId: string,
): Promise<{ id: string; spaceId: string; sectionId: string | null; position: string; isDefault: boolean }[]> {
  const rows = await db
    .selectFrom("siteSpaces")
    .leftJoin("siteSections", "siteSections.id", "siteSpaces.sectionId")
    .select(["siteSpaces.id", "siteSpaces.spaceId", "siteSpaces.sectionId", "siteSpaces.position", "siteSections.defaultSiteSpaceId"])
    .where("siteSpaces.siteId", "=", siteId)
    .orderBy("siteSpaces.position")
    .orderBy("siteSpaces.id")
    .execute();
  // A section's default is the one it names, else (none, or a removed one) its first.
  const firstOf = new Map<string, string>();
  const ids = new Set(rows.map((r) => r.id));
  for (const row of rows) {
    const group = row.sectionId ?? "";
    if (!firstOf.has(group))
      firstOf.set(group, row.defaultSiteSpaceId && ids.has(row.defaultSiteSpaceId) ? row.defaultSiteSpaceId : row.id);
  }
  return rows.map((row) => ({
    id: row.id,
    spaceId: row.spaceId,
    sectionId: row.sectionId,
    position: row.position,
    isDefault: firstOf.get(row.sectionId ?? "") === row.id,
  }));
}

/** Headings of the spaces' pages written as questions, and their pages' titles, in index order (members' rows). */
export async function questionSources(
  db: Executor,
  spaceIds: readonly string[],
  limit: number,
): Promise<{ questions: string[]; pageTitles: string[] }> {
  if (spaceIds.length === 0) return { questions: [], pageTitles: [] };
  const questions = await db
    .selectFrom("searchSections")
    .select("sectionTitle")
    .distinct()
    .where("spaceId", "in", [...spaceIds])
    .where("audience", "in", ["everyone", "members"])
    .where("sectionTitle", "like", "%?")
    .orderBy("sectionTitle")
    .limit(limit)
    .execute();
  const pages = await db
    .selectFrom("searchSections")
    .select(["pageTitle", "spaceId", "pageId"])
    .select((eb) => eb.fn.min("id").as("first"))
    .where("spaceId", "in", [...spaceIds])
    .where("audience", "in", ["everyone", "members"])
    .groupBy(["pageTitle", "spaceId", "pageId"])
    .orderBy("first")
    .limit(limit)
    .execute();
  return { questions: questions.map((q) => q.sectionTitle), pageTitles: pages.map((p) => p.pageTitle) };
}
