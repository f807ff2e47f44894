/**
 * A Git import of one page of hostile nesting, through the real job and worker, every attempt the
 * queue makes (the backoff between attempts is skipped, and reported): how many attempts, how long
 * each took, how the import ended, and the peak resident memory of the process (worker threads
 * included).
 *
 *   tsx bench/nesting-import.bench.ts [repeat] [unit]     default: 5000 "> - " (20 KB)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { jobDefinitions } from "../src/app.js";
import { initOrganization, loadInstanceSecret } from "../src/bootstrap.js";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { Urls } from "../src/http/urls.js";
import { enqueue, retryDelayMs } from "../src/jobs/queue.js";
import { Worker } from "../src/jobs/worker.js";
import { createSpace } from "../src/modules/spaces/spaces.service.js";
import { loadOrgAccess } from "../src/permissions/access.js";
import { closeWorkerThreads, configureWorkerThreads } from "../src/workers/pool.js";
import { createBareRepo } from "../test/helpers/git.js";

const repeat = Number(process.argv[2] ?? 5000);
const unit = process.argv[3] ?? "> - ";
const page = `# Deep\n\n${unit.repeat(repeat)}bottom\n`;
const repo = createBareRepo({ "README.md": page, "SUMMARY.md": "* [Deep](README.md)\n" });

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-bench-nesting-"));
const handle = openDatabase({ sqlitePath: path.join(dataDir, "quire.db") });
await migrateToLatest(handle.db);
const { organization, user } = await handle.db
  .transaction()
  .execute((trx) => initOrganization(trx, { orgTitle: "Bench", email: "b@bench.test", name: "B" }));
const access = await loadOrgAccess(handle.db, user.id, organization.id);
const { id: spaceId } = await handle.db
  .transaction()
  .execute((trx) => createSpace(trx, { orgId: organization.id, parentId: null, title: "Nesting", access, actorId: user.id }));

const config = {
  ...loadConfig({ ...process.env, QUIRE_DATA_DIR: dataDir }),
  gitAllowFileUrls: true,
  gitFileRoot: path.dirname(repo.dir),
};
configureWorkerThreads(config.workerThreads);
const worker = new Worker(
  {
    db: handle.db,
    dialect: handle.dialect,
    config,
    urls: new Urls("http://localhost:8080"),
    log: pino({ level: "silent" }),
    secret: await loadInstanceSecret(handle.db),
  },
  jobDefinitions,
);

const baseline = process.memoryUsage().rss;
let peak = baseline;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
await enqueue(handle.db, "git-import", {
  spaceId,
  remote: repo.url,
  ref: "refs/heads/main",
  projectDirectory: "",
  force: true,
  standalone: false,
  actorId: user.id,
  requestedAt: new Date().toISOString(),
});
const attempts: number[] = [];
let backoffMs = 0;
const started = performance.now();
for (;;) {
  const t0 = performance.now();
  await worker.drain();
  attempts.push(performance.now() - t0);
  const job = await handle.db.selectFrom("jobs").select(["state", "attempts"]).where("kind", "=", "git-import").executeTakeFirstOrThrow();
  if (job.state !== "queued") break;
  // Retried: run it now rather than after the queue's backoff.
  backoffMs += retryDelayMs(job.attempts);
  await handle.db.updateTable("jobs").set({ runAt: new Date().toISOString() }).where("kind", "=", "git-import").execute();
}
const totalMs = performance.now() - started;
clearInterval(sampler);
peak = Math.max(peak, process.resourceUsage().maxRSS * 1024);
const job = await handle.db
  .selectFrom("jobs")
  .select(["state", "attempts", "lastError"])
  .where("kind", "=", "git-import")
  .executeTakeFirstOrThrow();
const space = await handle.db.selectFrom("spaces").select("gitSync").where("id", "=", spaceId).executeTakeFirstOrThrow();
const lastImport = JSON.parse(space.gitSync ?? "{}").lastImport ?? {};
await closeWorkerThreads();
await handle.destroy();
fs.rmSync(dataDir, { recursive: true, force: true });
repo.cleanup();
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
console.log(`page: ${JSON.stringify(unit)} x ${repeat} (${Buffer.byteLength(page)} bytes)`);
console.log(
  `attempts: ${attempts.length} (${attempts.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(", ")}); queue backoff skipped: ${backoffMs / 1000} s`,
);
console.log(`total: ${(totalMs / 1000).toFixed(1)} s, peak RSS ${mb(peak)} (before: ${mb(baseline)})`);
console.log(`job: ${job.state} after ${job.attempts} attempt(s)${job.lastError ? `: ${job.lastError}` : ""}`);
console.log(
  `import: ${lastImport.status}${lastImport.message ? ` (${lastImport.message})` : ""}; warnings: ${JSON.stringify(lastImport.warnings ?? [])}`,
);
