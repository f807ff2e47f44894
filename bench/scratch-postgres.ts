/**
 * A PostgreSQL database of its own for a bench run: created on the server at `serverUrl`, migrated,
 * with one organization and its owner's API token; `drop()` removes it. The benches' figures must
 * not depend on what an earlier run left.
 */
import pg from "pg";
import { initOrganization } from "../src/bootstrap.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";

export async function scratchPostgres(serverUrl: string, name: string) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name}`);
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = openDatabase({ databaseUrl: url.href });
  await migrateToLatest(handle.db);
  const seeded = await handle.db
    .transaction()
    .execute((trx) => initOrganization(trx, { orgTitle: "Bench", email: "bench@bench.test", name: "Bench" }));
  return {
    url: url.href,
    handle,
    /** The admin connection (on the server's own database), for reading pg_stat_activity. */
    admin,
    ...seeded,
    /**
     * Closes this process's pool and drops the database, once the closed connections' backends have
     * ended (up to 5 s: forcing it sooner would end them mid-goodbye, and their clients would throw).
     */
    async drop() {
      await handle.destroy();
      for (let i = 0; i < 100; i++) {
        const { rows } = await admin.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = $1", [name]);
        if (rows[0]?.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
