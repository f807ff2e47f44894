/**
 * A fresh, migrated database for one test file: a temporary SQLite file, or (in the postgres
 * project) a new database on the server named by QUIRE_TEST_DATABASE_URL, dropped afterwards.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { type DatabaseHandle, openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { randomBase62 } from "../../src/lib/ids.js";

export interface TestDatabase extends DatabaseHandle {
  /** Connection URL (PostgreSQL) or file path (SQLite), for a second process to open. */
  location: { databaseUrl?: string; sqlitePath?: string };
  cleanup(): Promise<void>;
}

export function testDialect(): "sqlite" | "postgres" {
  return process.env.QUIRE_TEST_DIALECT === "postgres" ? "postgres" : "sqlite";
}

export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const migrate = options.migrate ?? true;
  if (testDialect() === "postgres") {
    const adminUrl = process.env.QUIRE_TEST_DATABASE_URL;
    if (!adminUrl) throw new Error("QUIRE_TEST_DATABASE_URL is required for the postgres test project");
    // QUIRE_TEST_RUN_ID groups the databases of one run, so CI can drop leftovers of its own run only.
    const run = (process.env.QUIRE_TEST_RUN_ID ?? "local").toLowerCase().replace(/[^a-z0-9]/g, "");
    const name = `quire_t_${run}_${randomBase62(12).toLowerCase()}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const handle = openDatabase({ databaseUrl: url.toString(), poolSize: 5 });
    if (migrate) await migrateToLatest(handle.db);
    return {
      ...handle,
      location: { databaseUrl: url.toString() },
      async cleanup() {
        await handle.destroy();
        const client = new pg.Client({ connectionString: adminUrl });
        await client.connect();
        // The pool's end() resolves before its sockets have closed; terminating a connection that
        // is still closing (drop ... with force) makes its client throw an uncaught FATAL 57P01.
        for (let waited = 0; waited < 5000; waited += 20) {
          const { rows } = await client.query("select count(*)::int as n from pg_stat_activity where datname = $1", [name]);
          if (rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await client.query(`drop database if exists ${name} with (force)`);
        await client.end();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-test-"));
  const file = path.join(dir, "quire.db");
  const handle = openDatabase({ sqlitePath: file });
  if (migrate) await migrateToLatest(handle.db);
  return {
    ...handle,
    location: { sqlitePath: file },
    async cleanup() {
      await handle.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
