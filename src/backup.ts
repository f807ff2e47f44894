/**
 * `quire backup <file>` and `quire restore <file>` on SQLite.
 *
 * A backup is one SQLite database file: a consistent copy of the live database made with SQLite's
 * online backup API while the server runs (its writes continue; the copy is the database as it was
 * at one instant). Stored files (uploads, imported images, rendered PDFs) are rows of that database
 * (`content_blobs`), so the copy holds them too; nothing else in the data directory needs saving
 * (`admin-token` is the first owner's token, shown once).
 *
 * On PostgreSQL, pg_dump and pg_restore do the same job (see POSTGRES_BACKUP_HELP and the README).
 */
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { createPrivateFile } from "./db/database.js";
import { randomBase62 } from "./lib/ids.js";

export const POSTGRES_BACKUP_HELP = [
  "On PostgreSQL, back up and restore with pg_dump and pg_restore (consistent while the server runs):",
  '  pg_dump --format=custom --file=quire.dump "$DATABASE_URL"',
  '  pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" quire.dump   # servers stopped',
].join("\n");

export class BackupError extends Error {}

export interface BackupSummary {
  file: string;
  bytes: number;
  revisions: number;
  files: number;
}

/** Pages copied per step after the first: everything, so that concurrent writes cannot restart the copy forever. */
const ALL_PAGES = 1_000_000_000;

function summarize(db: SQLite.Database, file: string): BackupSummary {
  const count = (table: string) => (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
  return { file, bytes: fs.statSync(file).size, revisions: count("revisions"), files: count("content_blobs") };
}

/** Checks that `db` is a sound Quire database; throws BackupError naming what is wrong. */
function checkQuireDatabase(db: SQLite.Database, what: string): void {
  let integrity: string;
  try {
    integrity = (db.pragma("integrity_check", { simple: true }) as string) ?? "";
  } catch (error) {
    throw new BackupError(`${what} is not an SQLite database (${(error as Error).message}).`);
  }
  if (integrity !== "ok") throw new BackupError(`${what} is damaged: ${integrity}`);
  const tables = new Set(
    (db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((r) => r.name),
  );
  for (const table of ["kysely_migration", "revisions", "content_blobs", "settings"]) {
    if (!tables.has(table)) throw new BackupError(`${what} is not a Quire database (no "${table}" table).`);
  }
}

/** Files SQLite may make beside a database (a killed copy leaves them too). */
const SIDE_FILES = ["", "-journal", "-wal", "-shm"];

/**
 * A copy in progress: `<file>.<pid>-<random>.quire-partial` beside the backup file (a rename within
 * one directory is atomic, so the backup file is either the previous one or the new complete one).
 */
const PARTIAL = /^(.+)\.(\d+)-[A-Za-z0-9]{8}\.quire-partial(-journal|-wal|-shm)?$/;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user has this pid; it may be a backup still running.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes what killed backups left in `dir`: their copies in progress (of any backup file there),
 * once the process that made them is gone, and the `<file>.partial` of earlier versions for `target`.
 */
function removeStalePartials(dir: string, target: string): void {
  for (const name of fs.readdirSync(dir)) {
    const match = PARTIAL.exec(name);
    if (match && !processAlive(Number(match[2]))) fs.rmSync(path.join(dir, name), { force: true });
  }
  for (const side of SIDE_FILES) fs.rmSync(`${target}.partial${side}`, { force: true });
}

/**
 * Copies the live database at `sourcePath` into `file` (mode 0600: it holds the instance key),
 * replacing it only once the copy is complete and checked.
 */
export async function backupSqlite(sourcePath: string, file: string): Promise<BackupSummary> {
  if (!fs.existsSync(sourcePath)) throw new BackupError(`No database at ${sourcePath} (check QUIRE_DATA_DIR).`);
  const target = path.resolve(file);
  const dir = path.dirname(target);
  if (!fs.existsSync(dir)) throw new BackupError(`No directory ${dir} to write the backup in.`);
  removeStalePartials(dir, target);
  const partial = `${target}.${process.pid}-${randomBase62(8)}.quire-partial`;
  createPrivateFile(partial);
  let renamed = false;
  try {
    const source = new SQLite(sourcePath, { fileMustExist: true });
    try {
      source.pragma("busy_timeout = 10000");
      await source.backup(partial, { progress: () => ALL_PAGES });
    } finally {
      source.close();
    }
    const copy = new SQLite(partial);
    try {
      // One self-contained file, whatever the live database's journal mode.
      copy.pragma("journal_mode = DELETE");
      checkQuireDatabase(copy, "The copy");
    } finally {
      copy.close();
    }
    fs.renameSync(partial, target);
    renamed = true;
  } finally {
    if (!renamed) for (const side of SIDE_FILES) fs.rmSync(`${partial}${side}`, { force: true });
  }
  const check = new SQLite(target, { readonly: true, fileMustExist: true });
  try {
    return summarize(check, target);
  } finally {
    check.close();
  }
}

/**
 * Replaces the database at `targetPath` with the backup `file`, through SQLite's backup API (so a
 * process that still has the database open sees either the old or the restored database, never a
 * mix). Stop servers and workers first: work they do meanwhile is lost.
 */
export async function restoreSqlite(file: string, targetPath: string): Promise<BackupSummary> {
  const source = path.resolve(file);
  if (!fs.existsSync(source)) throw new BackupError(`No backup file at ${source}.`);
  let backup: SQLite.Database;
  try {
    backup = new SQLite(source, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`${source} is not an SQLite database (${(error as Error).message}).`);
  }
  try {
    checkQuireDatabase(backup, `The backup ${source}`);
    createPrivateFile(targetPath);
    await backup.backup(targetPath, { progress: () => ALL_PAGES });
  } finally {
    backup.close();
  }
  const restored = new SQLite(targetPath, { fileMustExist: true });
  try {
    restored.pragma("journal_mode = WAL");
    return summarize(restored, targetPath);
  } finally {
    restored.close();
  }
}
