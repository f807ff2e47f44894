/**
 * Backups (issue 14, item 7): `quire backup` copies the live SQLite database while the server
 * writes, and `quire restore` brings it back with every revision committed before the backup began
 * (and, the copy being one instant's database, no revision without those committed before it).
 * On PostgreSQL both commands point to pg_dump and pg_restore.
 */
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putBlob } from "../../src/content/store/blobs.queries.js";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { createTestContext, type TestContext } from "../helpers/app.js";
import { testDialect } from "../helpers/db.js";
import { createOrgWithSpace } from "../helpers/spaces.factories.js";

let ctx: TestContext;
let work: string;
beforeAll(async () => {
  ctx = await createTestContext();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "quire-backup-"));
});
afterAll(async () => {
  await ctx.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/**
 * Runs the real command line in a child process, under the usual umask 022 (files a program
 * creates without choosing a mode come out 0644 there).
 */
function quireChild(args: string[], env: Record<string, string>) {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const child = spawn("sh", ["-c", 'umask 022 && exec "$0" "$@"', process.execPath, "--import", "tsx", "src/cli.ts", ...args], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    env: { ...inherited, LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (err += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, out, err })),
  );
  return { child, done };
}

function quire(args: string[], env: Record<string, string>) {
  return quireChild(args, env).done;
}

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;
const sha256 = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

const revisionIds = (file: string) => {
  const db = new SQLite(file, { readonly: true });
  try {
    return new Set((db.prepare("select id from revisions").all() as { id: string }[]).map((r) => r.id));
  } finally {
    db.close();
  }
};

describe.runIf(testDialect() === "sqlite")("quire backup and quire restore (SQLite)", () => {
  it("restore a backup taken during writes with every committed revision and stored file", async () => {
    const { org, owner, space } = await createOrgWithSpace(ctx);
    const stored = await putBlob(ctx.db, Buffer.from("a stored file"));
    const sqlitePath = ctx.database.location.sqlitePath as string;
    const dataDir = path.dirname(sqlitePath);
    const file = path.join(work, "quire.backup");

    // Revisions committed one after another, in this order, while the backup runs.
    const committed: string[] = [space.revision];
    let backupDone = false;
    const writer = (async () => {
      for (let i = 0; !backupDone; i++) {
        const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/spaces`, { title: `During backup ${i}` });
        expect(res.status).toBe(201);
        committed.push(res.body.revision);
      }
    })();
    const committedBeforeBackup = committed.length;
    const backup = await quire(["backup", file, "--json"], { QUIRE_DATA_DIR: dataDir });
    backupDone = true;
    await writer;
    expect(backup.code, backup.err).toBe(0);
    const summary = JSON.parse(backup.out);
    expect(summary).toMatchObject({ file, revisions: expect.any(Number), files: expect.any(Number) });
    expect(summary.bytes).toBe(fs.statSync(file).size);
    // Writes really went on during the backup.
    expect(committed.length).toBeGreaterThan(committedBeforeBackup + 1);

    const restoredDir = path.join(work, "restored");
    const restore = await quire(["restore", file, "--json"], { QUIRE_DATA_DIR: restoredDir });
    expect(restore.code, restore.err).toBe(0);
    const restoredPath = path.join(restoredDir, "quire.db");
    expect(JSON.parse(restore.out)).toMatchObject({ file: restoredPath, revisions: summary.revisions, files: summary.files });

    const present = revisionIds(restoredPath);
    // Every revision committed before the backup began...
    for (const id of committed.slice(0, committedBeforeBackup)) expect(present.has(id), id).toBe(true);
    // ...and the copy is one instant's database: the revisions it has are a prefix of the commit order.
    const flags = committed.map((id) => present.has(id));
    const firstMissing = flags.indexOf(false);
    if (firstMissing >= 0) expect(flags.slice(firstMissing).every((f) => !f)).toBe(true);
    expect(present.size).toBe(summary.revisions);

    const restored = new SQLite(restoredPath, { readonly: true });
    try {
      const blob = restored.prepare("select data from content_blobs where hash = ?").get(stored.hash) as { data: Buffer };
      expect(Buffer.from(blob.data).toString()).toBe("a stored file");
      expect(restored.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      restored.close();
    }
  });

  it("refuse a file that is not a Quire backup, and leave the database alone", async () => {
    const bogus = path.join(work, "bogus.backup");
    fs.writeFileSync(bogus, "not a database at all, just some text that is long enough to have a header........");
    const dataDir = path.join(work, "untouched");
    const res = await quire(["restore", bogus], { QUIRE_DATA_DIR: dataDir });
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/^error: .*bogus\.backup is not an SQLite database/);
    expect(fs.existsSync(path.join(dataDir, "quire.db"))).toBe(false);
  });
});

describe.runIf(testDialect() === "sqlite")("files that hold the instance key (SQLite)", () => {
  it("a new database is 0600 with its -wal and -shm files, in a data directory created 0700", async () => {
    const dataDir = path.join(work, "fresh", "data");
    const file = path.join(dataDir, "quire.db");
    const umask = process.umask(0o022);
    try {
      const handle = openDatabase({ sqlitePath: file });
      try {
        await migrateToLatest(handle.db);
        // While the database is open and written, SQLite keeps its -wal and -shm files beside it.
        expect([file, `${file}-wal`, `${file}-shm`].map((f) => modeOf(f).toString(8))).toEqual(["600", "600", "600"]);
      } finally {
        await handle.destroy();
      }
    } finally {
      process.umask(umask);
    }
    expect(modeOf(dataDir).toString(8)).toBe("700");
    expect(modeOf(path.dirname(dataDir)).toString(8)).toBe("700");
  });

  it("quire backup writes a 0600 file, and quire restore a 0600 database in a data directory created 0700", async () => {
    const dataDir = path.dirname(ctx.database.location.sqlitePath as string);
    const file = path.join(work, "private.backup");
    const backup = await quire(["backup", file], { QUIRE_DATA_DIR: dataDir });
    expect(backup.code, backup.err).toBe(0);
    expect(modeOf(file).toString(8)).toBe("600");
    // Replacing an existing file that others could read gives a private one.
    fs.chmodSync(file, 0o644);
    expect((await quire(["backup", file], { QUIRE_DATA_DIR: dataDir })).code).toBe(0);
    expect(modeOf(file).toString(8)).toBe("600");

    const restoredDir = path.join(work, "restored-private", "data");
    const restore = await quire(["restore", file], { QUIRE_DATA_DIR: restoredDir });
    expect(restore.code, restore.err).toBe(0);
    expect(modeOf(path.join(restoredDir, "quire.db")).toString(8)).toBe("600");
    expect(modeOf(restoredDir).toString(8)).toBe("700");
  });

  it("a killed backup leaves the previous backup file whole, and the next backup removes what it left", async () => {
    const big = await createTestContext();
    try {
      // Enough to copy for a while: the backup is killed as soon as its copy appears.
      for (let i = 0; i < 6; i++) await putBlob(big.db, randomBytes(8 * 1024 * 1024));
      const env = { QUIRE_DATA_DIR: path.dirname(big.database.location.sqlitePath as string) };
      const dir = fs.mkdtempSync(path.join(work, "killed-"));
      const target = path.join(dir, "quire.backup");
      expect((await quire(["backup", target], env)).code).toBe(0);
      const previous = sha256(target);

      let killed = false;
      for (let attempt = 0; attempt < 5 && !killed; attempt++) {
        const { child, done } = quireChild(["backup", target], env);
        const watcher = fs.watch(dir, (_event, name) => {
          if (name && name !== "quire.backup" && name.startsWith("quire.backup.")) child.kill("SIGKILL");
        });
        killed = (await done).signal === "SIGKILL";
        watcher.close();
      }
      expect(killed).toBe(true);
      expect(fs.readdirSync(dir).filter((name) => name !== "quire.backup").length).toBeGreaterThan(0);
      expect(sha256(target)).toBe(previous);

      // The next backup, to another file of the same directory, removes what the killed one left.
      const next = await quire(["backup", path.join(dir, "other.backup")], env);
      expect(next.code, next.err).toBe(0);
      expect(fs.readdirSync(dir).sort()).toEqual(["other.backup", "quire.backup"]);
    } finally {
      await big.close();
    }
  }, 180_000);
});

describe.runIf(testDialect() === "postgres")("quire backup and quire restore (PostgreSQL)", () => {
  it("point to pg_dump and pg_restore", async () => {
    const url = ctx.database.location.databaseUrl as string;
    for (const command of ["backup", "restore"]) {
      const res = await quire([command, path.join(work, "x")], { DATABASE_URL: url, QUIRE_DATA_DIR: work });
      expect(res.code).toBe(1);
      expect(res.err).toContain('pg_dump --format=custom --file=quire.dump "$DATABASE_URL"');
    }
  });
});
