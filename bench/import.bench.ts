/**
 * Git import throughput: a generated GitBook repository (N pages, M PNG images) imported through
 * the real job (clone over file://, read, convert, store, commit, reindex). Prints pages/s and the
 * process's peak resident memory. Usage: tsx bench/import.bench.ts [pages] [images]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { initOrganization, loadInstanceSecret } from "../src/bootstrap.js";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { importGeneratedRepo } from "./seed.js";

const pages = Number(process.argv[2] ?? 1000);
const images = Number(process.argv[3] ?? 2000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-bench-import-"));
const handle = openDatabase({ sqlitePath: path.join(dataDir, "quire.db") });
await migrateToLatest(handle.db);
const { organization, user } = await handle.db.transaction().execute((trx) => initOrganization(trx, { orgTitle: "Bench", email: "b@bench.test", name: "B" }));
const spaceId = "benchimportspace0001";
const now = new Date().toISOString();
const revisionId = "benchimportrevision1";
await handle.db.insertInto("spaces").values({
  id: spaceId, orgId: organization.id, parentId: null, title: "Import", emoji: "", iconUrl: null, visibility: "private", editMode: "live",
  defaultLevel: "inherit", language: null, mergeRules: JSON.stringify({ type: "inherit" }), revisionId, position: "a0", gitSync: null,
  visitorAuth: null, createdBy: user.id, deletedAt: null, deletedBy: null, createdAt: now, updatedAt: now,
}).execute();
await handle.db.insertInto("revisions").values({ id: revisionId, spaceId, parents: "[]", type: "edits", treeHash: null, git: null, mergedFrom: null, createdBy: user.id, createdAt: now }).execute();

const baseline = process.memoryUsage().rss;
let peak = baseline;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const { ms, repo } = await importGeneratedRepo(
  { db: handle.db, dialect: handle.dialect, config: loadConfig({ QUIRE_DATA_DIR: dataDir }), secret: await loadInstanceSecret(handle.db) },
  { spaceId, actorId: user.id, pages, images },
);
clearInterval(sampler);
peak = Math.max(peak, process.resourceUsage().maxRSS * 1024);
repo.cleanup();
await handle.destroy();
fs.rmSync(dataDir, { recursive: true, force: true });
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
console.log(
  `import of ${pages} pages + ${images} images: ${(ms / 1000).toFixed(2)} s, ${(pages / (ms / 1000)).toFixed(0)} pages/s, peak RSS ${mb(peak)} (before: ${mb(baseline)})`,
);
