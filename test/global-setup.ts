/**
 * Once per test project and run, in vitest's main process (vitest.config.ts `globalSetup`):
 *
 * - the migrated template database: the database projects migrate once into a template (a SQLite
 *   file, or a PostgreSQL database) which test/helpers/db.ts copies for each test file, instead of
 *   running every migration again in every file;
 * - the run's Chromium: launched on the first request of a browser test (test/helpers/browser.ts),
 *   so a run without browser tests launches none, then shared by every browser test file of the
 *   run, each in its own browser contexts.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { type BrowserServer, chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { randomBase62 } from "../src/lib/ids.js";
import { CHROMIUM, CHROMIUM_ARGS } from "./helpers/browser.js";
import { postgresAdminUrl, testRunId, waitForNoConnections } from "./helpers/db.js";

declare module "vitest" {
  interface ProvidedContext {
    /** The migrated SQLite file each SQLite test database is a copy of. */
    sqliteTemplate: string;
    /** The migrated PostgreSQL database each PostgreSQL test database is created from. */
    postgresTemplate: string;
    /** Where a browser test asks for the run's Chromium (http://127.0.0.1:<port>/). */
    chromiumBroker: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dialect = project.config.env?.QUIRE_TEST_DIALECT;
  const teardowns: (() => Promise<void>)[] = [];
  try {
    if (dialect === "sqlite") teardowns.push(await sqliteTemplate(project));
    if (dialect === "postgres") teardowns.push(await postgresTemplate(project));
    teardowns.push(await chromiumBroker(project));
  } catch (error) {
    for (const teardown of teardowns.reverse()) await teardown();
    throw error;
  }
  return async () => {
    for (const teardown of teardowns.reverse()) await teardown();
  };
}

async function sqliteTemplate(project: TestProject): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-template-"));
  const file = path.join(dir, "quire.db");
  const handle = openDatabase({ sqlitePath: file });
  try {
    await migrateToLatest(handle.db);
  } finally {
    // The last connection's close checkpoints the WAL into the file and removes it.
    await handle.destroy();
  }
  if (fs.existsSync(`${file}-wal`)) throw new Error(`The template database ${file} kept a write-ahead log after closing.`);
  project.provide("sqliteTemplate", file);
  return async () => fs.rmSync(dir, { recursive: true, force: true });
}

async function postgresTemplate(project: TestProject): Promise<() => Promise<void>> {
  const adminUrl = postgresAdminUrl();
  // In the run's name pattern, so .ci/run's cleanup drops it should this process die first.
  const name = `quire_t_${testRunId()}_template_${randomBase62(8).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    // No change feed: a template being copied must have no connection at all.
    const handle = openDatabase({ databaseUrl: url.toString(), poolSize: 1, changeFeed: false });
    try {
      await migrateToLatest(handle.db);
    } finally {
      await handle.destroy();
    }
    // CREATE DATABASE ... TEMPLATE fails while anyone is connected to the template: wait for the
    // migration's connection to be gone, then refuse any new one for the rest of the run.
    await waitForNoConnections(admin, name);
    await admin.query(`alter database ${name} with allow_connections false`);
  } catch (error) {
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
    throw error;
  }
  await admin.end();
  project.provide("postgresTemplate", name);
  return async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`drop database if exists ${name} with (force)`);
    await client.end();
  };
}

/**
 * A loopback HTTP endpoint that answers `{ wsEndpoint }` of the run's Chromium, launching it on the
 * first request (and again if it died), or `{ error }` with what to do when it cannot. One for the
 * whole run: every project's global setup runs in this process, and the first starts it.
 */
async function chromiumBroker(project: TestProject): Promise<() => Promise<void>> {
  const holder = globalThis as { [BROKER]?: Promise<Broker> };
  holder[BROKER] ??= startBroker();
  const broker = await holder[BROKER];
  broker.projects++;
  project.provide("chromiumBroker", broker.url);
  return async () => {
    if (--broker.projects > 0) return;
    delete holder[BROKER];
    await broker.close();
  };
}

const BROKER = Symbol.for("quire.test.chromium-broker");

interface Broker {
  url: string;
  /** The projects using it: the last one to finish closes it. */
  projects: number;
  close(): Promise<void>;
}

async function startBroker(): Promise<Broker> {
  let launched: Promise<BrowserServer> | undefined;
  const launch = () => {
    launched ??= (async () => {
      if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run .ci/run's apt-get line (chromium).`);
      const server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      server.process().once("exit", () => {
        launched = undefined;
      });
      return server;
    })();
    launched.catch(() => {
      launched = undefined;
    });
    return launched;
  };
  const listener = http.createServer((_request, response) => {
    launch().then(
      (server) => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ wsEndpoint: server.wsEndpoint() })),
      (error: Error) => response.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: error.message })),
    );
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}/`,
    projects: 0,
    async close() {
      await new Promise((resolve) => listener.close(resolve));
      const server = await launched?.catch(() => undefined);
      await server?.close();
    },
  };
}
