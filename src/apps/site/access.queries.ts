import type { Executor } from "../../db/database.js";

/** Ids of the spaces a site shows (every site space, in any section). */
export async function siteSpaceIdsOf(db: Executor, siteId: string): Promise<string[]> {
  const rows = await db.selectFrom("siteSpaces").select("spaceId").where("siteId", "=", siteId).execute();
  return [...new Set(rows.map((r) => r.spaceId))];
}
