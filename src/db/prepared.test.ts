/**
 * `prepared` reads, and on SQLite their row cache: a cached read must never return rows the
 * database no longer holds, whoever changed them.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase, testDialect } from "../../test/helpers/db.js";
import { prepared } from "./prepared.js";
import type { Database } from "./schema.js";

const run = promisify(execFile);
let handle: TestDatabase;

beforeAll(async () => {
  handle = await createTestDatabase();
});
afterAll(async () => {
  await handle.cleanup();
});

const now = "2026-01-01T00:00:00.000Z";

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
    const update = "update users set display_name = 'Theirs' where id = 'u-other'";
    const script = handle.location.sqlitePath
      ? `new (require("better-sqlite3"))(process.env.TARGET).prepare(${JSON.stringify(update)}).run()`
      : `const c = new (require("pg").Client)(process.env.TARGET); c.connect().then(() => c.query(${JSON.stringify(update)})).then(() => c.end())`;
    await run(process.execPath, ["-e", script], { env: { ...process.env, TARGET: handle.location.sqlitePath ?? handle.location.databaseUrl } });
    expect((await userName(handle.db, { id: "u-other" }))[0]?.displayName).toBe("Theirs");
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

  it.runIf(testDialect() === "sqlite")("share cached rows frozen, so no caller can alter another's", async () => {
    await insertUser(handle.db, "u-frozen", "Frozen");
    const [row] = await userName(handle.db, { id: "u-frozen" });
    expect(Object.isFrozen(row)).toBe(true);
    expect(() => {
      (row as { displayName: string }).displayName = "Changed";
    }).toThrow(TypeError);
    expect((await userName(handle.db, { id: "u-frozen" }))[0]?.displayName).toBe("Frozen");
  });
});
