import { Migrator } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/db.js";
import { initOrganization } from "../../bootstrap.js";
import { migrations } from "./index.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(() => database?.cleanup());

describe("migration 0031: the search index's vocabulary", () => {
  it("adds the table and queues every live space to be indexed again, its rows still searchable meanwhile", async () => {
    const { db } = database;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo("0027_scim")).error).toBeUndefined();
    const { organization } = await db
      .transaction()
      .execute((trx) => initOrganization(trx, { orgTitle: "O", email: "o@o.test", name: "O" }));
    const now = new Date().toISOString();
    const space = (id: string, deletedAt: string | null) => ({
      id,
      orgId: organization.id,
      title: id,
      emoji: "",
      visibility: "private",
      editMode: "live",
      mergeRules: "{}",
      revisionId: "r",
      position: "a",
      deletedAt,
      createdAt: now,
      updatedAt: now,
    });
    await db
      .insertInto("spaces")
      .values([space("live", null), space("gone", now)])
      .execute();
    const row = {
      spaceId: "live",
      pageId: "p",
      sectionKey: "",
      position: 0,
      path: "p",
      anchor: "",
      ancestors: "[]",
      pageTitle: "Page",
      sectionTitle: "",
      body: "text",
      audience: "everyone",
      conditions: null,
    };
    await db.insertInto("searchSections").values(row).execute();
    await db.insertInto("searchIndexState").values({ spaceId: "live", revisionId: "r", indexedAt: now }).execute();

    expect((await migrator.migrateTo("0031_search_words")).error).toBeUndefined();
    // The index state is forgotten (so the job builds the vocabulary), the rows stay.
    expect(await db.selectFrom("searchIndexState").selectAll().execute()).toEqual([]);
    expect(await db.selectFrom("searchSections").select("body").execute()).toEqual([{ body: "text" }]);
    const jobs = await db.selectFrom("jobs").select(["kind", "payload", "dedupeKey"]).execute();
    expect(jobs.map((j) => [j.kind, JSON.parse(j.payload), j.dedupeKey])).toEqual([
      ["search-index-space", { spaceId: "live" }, "search-index:live"],
    ]);
    await db.insertInto("searchWords").values({ spaceId: "live", word: "text", occurrences: 1 }).execute();
    // One row per word of a space.
    await expect(db.insertInto("searchWords").values({ spaceId: "live", word: "text", occurrences: 2 }).execute()).rejects.toThrow();
    expect((await migrator.migrateTo("0027_scim")).error).toBeUndefined();
    await expect(db.selectFrom("searchWords").selectAll().execute()).rejects.toThrow();
  });
});
