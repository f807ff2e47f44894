/**
 * The reads behind every request to a published site. They are prepared and, on SQLite, cached while
 * the database is unchanged (src/db/prepared.ts): a warm page costs a few `PRAGMA data_version`
 * checks, and a merge, a Git import or a structure change is seen by the very next request.
 */
import type { Kysely } from "kysely";
import type { Executor } from "../../db/database.js";
import { prepared } from "../../db/prepared.js";
import type { Database, SiteRow, SiteSectionGroupRow, SiteSectionRow, SiteSpaceRow, SpaceRow } from "../../db/schema.js";

const siteByBasename = prepared<{ basename: string }, SiteRow>(
  (db, param) => (db as Kysely<Database>).selectFrom("sites").selectAll().where("basename", "=", param("basename")),
  { cache: true },
);

export async function findSiteByBasename(db: Executor, basename: string): Promise<SiteRow | undefined> {
  return (await siteByBasename(db, { basename }))[0];
}

const sitesWithProxy = prepared<{ none: string }, SiteRow>(
  (db, param) =>
    (db as Kysely<Database>).selectFrom("sites").selectAll().where("proxy", "is not", null).where("proxy", "!=", param("none")),
  { cache: true },
);

/** Sites that declare a proxy origin (`host/path`): they are also served on that host. */
export function listSitesWithProxy(db: Executor): Promise<readonly SiteRow[]> {
  return sitesWithProxy(db, { none: "" });
}

const groupsOfSite = prepared<{ siteId: string }, SiteSectionGroupRow>(
  (db, param) => (db as Kysely<Database>).selectFrom("siteSectionGroups").selectAll().where("siteId", "=", param("siteId")),
  { cache: true },
);

const sectionsOfSite = prepared<{ siteId: string }, SiteSectionRow>(
  (db, param) => (db as Kysely<Database>).selectFrom("siteSections").selectAll().where("siteId", "=", param("siteId")),
  { cache: true },
);

const siteSpacesOfSite = prepared<{ siteId: string }, SiteSpaceRow>(
  (db, param) => (db as Kysely<Database>).selectFrom("siteSpaces").selectAll().where("siteId", "=", param("siteId")),
  { cache: true },
);

export type SpaceWithTree = SpaceRow & { treeHash: string | null };

const spacesOfSite = prepared<{ siteId: string }, SpaceWithTree>(
  (db, param) =>
    (db as Kysely<Database>)
      .selectFrom("spaces")
      .innerJoin("revisions", "revisions.id", "spaces.revisionId")
      .selectAll("spaces")
      .select("revisions.treeHash")
      .where("spaces.id", "in", (eb) =>
        eb.selectFrom("siteSpaces").select("siteSpaces.spaceId").where("siteSpaces.siteId", "=", param("siteId")),
      ),
  { cache: true },
);

export interface SiteRows {
  groups: readonly SiteSectionGroupRow[];
  sections: readonly SiteSectionRow[];
  siteSpaces: readonly SiteSpaceRow[];
  /** The spaces shown, each with the tree of its primary revision. */
  spaces: readonly SpaceWithTree[];
}

/** The structure of a site and the primary revision of each space it shows. */
export async function loadSiteRows(db: Executor, siteId: string): Promise<SiteRows> {
  const [groups, sections, siteSpaces, spaces] = await Promise.all([
    groupsOfSite(db, { siteId }),
    sectionsOfSite(db, { siteId }),
    siteSpacesOfSite(db, { siteId }),
    spacesOfSite(db, { siteId }),
  ]);
  return { groups, sections, siteSpaces, spaces };
}

const redirectsOfSite = prepared<{ siteId: string }, { fromPath: string; targetType: string; targetId: string }>(
  (db, param) =>
    (db as Kysely<Database>)
      .selectFrom("sitePathRedirects")
      .select(["fromPath", "targetType", "targetId"])
      .where("siteId", "=", param("siteId")),
  { cache: true },
);

/** Old section and variant paths of a site (from the site's root) and what they lead to now. */
export function listSiteRedirects(db: Executor, siteId: string) {
  return redirectsOfSite(db, { siteId });
}

/** The spaces a site publishes (its site spaces), by id. */
export async function siteSpaceIdsOf(db: Executor, siteId: string): Promise<string[]> {
  const rows = await db.selectFrom("siteSpaces").select("spaceId").where("siteId", "=", siteId).execute();
  return [...new Set(rows.map((r) => r.spaceId))];
}
