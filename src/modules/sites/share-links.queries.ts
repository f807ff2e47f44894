import type { Executor } from "../../db/database.js";
import type { SiteShareLinkRow } from "../../db/schema.js";
import { hashToken } from "../../lib/ids.js";
import { type Page, paginate } from "../../lib/pagination.js";

export async function getShareLink(db: Executor, siteId: string, id: string): Promise<SiteShareLinkRow | undefined> {
  return db.selectFrom("siteShareLinks").selectAll().where("id", "=", id).where("siteId", "=", siteId).executeTakeFirst();
}

/** The active share link of a site with this key (found by the key's hash), if any. */
export async function findActiveShareLink(db: Executor, siteId: string, key: string): Promise<SiteShareLinkRow | undefined> {
  return db
    .selectFrom("siteShareLinks")
    .selectAll()
    .where("keyHash", "=", hashToken(key))
    .where("siteId", "=", siteId)
    .where("active", "=", 1)
    .executeTakeFirst();
}

export function listShareLinks(
  db: Executor,
  siteId: string,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<SiteShareLinkRow>> {
  return paginate(
    db.selectFrom("siteShareLinks").selectAll().where("siteId", "=", siteId),
    [
      { column: "createdAt", direction: "asc", value: (r) => r.createdAt },
      { column: "id", direction: "asc", value: (r) => r.id },
    ],
    options,
  );
}

export async function insertShareLink(db: Executor, row: SiteShareLinkRow): Promise<void> {
  await db.insertInto("siteShareLinks").values(row).execute();
}

export async function updateShareLinkRow(db: Executor, id: string, changes: { name?: string; active?: 0 | 1 }): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.updateTable("siteShareLinks").set(changes).where("id", "=", id).execute();
}

export async function deleteShareLinkRow(db: Executor, siteId: string, id: string): Promise<void> {
  await db.deleteFrom("siteShareLinks").where("id", "=", id).where("siteId", "=", siteId).execute();
}
