import type { Kysely } from "kysely";
import type { Executor } from "../../db/database.js";
import { prepared } from "../../db/prepared.js";
import type { Database, SiteRedirectRow } from "../../db/schema.js";

/** Every redirect of a site, live or draft (bounded by MAX_SITE_REDIRECTS: lists sort in memory). */
export function listSiteRedirectRows(db: Executor, siteId: string, draft: boolean): Promise<SiteRedirectRow[]> {
  return db
    .selectFrom("siteRedirects")
    .selectAll()
    .where("siteId", "=", siteId)
    .where("draft", "=", draft ? 1 : 0)
    .execute();
}

export function getSiteRedirect(db: Executor, siteId: string, id: string): Promise<SiteRedirectRow | undefined> {
  return db.selectFrom("siteRedirects").selectAll().where("siteId", "=", siteId).where("id", "=", id).executeTakeFirst();
}

export function findSiteRedirectBySource(
  db: Executor,
  siteId: string,
  source: string,
  draft: boolean,
): Promise<SiteRedirectRow | undefined> {
  return db
    .selectFrom("siteRedirects")
    .selectAll()
    .where("siteId", "=", siteId)
    .where("source", "=", source)
    .where("draft", "=", draft ? 1 : 0)
    .executeTakeFirst();
}

export async function countSiteRedirects(db: Executor, siteId: string): Promise<number> {
  const row = await db
    .selectFrom("siteRedirects")
    .select((eb) => eb.fn.countAll().as("count"))
    .where("siteId", "=", siteId)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function insertSiteRedirect(db: Executor, row: SiteRedirectRow): Promise<void> {
  await db.insertInto("siteRedirects").values(row).execute();
}

export async function updateSiteRedirectRow(
  db: Executor,
  id: string,
  changes: Partial<Omit<SiteRedirectRow, "id" | "siteId" | "createdAt">>,
): Promise<void> {
  await db.updateTable("siteRedirects").set(changes).where("id", "=", id).execute();
}

/** Returns true when a redirect was removed. */
export async function deleteSiteRedirectRow(db: Executor, siteId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom("siteRedirects").where("siteId", "=", siteId).where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

const liveRedirects = prepared<
  { siteId: string },
  Pick<SiteRedirectRow, "id" | "source" | "captureWildcard" | "permanent" | "destination">
>(
  (db, param) =>
    (db as Kysely<Database>)
      .selectFrom("siteRedirects")
      .select(["id", "source", "captureWildcard", "permanent", "destination"])
      .where("siteId", "=", param("siteId"))
      .where("draft", "=", 0),
  { cache: true },
);

/** The live redirects the published site answers with (kept while the table is unchanged). */
export function liveSiteRedirects(db: Executor, siteId: string) {
  return liveRedirects(db, { siteId });
}
