/**
 * The test application: the real buildApp() over a fresh database, requests through app.inject
 * (in process) or over real HTTP after listen(), and a worker to run queued jobs on demand.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import pino, { type Logger } from "pino";
import { afterAll, beforeAll } from "vitest";
import { buildApp, jobDefinitions } from "../../src/app.js";
import { loadInstanceSecret } from "../../src/bootstrap.js";
import { type Config, loadConfig } from "../../src/config.js";
import type { Deps } from "../../src/deps.js";
import { Urls } from "../../src/http/urls.js";
import { Worker } from "../../src/jobs/worker.js";
import { createTestDatabase, type TestDatabase } from "./db.js";

export const TEST_PUBLIC_URL = "http://quire.test";

export interface TestUser {
  id: string;
  email: string;
  displayName: string;
  token: string;
}

export interface TestResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
  /** Raw body text (empty for 204). */
  text: string;
  /** Raw body bytes. */
  raw: Buffer;
}

export interface Requester {
  get<T = any>(url: string, options?: RequestOptions): Promise<TestResponse<T>>;
  delete<T = any>(url: string, options?: RequestOptions): Promise<TestResponse<T>>;
  post<T = any>(url: string, body?: unknown, options?: RequestOptions): Promise<TestResponse<T>>;
  put<T = any>(url: string, body?: unknown, options?: RequestOptions): Promise<TestResponse<T>>;
  patch<T = any>(url: string, body?: unknown, options?: RequestOptions): Promise<TestResponse<T>>;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Send this exact text as the body (for malformed JSON tests). */
  rawBody?: string;
}

export interface TestContext {
  db: TestDatabase["db"];
  dialect: TestDatabase["dialect"];
  database: TestDatabase;
  app: FastifyInstance;
  config: Config;
  urls: Urls;
  deps: Deps;
  worker: Worker;
  /** Requests authenticated with the user's token. */
  as(user: TestUser | string): Requester;
  /** Requests without any token. */
  anonymous: Requester;
  /** Starts listening on a free loopback port; returns the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export interface TestContextOptions {
  config?: Partial<Config>;
  /** The server's and the worker's logger (default: silent, or QUIRE_TEST_LOG's level). */
  log?: Logger;
}

export async function createTestContext(options: TestContextOptions = {}): Promise<TestContext> {
  const database = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-data-"));
  const loaded = loadConfig({ QUIRE_PUBLIC_URL: TEST_PUBLIC_URL, QUIRE_DATA_DIR: dataDir, LOG_LEVEL: "silent" });
  const config: Config = {
    ...loaded,
    // The limiter runs (in memory) but never binds a test that is not about it (see test/hardening/rate-limit.test.ts).
    rateLimit: { ...loaded.rateLimit, perToken: 1e9, perAddress: 1e9, perReaderAddress: 1e9, perAskAddress: 1e9, authFailures: 1e9 },
    // Insights are written when a test flushes them (`app.insights.flush()`), never by the timer in
    // the middle of a test that checks nothing was written yet (a loaded machine stretches a test past 5 s).
    insights: { ...loaded.insights, flushMs: 600_000 },
    // Test remotes are made under the temp directory (test/helpers/git.ts); file:// stays refused
    // unless a test allows it (gitAllowFileUrls), and loopback unless it allows that network.
    gitFileRoot: os.tmpdir(),
    ...options.config,
  };
  const log = options.log ?? pino({ level: process.env.QUIRE_TEST_LOG ?? "silent" });
  const urls = new Urls(config.publicUrl);
  const secret = await loadInstanceSecret(database.db);
  const worker = new Worker({ db: database.db, dialect: database.dialect, config, urls, log, secret }, jobDefinitions);
  const deps: Deps = { config, db: database.db, dialect: database.dialect, urls, log, secret, notifyJobs: () => {} };
  const app = await buildApp(deps);
  await app.ready();

  const requester = (token: string | undefined): Requester => {
    const send = async (method: string, url: string, body: unknown, opts: RequestOptions = {}): Promise<TestResponse> => {
      const headers: Record<string, string> = { ...opts.headers };
      if (token) headers.authorization = `Bearer ${token}`;
      let payload: string | undefined;
      if (opts.rawBody !== undefined) {
        payload = opts.rawBody;
        headers["content-type"] ??= "application/json";
      } else if (body !== undefined) {
        payload = JSON.stringify(body);
        headers["content-type"] ??= "application/json";
      }
      const res = await app.inject({ method: method as "GET", url, headers, ...(payload !== undefined ? { payload } : {}) });
      const text = res.body;
      let parsed: unknown;
      if (text && String(res.headers["content-type"] ?? "").includes("json")) parsed = JSON.parse(text);
      return { status: res.statusCode, body: parsed, headers: res.headers, text, raw: res.rawPayload };
    };
    return {
      get: (url, opts) => send("GET", url, undefined, opts),
      delete: (url, opts) => send("DELETE", url, undefined, opts),
      post: (url, body, opts) => send("POST", url, body, opts),
      put: (url, body, opts) => send("PUT", url, body, opts),
      patch: (url, body, opts) => send("PATCH", url, body, opts),
    };
  };

  let listening: string | undefined;
  return {
    db: database.db,
    dialect: database.dialect,
    database,
    app,
    config,
    urls,
    deps,
    worker,
    as: (user) => requester(typeof user === "string" ? user : user.token),
    anonymous: requester(undefined),
    async listen() {
      if (!listening) {
        await app.listen({ port: 0, host: "127.0.0.1" });
        const address = app.server.address();
        if (!address || typeof address === "string") throw new Error("no address");
        listening = `http://127.0.0.1:${address.port}`;
      }
      return listening;
    },
    async close() {
      await app.close();
      await database.cleanup();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A test context listening on loopback for the whole test file (for tests that drive the server
 * over real HTTP, such as the contract suite). Read `server.ctx` and `server.endpoint` inside tests.
 */
export function useListeningServer(options: TestContextOptions = {}): { ctx: TestContext; endpoint: string } {
  const server = {} as { ctx: TestContext; endpoint: string };
  beforeAll(async () => {
    server.ctx = await createTestContext(options);
    server.endpoint = await server.ctx.listen();
  });
  afterAll(() => server.ctx.close());
  return server;
}
