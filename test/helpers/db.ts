/**
 * A fresh, migrated database for one test file: a copy of the run's migrated template (made once
 * per run by test/global-setup.ts), as a temporary SQLite file, or (in the postgres project) as a
 * new database on the server named by QUIRE_TEST_DATABASE_URL, dropped afterwards. Each test file
 * still gets a database of its own; only the migrating is shared.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { expect, inject } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../src/db/database.js";
import { randomBase62 } from "../../src/lib/ids.js";

export interface TestDatabase extends DatabaseHandle {
  /** Connection URL (PostgreSQL) or file path (SQLite), for a second process to open. */
  location: { databaseUrl?: string; sqlitePath?: string };
  cleanup(): Promise<void>;
}

/**
 * The dialect of this test project. vitest.config.ts runs the database-free test files (those that
 * import nothing that reads QUIRE_TEST_DIALECT, see test/test-files.ts) with
 * QUIRE_TEST_DIALECT=none: reaching this there means the rule missed this file's database use.
 */
export function testDialect(): "sqlite" | "postgres" {
  const dialect = process.env.QUIRE_TEST_DIALECT;
  if (dialect === "none") {
    throw new Error(
      `${expect.getState().testPath ?? "This test file"} was classed database-free (nothing it imports reads QUIRE_TEST_DIALECT) but uses the test database: ` +
        "import test/helpers/db.ts (or a helper that does) with a static import or a literal import(), so that test/test-files.ts sees it.",
    );
  }
  return dialect === "postgres" ? "postgres" : "sqlite";
}

/** The PostgreSQL server's URL (any database on it), from QUIRE_TEST_DATABASE_URL. */
export function postgresAdminUrl(): string {
  const adminUrl = process.env.QUIRE_TEST_DATABASE_URL;
  if (!adminUrl) throw new Error("QUIRE_TEST_DATABASE_URL is required for the postgres test project");
  return adminUrl;
}

/** QUIRE_TEST_RUN_ID groups the databases of one run, so CI can drop leftovers of its own run only. */
export function testRunId(): string {
  return (process.env.QUIRE_TEST_RUN_ID ?? "local").toLowerCase().replace(/[^a-z0-9]/g, "");
}

/**
 * Waits until nobody is connected to `database`: the pool's end() resolves before its sockets have
 * closed, and terminating a connection that is still closing (drop ... with force) makes its client
 * throw an uncaught FATAL 57P01; a template being copied must have no connection at all.
 */
export async function waitForNoConnections(client: pg.Client, database: string): Promise<void> {
  for (let waited = 0; waited < 5000; waited += 20) {
    const { rows } = await client.query("select count(*)::int as n from pg_stat_activity where datname = $1", [database]);
    if (rows[0].n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A database of this file's own. Migrated (a copy of the run's template) unless `migrate: false`,
 * which gives an empty database, for the tests of migrations themselves.
 */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const migrate = options.migrate ?? true;
  if (testDialect() === "postgres") {
    const adminUrl = postgresAdminUrl();
    const name = `quire_t_${testRunId()}_${randomBase62(12).toLowerCase()}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(migrate ? `create database ${name} template ${template("postgresTemplate")}` : `create database ${name}`);
    } finally {
      await admin.end();
    }
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const handle = openDatabase({ databaseUrl: url.toString(), poolSize: 5 });
    return {
      ...handle,
      location: { databaseUrl: url.toString() },
      async cleanup() {
        await handle.destroy();
        const client = new pg.Client({ connectionString: adminUrl });
        await client.connect();
        await waitForNoConnections(client, name);
        await client.query(`drop database if exists ${name} with (force)`);
        await client.end();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-test-"));
  const file = path.join(dir, "quire.db");
  if (migrate) fs.copyFileSync(template("sqliteTemplate"), file);
  const handle = openDatabase({ sqlitePath: file });
  return {
    ...handle,
    location: { sqlitePath: file },
    async cleanup() {
      await handle.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function template(key: "sqliteTemplate" | "postgresTemplate"): string {
  const name = inject(key);
  if (!name) throw new Error(`No migrated template (${key}): run the tests through vitest.config.ts, whose globalSetup migrates one.`);
  return name;
}
