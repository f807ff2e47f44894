/**
 * A worker process for test/hardening/jobs.test.ts: claims `test-hold` jobs and runs each forever,
 * printing `running <job id> <worker id>` when one starts, until the test kills it.
 * Database from QUIRE_HOLDER_DATABASE_URL (PostgreSQL) or QUIRE_HOLDER_SQLITE (a file).
 */
import pino from "pino";
import { loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/db/database.js";
import { Urls } from "../../src/http/urls.js";
import { defineJob } from "../../src/jobs/registry.js";
import { Worker } from "../../src/jobs/worker.js";
import "./job-kinds.js";

const handle = openDatabase({ databaseUrl: process.env.QUIRE_HOLDER_DATABASE_URL, sqlitePath: process.env.QUIRE_HOLDER_SQLITE });
let worker: Worker;
const hold = defineJob({
  kind: "test-hold",
  run: (_payload, ctx) => {
    process.stdout.write(`running ${ctx.jobId} ${worker.id}\n`);
    return new Promise<void>(() => {});
  },
});
worker = new Worker(
  {
    db: handle.db,
    dialect: handle.dialect,
    config: loadConfig({}),
    urls: new Urls("http://quire.test"),
    log: pino({ level: "silent" }),
    secret: "test-secret",
  },
  [hold],
  { pollIntervalMs: 50 },
);
worker.start();
