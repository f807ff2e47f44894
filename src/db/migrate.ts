import { type MigrationResultSet, Migrator } from "kysely";
import { ensureChangeTriggers } from "./change-feed.js";
import { type Db, dialectOf } from "./database.js";
import { migrations } from "./migrations/index.js";

function migrator(db: Db): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

/** Brings the schema to the latest version; throws with the failing migration's name. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const result: MigrationResultSet = await migrator(db).migrateToLatest();
  const failed = result.results?.find((r) => r.status === "Error");
  if (result.error) {
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`Migration ${failed?.migrationName ?? "(unknown)"} failed: ${reason}`);
  }
  // Every table, new ones included, tells the other processes when it changes (db/change-feed.ts).
  if (dialectOf(db) === "postgres") await ensureChangeTriggers(db);
  return (result.results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/** Names of migrations not yet applied; empty when the schema is current. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const all = await migrator(db).getMigrations();
  return all.filter((m) => !m.executedAt).map((m) => m.name);
}
