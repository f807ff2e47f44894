import { Migrator } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/db.js";
import { migrateToLatest } from "../migrate.js";
import { migrations } from "./index.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(() => database?.cleanup());

describe("migration 0018: git_redirects deleted with their space", () => {
  it("keeps the rows of existing spaces, leaves those of spaces already gone, and cascades from then on", async () => {
    const { db } = database;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const to0017 = await migrator.migrateTo("0017_git_redirects");
    expect(to0017.error).toBeUndefined();
    const now = new Date().toISOString();
    // Rows as the schema of 0017 holds them (today's code writes columns added since).
    const organization = { id: "o" };
    await (db as unknown as { insertInto: (t: string) => any })
      .insertInto("organizations")
      .values({ id: "o", title: "O", emailDomains: "[]", type: "business", mergeRules: '{"type":"none"}', createdAt: now, updatedAt: now })
      .execute();
    const space = (id: string) => ({
      id,
      orgId: organization.id,
      title: id,
      emoji: "",
      visibility: "private",
      editMode: "live",
      mergeRules: "{}",
      revisionId: "r",
      position: "a",
      createdAt: now,
      updatedAt: now,
    });
    await db
      .insertInto("spaces")
      .values([space("kept"), space("deleted")])
      .execute();
    await db
      .insertInto("gitRedirects")
      .values([
        { spaceId: "kept", fromPath: "old/a", pageId: "p1" },
        { spaceId: "kept", fromPath: "old/b", pageId: "p2" },
        { spaceId: "deleted", fromPath: "old/c", pageId: "p3" },
        { spaceId: "purged-before", fromPath: "old/d", pageId: "p4" },
      ])
      .execute();

    expect(await migrateToLatest(db)).toContain("0018_git_redirects_cascade");
    const rows = () => db.selectFrom("gitRedirects").select(["spaceId", "fromPath"]).orderBy("fromPath").execute();
    expect(await rows()).toEqual([
      { spaceId: "kept", fromPath: "old/a" },
      { spaceId: "kept", fromPath: "old/b" },
      { spaceId: "deleted", fromPath: "old/c" },
    ]);
    await db.deleteFrom("spaces").where("id", "=", "deleted").execute();
    expect(await rows()).toEqual([
      { spaceId: "kept", fromPath: "old/a" },
      { spaceId: "kept", fromPath: "old/b" },
    ]);
    // The key holds: no redirect of a space that does not exist; one per old path still.
    await expect(db.insertInto("gitRedirects").values({ spaceId: "nowhere", fromPath: "x", pageId: "p" }).execute()).rejects.toThrow();
    await expect(db.insertInto("gitRedirects").values({ spaceId: "kept", fromPath: "old/a", pageId: "p9" }).execute()).rejects.toThrow();
  });
});
