/**
 * Which test files are database tests, by rule rather than by a hand-kept list (vitest.config.ts
 * runs database tests on SQLite and again on PostgreSQL, and every other test file once).
 *
 * The rule: a test file is a database test when it, or any repository file it imports (directly or
 * through other files, by static import, re-export or a literal dynamic `import()`), reads one of
 * the test database switches from the environment (`process.env.` then QUIRE_TEST_DIALECT or
 * QUIRE_TEST_DATABASE_URL): that is what test/helpers/db.ts does to open a test database, and
 * test/helpers/app.ts imports it. Any other test file is database-free. Imports are read with
 * TypeScript's parser, so an import written in a comment or a string does not count. A database
 * reached some other way (a computed `import(name)`) is caught at run time: the database-free
 * project runs with QUIRE_TEST_DIALECT=none, and test/helpers/db.ts refuses to open a database there.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/** Reading a database switch from the environment (written so that this file does not match it). */
const READS_SWITCH = /process\.env(?:\.|\[["'`])QUIRE_TEST_(?:DIALECT|DATABASE_URL)\b/;

const TEST_DIRS = ["src", "test"];
const SOURCE_EXTENSIONS = [".ts", ".mts", ".mjs", ".js"];

export interface Classification {
  /** Repository-relative paths of the database tests, sorted. */
  database: string[];
  /** Repository-relative paths of the other test files, sorted. */
  databaseFree: string[];
  /** For each database test, a chain of imports from it to a file that reads a switch. */
  reasons: Record<string, string[]>;
}

/** The test files of `root`: src/**\/*.test.ts and test/**\/*.test.ts, repository-relative, sorted. */
export function testFiles(root: string): string[] {
  const files: string[] = [];
  for (const dir of TEST_DIRS) {
    if (!existsSync(join(root, dir))) continue;
    for (const entry of readdirSync(join(root, dir), { recursive: true })) {
      const file = String(entry);
      if (file.endsWith(".test.ts") && !file.split(sep).includes("node_modules")) files.push(`${dir}/${file.split(sep).join("/")}`);
    }
  }
  return files.sort();
}

/** The repository file a relative specifier names (`./a.js` is `./a.ts` in this code base), or undefined. */
function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base];
  const withoutJs = base.replace(/\.m?js$/, "");
  if (withoutJs !== base) candidates.push(`${withoutJs}.ts`, `${withoutJs}.mts`);
  for (const extension of SOURCE_EXTENSIONS) candidates.push(`${base}${extension}`);
  for (const extension of SOURCE_EXTENSIONS) candidates.push(join(base, `index${extension}`));
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** Classifies the test files of `root` (default: this repository). */
export function classifyTestFiles(root = resolve(import.meta.dirname, "..")): Classification {
  const tests = testFiles(root).map((file) => join(root, file));
  // Every file reachable from a test file: its imports, and whether it reads a switch.
  const imports = new Map<string, string[]>();
  const readsSwitch = new Set<string>();
  const pending = [...tests];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (imports.has(file)) continue;
    const text = readFileSync(file, "utf8");
    if (READS_SWITCH.test(text)) readsSwitch.add(file);
    const targets: string[] = [];
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const target = resolveSpecifier(file, fileName);
      if (target && !target.split(sep).includes("node_modules")) targets.push(target);
    }
    imports.set(file, targets);
    pending.push(...targets);
  }
  // Backwards from the files that read a switch: every file that reaches one, and its next step there.
  const importers = new Map<string, string[]>();
  for (const [file, targets] of imports) for (const target of targets) importers.set(target, [...(importers.get(target) ?? []), file]);
  const next = new Map<string, string | null>([...readsSwitch].map((file) => [file, null]));
  const queue = [...readsSwitch];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const importer of importers.get(file) ?? []) {
      if (next.has(importer)) continue;
      next.set(importer, file);
      queue.push(importer);
    }
  }
  const name = (file: string) => relative(root, file).split(sep).join("/");
  const result: Classification = { database: [], databaseFree: [], reasons: {} };
  for (const file of tests) {
    if (!next.has(file)) {
      result.databaseFree.push(name(file));
      continue;
    }
    result.database.push(name(file));
    const chain: string[] = [];
    for (let step: string | null | undefined = file; step; step = next.get(step)) chain.push(name(step));
    result.reasons[name(file)] = chain;
  }
  return result;
}
