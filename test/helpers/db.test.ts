/**
 * The test databases: each test file's own, a copy of the run's migrated template (test/global-setup.ts).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { pendingMigrations } from "../../src/db/migrate.js";
import { migrations } from "../../src/db/migrations/index.js";
import { createTestDatabase, postgresAdminUrl, type TestDatabase, testDialect } from "./db.js";

const opened: TestDatabase[] = [];
afterAll(async () => {
  for (const database of opened) await database.cleanup();
});

async function open(options?: { migrate?: boolean }): Promise<TestDatabase> {
  const database = await createTestDatabase(options);
  opened.push(database);
  return database;
}

const migrationRuns = async (database: TestDatabase) =>
  (await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration order by name`.execute(database.db)).rows;

const sha256 = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

describe("createTestDatabase", () => {
  it("gives each caller a migrated database of its own, a copy of the run's one migration", async () => {
    const templateBefore = testDialect() === "sqlite" ? sha256(inject("sqliteTemplate")) : undefined;
    const [a, b] = [await open(), await open()];
    expect(await pendingMigrations(a.db)).toEqual([]);
    expect(await pendingMigrations(b.db)).toEqual([]);
    // The same migration records, down to the time each migration ran: copied, not migrated again.
    const runs = await migrationRuns(a);
    expect(runs.map((run) => run.name)).toEqual(Object.keys(migrations).sort());
    expect(await migrationRuns(b)).toEqual(runs);

    // Yet two databases: what one test file writes, another never sees, nor does the template.
    const now = new Date().toISOString();
    await a.db
      .insertInto("users")
      .values({
        id: "u1",
        email: "a@example.test",
        displayName: "A",
        photoUrl: null,
        emailVerified: 1,
        pending: 0,
        createdAt: now,
        updatedAt: now,
      })
      .execute();
    expect(await a.db.selectFrom("users").select("id").execute()).toEqual([{ id: "u1" }]);
    expect(await b.db.selectFrom("users").select("id").execute()).toEqual([]);
    expect(a.location).not.toEqual(b.location);
    if (templateBefore) expect(sha256(inject("sqliteTemplate"))).toBe(templateBefore);
    expect(await migrationRuns(await open())).toEqual(runs);
  });

  it("gives an empty database with migrate: false, for the tests of migrations", async () => {
    const empty = await open({ migrate: false });
    const tables =
      empty.dialect === "sqlite"
        ? sql<{ name: string }>`select name from sqlite_master where type = 'table'`
        : sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public'`;
    expect((await tables.execute(empty.db)).rows).toEqual([]);
    expect(await pendingMigrations(empty.db)).toEqual(Object.keys(migrations).sort());
  });

  it.runIf(testDialect() === "postgres")("keeps everyone off the PostgreSQL template, so that copying it cannot fail", async () => {
    const url = new URL(postgresAdminUrl());
    url.pathname = `/${inject("postgresTemplate")}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await expect(client.connect()).rejects.toThrow(/not currently accepting connections/);
  });
});
