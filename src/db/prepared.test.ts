/**
 * `prepared` reads, and on SQLite their row cache: a cached read must never return rows the
 * database no longer holds, whoever changed them.
 */
import { execFile, execFileSync } from "node:child_process";
import { setImmediate as nextEvent } from "node:timers/promises";
import { promisify } from "node:util";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase, testDialect } from "../../test/helpers/db.js";
import { tableVersionsOf } from "./database.js";
import { derivedFromCached, prepared } from "./prepared.js";
import type { Database } from "./schema.js";

const run = promisify(execFile);
let handle: TestDatabase;

beforeAll(async () => {
  handle = await createTestDatabase();
  // On PostgreSQL rows are kept only while the change feed listens (db/change-feed.ts): wait for it.
  for (let waited = 0; testDialect() === "postgres" && !tableVersionsOf(handle.db)?.listening && waited < 10_000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
});
afterAll(async () => {
  await handle.cleanup();
});

const now = "2026-01-01T00:00:00.000Z";

/** PostgreSQL: until no change has come through the feed for 100 ms (at most 10 s). SQLite: at once. */
async function feedSettled(): Promise<void> {
  const versions = tableVersionsOf(handle.db);
  if (!versions) return;
  let seen = -1;
  for (let waited = 0; waited < 10_000 && versions.changes !== seen; waited += 100) {
    seen = versions.changes;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function insertUser(db: Kysely<Database>, id: string, displayName: string) {
  await db
    .insertInto("users")
    .values({ id, displayName, email: `${id}@example.test`, createdAt: now, updatedAt: now } as never)
    .execute();
}

const userName = prepared<{ id: string }, { id: string; displayName: string }>(
  (db, param) => (db as Kysely<Database>).selectFrom("users").select(["id", "displayName"]).where("id", "=", param("id")),
  { cache: true },
);

const uncachedUserName = prepared<{ id: string }, { id: string; displayName: string }>((db, param) =>
  (db as Kysely<Database>).selectFrom("users").select(["id", "displayName"]).where("id", "=", param("id")),
);

/** Two values, each used twice in the SQL, whose order matters. */
const userPair = prepared<{ first: string; second: string }, { displayName: string }>(
  (db, param) =>
    (db as Kysely<Database>)
      .selectFrom("users")
      .select("displayName")
      .where((eb) => eb.or([eb("id", "=", param("first")), eb("id", "=", param("second"))]))
      .orderBy(sql`case when ${sql.ref("id")} = ${param("first")} then 0 when ${sql.ref("id")} = ${param("second")} then 1 end`),
  { cache: true },
);

/** One value used twice. */
const userTwice = prepared<{ id: string }, { displayName: string }>(
  (db, param) =>
    (db as Kysely<Database>)
      .selectFrom("users")
      .select("displayName")
      .where("id", "=", param("id"))
      .where(sql<boolean>`${sql.ref("id")} = ${param("id")}`),
  { cache: true },
);

/** A list of ids as one parameter. */
const usersByIds = prepared<{ ids: readonly string[] }, { id: string }>((db, _param, list) =>
  (db as Kysely<Database>).selectFrom("users").select("id").where("id", "in", list("ids")),
);

/** The same, with its rows kept. */
const cachedUsersByIds = prepared<{ ids: readonly string[] }, { id: string }>(
  (db, _param, list) => (db as Kysely<Database>).selectFrom("users").select("id").where("id", "in", list("ids")),
  { cache: true },
);

/** A script for a second process that renames a user and commits. */
function anotherProcessRenames(id: string, name: string): string {
  const update = `update users set display_name = '${name}' where id = '${id}'`;
  return handle.location.sqlitePath
    ? `new (require("better-sqlite3"))(process.env.TARGET).prepare(${JSON.stringify(update)}).run()`
    : `const c = new (require("pg").Client)(process.env.TARGET); c.connect().then(() => c.query(${JSON.stringify(update)})).then(() => c.end())`;
}

function anotherProcessEnv() {
  return { ...process.env, TARGET: handle.location.sqlitePath ?? handle.location.databaseUrl };
}

describe("prepared reads", () => {
  it("return rows with camelCase keys, as Kysely's own reads do", async () => {
    await insertUser(handle.db, "u-keys", "Keys");
    const [row] = await uncachedUserName(handle.db, { id: "u-keys" });
    expect(row).toEqual({ id: "u-keys", displayName: "Keys" });
    const viaKysely = await handle.db.selectFrom("users").select(["id", "displayName"]).where("id", "=", "u-keys").executeTakeFirst();
    expect(row).toEqual(viaKysely);
  });

  it("see an update made through the same connection", async () => {
    await insertUser(handle.db, "u-update", "Before");
    expect((await userName(handle.db, { id: "u-update" }))[0]?.displayName).toBe("Before");
    await handle.db.updateTable("users").set({ displayName: "After" }).where("id", "=", "u-update").execute();
    expect((await userName(handle.db, { id: "u-update" }))[0]?.displayName).toBe("After");
  });

  it("see rows inserted and deleted after a read that found nothing", async () => {
    expect(await userName(handle.db, { id: "u-later" })).toEqual([]);
    await insertUser(handle.db, "u-later", "Later");
    expect(await userName(handle.db, { id: "u-later" })).toHaveLength(1);
    await handle.db.deleteFrom("users").where("id", "=", "u-later").execute();
    expect(await userName(handle.db, { id: "u-later" })).toEqual([]);
  });

  it("see a committed transaction, and nothing of a rolled-back one", async () => {
    await insertUser(handle.db, "u-trx", "Start");
    expect((await userName(handle.db, { id: "u-trx" }))[0]?.displayName).toBe("Start");
    await handle.db.transaction().execute(async (trx) => {
      await trx.updateTable("users").set({ displayName: "Committed" }).where("id", "=", "u-trx").execute();
      // Inside the transaction the read takes the transaction's view.
      expect((await userName(trx, { id: "u-trx" }))[0]?.displayName).toBe("Committed");
    });
    expect((await userName(handle.db, { id: "u-trx" }))[0]?.displayName).toBe("Committed");
    await expect(
      handle.db.transaction().execute(async (trx) => {
        await trx.updateTable("users").set({ displayName: "Rolled back" }).where("id", "=", "u-trx").execute();
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect((await userName(handle.db, { id: "u-trx" }))[0]?.displayName).toBe("Committed");
  });

  it("see a write committed by another process", async () => {
    await insertUser(handle.db, "u-other", "Mine");
    expect((await userName(handle.db, { id: "u-other" }))[0]?.displayName).toBe("Mine");
    await run(process.execPath, ["-e", anotherProcessRenames("u-other", "Theirs")], { env: anotherProcessEnv() });
    // SQLite: at once (data_version). PostgreSQL: once the change feed's notification has arrived.
    await expect
      .poll(async () => (await userName(handle.db, { id: "u-other" }))[0]?.displayName, { timeout: 10_000, interval: 5 })
      .toBe("Theirs");
  });

  it.runIf(testDialect() === "sqlite")(
    "check for other processes' commits once per event: one made while an event is handled is seen from the next event on",
    async () => {
      await insertUser(handle.db, "u-event", "Before");
      const read = async () => (await userName(handle.db, { id: "u-event" }))[0]?.displayName;
      const duringOneEvent = await new Promise<(string | undefined)[]>((resolve, reject) => {
        setImmediate(() => {
          // The event's synchronous part reads first, as a request's authentication does; its
          // later reads run as microtasks, as the route handler's do.
          const first = read();
          // Synchronous: the other process commits while this event is being handled.
          execFileSync(process.execPath, ["-e", anotherProcessRenames("u-event", "After")], { env: anotherProcessEnv() });
          Promise.all([first, first.then(read)]).then(resolve, reject);
        });
      });
      expect(duringOneEvent).toEqual(["Before", "Before"]);
      await nextEvent();
      expect(await read()).toBe("After");
    },
  );

  it("take a list of values as one parameter, whatever the values hold", async () => {
    const awkward = ["u-list-1", `u-"quoted"`, "u-{braces},comma", "u-back\\slash", "u-'single'", "u-NULL", "u-ünï"];
    for (const id of awkward) await insertUser(handle.db, id, id);
    const ids = async (list: readonly string[]) => (await usersByIds(handle.db, { ids: list })).map((row) => row.id).sort();
    expect(await ids(awkward)).toEqual([...awkward].sort());
    expect(await ids(["u-list-1", "u-list-1", "missing"])).toEqual(["u-list-1"]);
    expect(await ids([])).toEqual([]);
    // The SQL is compiled once for any length.
    expect(await ids(awkward.slice(0, 2))).toEqual(awkward.slice(0, 2).sort());
  });

  it("key cached rows of a list by the list's values", async () => {
    await insertUser(handle.db, "u-cached-list-a", "A");
    await insertUser(handle.db, "u-cached-list-b", "B");
    const ids = async (list: string[]) => (await cachedUsersByIds(handle.db, { ids: list })).map((row) => row.id).sort();
    expect(await ids(["u-cached-list-a"])).toEqual(["u-cached-list-a"]);
    expect(await ids(["u-cached-list-b"])).toEqual(["u-cached-list-b"]);
    expect(await ids(["u-cached-list-a", "u-cached-list-b"])).toEqual(["u-cached-list-a", "u-cached-list-b"]);
    expect(await ids(["u-cached-list-a"])).toEqual(["u-cached-list-a"]);
  });

  it("key cached rows by every value a query takes, however often its SQL uses each", async () => {
    await insertUser(handle.db, "u-pair-a", "A");
    await insertUser(handle.db, "u-pair-b", "B");
    const names = async (first: string, second: string) =>
      (await userPair(handle.db, { first, second })).map((row) => row.displayName).join(",");
    expect(await names("u-pair-a", "u-pair-b")).toBe("A,B");
    expect(await names("u-pair-b", "u-pair-a")).toBe("B,A");
    expect(await names("u-pair-a", "u-pair-a")).toBe("A");
    expect(await userTwice(handle.db, { id: "u-pair-a" })).toEqual([{ displayName: "A" }]);
    expect(await userTwice(handle.db, { id: "u-pair-b" })).toEqual([{ displayName: "B" }]);
  });

  it("keep databases apart: the same query on two databases returns each one's rows", async () => {
    const second = await createTestDatabase();
    try {
      await insertUser(handle.db, "u-shared-id", "First");
      await insertUser(second.db, "u-shared-id", "Second");
      expect((await userName(handle.db, { id: "u-shared-id" }))[0]?.displayName).toBe("First");
      expect((await userName(second.db, { id: "u-shared-id" }))[0]?.displayName).toBe("Second");
    } finally {
      await second.cleanup();
    }
  });

  it("share cached rows frozen, so no caller can alter another's", async () => {
    await insertUser(handle.db, "u-frozen", "Frozen");
    const [row] = await userName(handle.db, { id: "u-frozen" });
    expect(Object.isFrozen(row)).toBe(true);
    expect(() => {
      (row as { displayName: string }).displayName = "Changed";
    }).toThrow(TypeError);
    expect((await userName(handle.db, { id: "u-frozen" }))[0]?.displayName).toBe("Frozen");
  });
});

describe("derivedFromCached", () => {
  it("derives once per cached row, and again once the row has changed", async () => {
    await insertUser(handle.db, "u-derived", "First");
    // PostgreSQL: the insert's own notification comes back through the feed a moment later and
    // retires the table's rows once more; wait for it, so that the two reads below see one state.
    await feedSettled();
    let calls = 0;
    const shout = derivedFromCached((row: { displayName: string }) => {
      calls++;
      return row.displayName.toUpperCase();
    });
    const read = async () => shout((await userName(handle.db, { id: "u-derived" }))[0]!);
    expect(await read()).toBe("FIRST");
    expect(await read()).toBe("FIRST");
    // Cached (frozen) rows are derived once.
    expect(calls).toBe(1);
    await handle.db.updateTable("users").set({ displayName: "Second" }).where("id", "=", "u-derived").execute();
    expect(await read()).toBe("SECOND");
    expect(calls).toBe(2);
  });

  it("derives from rows that are not frozen on every call", () => {
    let calls = 0;
    const count = derivedFromCached((_row: object) => ++calls);
    const row = { id: "x" };
    expect([count(row), count(row)]).toEqual([1, 2]);
  });
});
