#!/usr/bin/env node
// The build (`npm run build`, run by `npm install` too) and `npm start`'s prestart, which builds only
// when a source is newer than the last build: a start with current built files costs no compile
// (tsc takes 5-17 s on a small machine even when incremental). A source is any file under src/
// (tests aside) or a file the build reads. The stamp carries the time the last build started, so an
// edit made while it ran still counts as newer.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const stamp = path.join(root, "dist", ".build-stamp");
const BUILD_INPUTS = ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json"];

function newestSource() {
  let newest = 0;
  for (const entry of readdirSync(path.join(root, "src"), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith(".test.ts")) continue;
    newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  for (const file of BUILD_INPUTS) {
    const full = path.join(root, file);
    if (existsSync(full)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

const always = process.argv.includes("--always");
const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
if (!always && built > 0 && newestSource() < built) process.exit(0);
const started = new Date();
const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
if (result.status !== 0) process.exit(result.status ?? 1);
writeFileSync(stamp, `${started.toISOString()}\n`);
utimesSync(stamp, started, started);
