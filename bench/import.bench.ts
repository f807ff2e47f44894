/**
 * Git import throughput through the real job (clone over file://, read, convert, store, commit,
 * reindex). Prints pages/s and the process's peak resident memory.
 *
 *   tsx bench/import.bench.ts [pages] [images]          a generated repository (default 1000 2000)
 *   tsx bench/import.bench.ts <git dir or URL> [ref] [project directory]    a real repository
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { initOrganization, loadInstanceSecret } from "../src/bootstrap.js";
import { loadConfig } from "../src/config.js";
import type { PageNode } from "../src/content/revision/model.js";
import { loadContent } from "../src/content/revision/storage.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { createSpace } from "../src/modules/spaces/spaces.service.js";
import { loadOrgAccess } from "../src/permissions/access.js";
import { closeWorkerThreads, configureWorkerThreads } from "../src/workers/pool.js";
import { importGeneratedRepo, importRepo } from "./seed.js";

const realRepo = process.argv[2] !== undefined && !/^\d+$/.test(process.argv[2]) ? process.argv[2] : undefined;
const pages = realRepo ? 0 : Number(process.argv[2] ?? 1000);
const images = realRepo ? 0 : Number(process.argv[3] ?? 2000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-bench-import-"));
const handle = openDatabase({ sqlitePath: path.join(dataDir, "quire.db") });
await migrateToLatest(handle.db);
const { organization, user } = await handle.db
  .transaction()
  .execute((trx) => initOrganization(trx, { orgTitle: "Bench", email: "b@bench.test", name: "B" }));
const access = await loadOrgAccess(handle.db, user.id, organization.id);
const { id: spaceId } = await handle.db
  .transaction()
  .execute((trx) => createSpace(trx, { orgId: organization.id, parentId: null, title: "Import", access, actorId: user.id }));

configureWorkerThreads(loadConfig({ ...process.env, QUIRE_DATA_DIR: dataDir }).workerThreads);
const baseline = process.memoryUsage().rss;
let peak = baseline;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const deps = {
  db: handle.db,
  dialect: handle.dialect,
  // QUIRE_WORKER_THREADS and the QUIRE_GIT_* limits apply as they do to the server.
  config: loadConfig({ ...process.env, QUIRE_DATA_DIR: dataDir }),
  secret: await loadInstanceSecret(handle.db),
};
let ms: number;
let label: string;
let count = pages;
if (realRepo) {
  const url = realRepo.includes("://") ? realRepo : `file://${path.resolve(realRepo)}`;
  const ref = process.argv[3] ?? "HEAD";
  const outcome = await importRepo(deps, { spaceId, actorId: user.id, url, ref, projectDirectory: process.argv[4] ?? "" });
  ms = outcome.ms;
  const space = await handle.db.selectFrom("spaces").select("revisionId").where("id", "=", spaceId).executeTakeFirstOrThrow();
  const revision = await handle.db.selectFrom("revisions").select("treeHash").where("id", "=", space.revisionId).executeTakeFirstOrThrow();
  const content = await loadContent(handle.db, revision.treeHash);
  const countPages = (list: readonly PageNode[]): number => list.reduce((n, p) => n + 1 + countPages(p.children ?? []), 0);
  count = countPages(content.pages);
  label = `import of ${realRepo} (${process.argv[4] ?? "root"}): ${count} pages + ${content.files.length} files, ${outcome.lastImport.warnings?.length ?? 0} warnings`;
  // BENCH_WARNINGS=1 lists them (what the import could not resolve or refused, per file).
  if (process.env.BENCH_WARNINGS) for (const warning of outcome.lastImport.warnings ?? []) console.log(`  warning: ${warning}`);
} else {
  const generated = await importGeneratedRepo(deps, { spaceId, actorId: user.id, pages, images });
  ms = generated.ms;
  generated.repo.cleanup();
  label = `import of ${pages} pages + ${images} images`;
}
clearInterval(sampler);
peak = Math.max(peak, process.resourceUsage().maxRSS * 1024);
await closeWorkerThreads();
await handle.destroy();
fs.rmSync(dataDir, { recursive: true, force: true });
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const cpu = process.cpuUsage();
console.log(
  `${label}: ${(ms / 1000).toFixed(2)} s, ${(count / (ms / 1000)).toFixed(0)} pages/s, peak RSS ${mb(peak)} (before: ${mb(baseline)}), CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (all threads)`,
);
