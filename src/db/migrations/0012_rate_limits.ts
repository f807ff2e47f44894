/**
 * Request counts of the rate limiter's database store (src/http/rate-limit.ts): one row per key and
 * window. On PostgreSQL the table is UNLOGGED: counts are written on every request and need not
 * survive a crash, so they skip the write-ahead log.
 */
import { type Kysely, sql } from "kysely";
import { dialectOf } from "../database.js";

export async function up(db: Kysely<unknown>): Promise<void> {
  let table = db.schema.createTable("rate_limits");
  if (dialectOf(db) === "postgres") table = table.modifyFront(sql`unlogged`);
  await table
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("hits", "integer", (c) => c.notNull())
    .addColumn("reset_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("rate_limits_reset_at").on("rate_limits").column("reset_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("rate_limits").ifExists().execute();
}
