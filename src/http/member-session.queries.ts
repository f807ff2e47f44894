import type { Executor } from "../db/database.js";
import { nowIso } from "../lib/time.js";

/** A live member session's stored data by the SHA-256 of its id (what a pass to published sites names). */
export async function readSessionByIdHash(db: Executor, idHash: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("webSessions")
    .select("data")
    .where("idHash", "=", idHash)
    .where("expiresAt", ">", nowIso())
    .executeTakeFirst();
  return row?.data;
}
