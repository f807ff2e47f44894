/**
 * SQLite rows as the code reads them: built from raw arrays by a generated function, keyed in
 * camelCase, identical to what better-sqlite3's objects through Kysely's CamelCasePlugin were.
 */
import SQLite from "better-sqlite3";
import { CamelCasePlugin, Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { QuireCamelCasePlugin, rowBuilder, withStatementCache } from "./sqlite-statements.js";

describe("rowBuilder", () => {
  it("keys values by name, whatever characters the names hold", () => {
    const keys = ["id", 'quote"d', "back\\slash", "new\nline", "}); throw 1; ({", "émoji 🙂", ""];
    const row = rowBuilder(keys)(keys.map((_, i) => i));
    expect(Object.entries(row)).toEqual(keys.map((key, i) => [key, i]));
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
  });

  it("makes `__proto__` an ordinary property, never the prototype", () => {
    const row = rowBuilder(["id", "__proto__"])(["x", { polluted: true }]);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.keys(row)).toEqual(["id", "__proto__"]);
    expect((row as { polluted?: boolean }).polluted).toBeUndefined();
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("keeps the last of two columns with the same name, as better-sqlite3's objects do", () => {
    expect(rowBuilder(["id", "id"])(["first", "second"])).toEqual({ id: "second" });
  });
});

describe("SQLite statements through Kysely", () => {
  let sqlite: SQLite.Database;
  let db: Kysely<any>;

  beforeEach(() => {
    sqlite = new SQLite(":memory:");
    sqlite.exec("create table notes (note_id text primary key, display_title text, word_count integer, body blob)");
    db = new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }), plugins: [new QuireCamelCasePlugin()] });
  });
  afterEach(async () => {
    await db.destroy();
  });

  it("read rows exactly as better-sqlite3 and the CamelCasePlugin did", async () => {
    await db
      .insertInto("notes")
      .values({ noteId: "n1", displayTitle: "One", wordCount: 3, body: Buffer.from([1, 2]) })
      .execute();
    await db.insertInto("notes").values({ noteId: "n2", displayTitle: null, wordCount: 0, body: null }).execute();
    const rows = await db.selectFrom("notes").selectAll().orderBy("noteId").execute();
    const before = await new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }), plugins: [new CamelCasePlugin()] })
      .selectFrom("notes")
      .selectAll()
      .orderBy("noteId")
      .execute();
    expect(rows).toEqual(before);
    expect(rows[0]).toEqual({ noteId: "n1", displayTitle: "One", wordCount: 3, body: Buffer.from([1, 2]) });
  });

  it("key aliases, RETURNING rows and raw SQL in camelCase too", async () => {
    const [inserted] = await db
      .insertInto("notes")
      .values({ noteId: "n3", wordCount: 7 })
      .returning(["noteId", "wordCount as totalWords"])
      .execute();
    expect(inserted).toEqual({ noteId: "n3", totalWords: 7 });
    const { rows } = await sql<{ noteCount: number }>`select count(*) as note_count from notes`.execute(db);
    expect(rows).toEqual([{ noteCount: 1 }]);
  });

  it("stream rows in camelCase", async () => {
    await db
      .insertInto("notes")
      .values([
        { noteId: "a", wordCount: 1 },
        { noteId: "b", wordCount: 2 },
      ])
      .execute();
    const streamed: unknown[] = [];
    for await (const row of db.selectFrom("notes").select(["noteId", "wordCount"]).orderBy("noteId").stream()) streamed.push(row);
    expect(streamed).toEqual([
      { noteId: "a", wordCount: 1 },
      { noteId: "b", wordCount: 2 },
    ]);
  });
});

describe("QuireCamelCasePlugin", () => {
  it("still converts rows that did not come from a SQLite statement (PostgreSQL's)", async () => {
    const plugin = new QuireCamelCasePlugin();
    const result = await plugin.transformResult({ queryId: { queryId: "q" }, result: { rows: [{ note_id: "n", word_count: 2 }] } });
    expect(result.rows).toEqual([{ noteId: "n", wordCount: 2 }]);
  });
});
