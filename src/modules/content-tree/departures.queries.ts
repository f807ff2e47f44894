/**
 * What a space leaving its organization (a transfer of it, or of its collection) takes with it
 * besides grants: its places on the old organization's docs sites. Here, below spaces,
 * collections and sites, so that none of them imports another for it.
 */
import type { Executor } from "../../db/database.js";

/**
 * Takes spaces out of every site of organizations other than `orgId` (a space transferred to
 * another organization cannot stay published by its old one); their sections stay. Run inside the
 * transfer's transaction.
 */
export async function removeSpacesFromSitesOutside(db: Executor, spaceIds: readonly string[], orgId: string): Promise<number> {
  if (spaceIds.length === 0) return 0;
  const result = await db
    .deleteFrom("siteSpaces")
    .where("spaceId", "in", [...spaceIds])
    .where("siteId", "in", (eb) => eb.selectFrom("sites").select("id").where("orgId", "!=", orgId))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
