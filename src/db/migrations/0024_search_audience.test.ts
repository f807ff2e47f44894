import { Migrator, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/db.js";
import { initOrganization } from "../../bootstrap.js";
import { migrateToLatest } from "../migrate.js";
import { migrations } from "./index.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(() => database?.cleanup());

describe("migration 0024: search rows by audience", () => {
  it("empties the index (which held hidden blocks' text for everyone) and queues every live space to be indexed again", async () => {
    const { db, dialect } = database;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo("0023_email_verification")).error).toBeUndefined();
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
      .values([space("live", null), space("queued", null), space("gone", now)])
      .execute();
    const untyped = db as unknown as { insertInto: (t: string) => any };
    await untyped
      .insertInto("searchSections")
      .values({
        spaceId: "live",
        pageId: "p",
        sectionKey: "",
        position: 0,
        path: "p",
        anchor: "",
        ancestors: "[]",
        pageTitle: "Page",
        sectionTitle: "",
        body: "the hidden value zq7kxv93",
      })
      .execute();
    if (dialect === "sqlite") {
      await sql`insert into search_fts(rowid, page_title, section_title, body) select id, page_title, section_title, body from search_sections`.execute(
        db,
      );
    }
    await db.insertInto("searchIndexState").values({ spaceId: "live", revisionId: "r", indexedAt: now }).execute();
    // A space whose reindex is already queued keeps its one job.
    await db
      .insertInto("jobs")
      .values({
        id: "existing",
        kind: "search-index-space",
        payload: JSON.stringify({ spaceId: "queued" }),
        state: "queued",
        dedupeKey: "search-index:queued",
        attempts: 0,
        maxAttempts: 5,
        runAt: now,
        lockedBy: null,
        lockedUntil: null,
        lastError: null,
        createdAt: now,
        updatedAt: now,
      })
      .execute();

    expect(await migrateToLatest(db)).toContain("0024_search_audience");
    expect(await db.selectFrom("searchSections").selectAll().execute()).toEqual([]);
    expect(await db.selectFrom("searchIndexState").selectAll().execute()).toEqual([]);
    if (dialect === "sqlite") {
      const left = await sql<{ n: number }>`select count(*) as n from search_fts where search_fts match 'zq7kxv93'`.execute(db);
      expect(left.rows[0]?.n).toBe(0);
    }
    const jobs = await db.selectFrom("jobs").select(["id", "kind", "payload", "dedupeKey", "state"]).orderBy("dedupeKey").execute();
    expect(jobs.map((j) => [j.kind, JSON.parse(j.payload), j.dedupeKey, j.state])).toEqual([
      ["search-index-space", { spaceId: "live" }, "search-index:live", "queued"],
      ["search-index-space", { spaceId: "queued" }, "search-index:queued", "queued"],
    ]);
    expect(jobs.find((j) => j.dedupeKey === "search-index:queued")?.id).toBe("existing");
    // New rows say who may find them.
    await untyped
      .insertInto("searchSections")
      .values({
        spaceId: "live",
        pageId: "p",
        sectionKey: "",
        position: 0,
        path: "p",
        anchor: "",
        ancestors: "[]",
        pageTitle: "Page",
        sectionTitle: "",
        body: "",
        audience: "readers",
        conditions: '["visitor.claims.beta"]',
      })
      .execute();
    expect(await db.selectFrom("searchSections").select(["audience", "conditions"]).execute()).toEqual([
      { audience: "readers", conditions: '["visitor.claims.beta"]' },
    ]);
  });
});
