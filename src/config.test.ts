import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";
import { DEFAULT_GIT_LIMITS } from "./git/operation.js";

describe("loadConfig: OpenAPI and fetch settings", () => {
  it("defaults to public addresses only and a 6-hour re-fetch", () => {
    const config = loadConfig({});
    expect(config.fetchAllowNetworks).toEqual([]);
    expect(config.openapiRefreshMinutes).toBe(360);
    expect(config.auditRetentionDays).toBe(365);
    expect(config.openapiFetchTimeoutMs).toBe(30_000);
    expect(config.openapiMaxBytes).toBe(20 * 1024 * 1024);
    expect(config.openapiMemoryMb).toBe(1024);
  });

  it("reads networks and limits, and names the variable of a wrong value", () => {
    const config = loadConfig({ QUIRE_FETCH_ALLOW_NETWORKS: " 10.0.0.0/8, fd00::/8 ", QUIRE_OPENAPI_REFRESH_MINUTES: "15" });
    expect(config.fetchAllowNetworks).toEqual(["10.0.0.0/8", "fd00::/8"]);
    expect(config.openapiRefreshMinutes).toBe(15);
    for (const network of ["10.0.0.0", "10.0.0.0/33", "intranet/8", "::/129", "10.0.0.0/8/1"]) {
      expect(() => loadConfig({ QUIRE_FETCH_ALLOW_NETWORKS: network })).toThrow(
        new ConfigError(
          `QUIRE_FETCH_ALLOW_NETWORKS must be a comma-separated list of networks such as 10.0.0.0/8 or fd00::/8, got "${network}"`,
        ),
      );
    }
    expect(() => loadConfig({ QUIRE_OPENAPI_REFRESH_MINUTES: "0" })).toThrow(
      'QUIRE_OPENAPI_REFRESH_MINUTES must be an integer between 1 and 525600, got "0"',
    );
  });
});

describe("loadConfig: Git import limits and worker threads", () => {
  it("defaults to the documented limits and one worker thread", () => {
    const config = loadConfig({});
    expect(config.gitLimits).toEqual(DEFAULT_GIT_LIMITS);
    expect(config.gitLimits).toMatchObject({ maxFileBytes: 104_857_600, maxRepoBytes: 1_073_741_824, maxFiles: 50_000 });
    expect(config.importMaxPageBytes).toBe(2 * 1024 * 1024);
    expect(config.workerThreads).toBe(1);
    expect(config.workerHeapMb).toBeUndefined();
  });

  it("reads each from its variable", () => {
    const config = loadConfig({
      QUIRE_GIT_MAX_FILE_BYTES: "1000",
      QUIRE_GIT_MAX_IMPORT_BYTES: "5000000000",
      QUIRE_GIT_MAX_FILES: "10",
      QUIRE_GIT_MAX_FETCH_BYTES: "8000000000",
      QUIRE_GIT_MAX_TREE_ENTRIES: "20",
      QUIRE_GIT_TIMEOUT_MS: "60000",
      QUIRE_IMPORT_MAX_PAGE_BYTES: "4096",
      QUIRE_WORKER_THREADS: "0",
      QUIRE_WORKER_HEAP_MB: "256",
    });
    expect(config.gitLimits).toEqual({
      maxFileBytes: 1000,
      maxRepoBytes: 5_000_000_000,
      maxFiles: 10,
      maxFetchBytes: 8_000_000_000,
      maxTreeEntries: 20,
      timeoutMs: 60_000,
    });
    expect(config.importMaxPageBytes).toBe(4096);
    expect(config.workerThreads).toBe(0);
    expect(config.workerHeapMb).toBe(256);
  });

  it("refuses a value that is not a positive integer, naming the variable", () => {
    expect(() => loadConfig({ QUIRE_GIT_MAX_IMPORT_BYTES: "1GB" })).toThrow(ConfigError);
    expect(() => loadConfig({ QUIRE_GIT_MAX_IMPORT_BYTES: "1GB" })).toThrow(
      'QUIRE_GIT_MAX_IMPORT_BYTES must be an integer between 1 and 9007199254740991, got "1GB"',
    );
    expect(() => loadConfig({ QUIRE_WORKER_THREADS: "-1" })).toThrow(/QUIRE_WORKER_THREADS must be an integer between 0 and 64/);
    expect(() => loadConfig({ QUIRE_WORKER_HEAP_MB: "32" })).toThrow(
      'QUIRE_WORKER_HEAP_MB must be an integer between 64 and 65536, got "32"',
    );
    expect(() => loadConfig({ QUIRE_WORKER_HEAP_MB: "256MB" })).toThrow(/QUIRE_WORKER_HEAP_MB must be an integer/);
  });
});

describe("loadConfig: who may create organizations", () => {
  it("defaults to operators only, reads users, and names the variable of a wrong value", () => {
    expect(loadConfig({}).orgCreation).toBe("operators");
    expect(loadConfig({ QUIRE_ORG_CREATION: "" }).orgCreation).toBe("operators");
    expect(loadConfig({ QUIRE_ORG_CREATION: "users" }).orgCreation).toBe("users");
    expect(loadConfig({ QUIRE_ORG_CREATION: "operators" }).orgCreation).toBe("operators");
    for (const value of ["anyone", "Users", "true"]) {
      expect(() => loadConfig({ QUIRE_ORG_CREATION: value })).toThrow(
        new ConfigError(`QUIRE_ORG_CREATION must be one of operators, users, got "${value}"`),
      );
    }
  });
});

describe("loadConfig: Redis of the rate limiter", () => {
  it("defaults to a 500 ms deadline and a 5 s pause after a failure, and reads both", () => {
    expect(loadConfig({}).rateLimit).toMatchObject({ redisTimeoutMs: 500, redisRetryMs: 5000 });
    const config = loadConfig({ REDIS_URL: "redis://cache:6379", QUIRE_REDIS_TIMEOUT_MS: "2000", QUIRE_REDIS_RETRY_MS: "30000" });
    expect(config.rateLimit).toMatchObject({ store: "redis", redisTimeoutMs: 2000, redisRetryMs: 30_000 });
    expect(() => loadConfig({ QUIRE_REDIS_TIMEOUT_MS: "0" })).toThrow(
      'QUIRE_REDIS_TIMEOUT_MS must be an integer between 10 and 60000, got "0"',
    );
    expect(() => loadConfig({ QUIRE_REDIS_RETRY_MS: "5s" })).toThrow(/QUIRE_REDIS_RETRY_MS must be an integer/);
  });
});

describe("loadConfig: file:// Git remotes", () => {
  it("are off by default, and need a root directory when allowed", () => {
    expect(loadConfig({})).toMatchObject({ gitAllowFileUrls: false, gitFileRoot: undefined });
    expect(() => loadConfig({ QUIRE_GIT_ALLOW_FILE_URLS: "true" })).toThrow(
      new ConfigError(
        "QUIRE_GIT_ALLOW_FILE_URLS=true needs QUIRE_GIT_FILE_ROOT, the directory file:// Git remotes must be in (an absolute path)",
      ),
    );
    expect(() => loadConfig({ QUIRE_GIT_ALLOW_FILE_URLS: "true", QUIRE_GIT_FILE_ROOT: "repos" })).toThrow(
      'QUIRE_GIT_FILE_ROOT must be an absolute path, got "repos"',
    );
    expect(loadConfig({ QUIRE_GIT_ALLOW_FILE_URLS: "true", QUIRE_GIT_FILE_ROOT: "/srv/git/../repos/" })).toMatchObject({
      gitAllowFileUrls: true,
      gitFileRoot: "/srv/repos",
    });
  });

  it("reads the services a process runs (QUIRE_SERVICES), and the legacy switches when it is unset", () => {
    expect(loadConfig({}).services).toEqual({ web: true, worker: true, collab: true });
    const worker = loadConfig({ QUIRE_SERVICES: "worker" });
    expect(worker.services).toEqual({ web: false, worker: true, collab: false });
    expect(worker.runWorker).toBe(true);
    expect(worker.collab.enabled).toBe(false);
    const web = loadConfig({ QUIRE_SERVICES: " web , collab " });
    expect(web.services).toEqual({ web: true, worker: false, collab: true });
    expect(web.runWorker).toBe(false);
    expect(loadConfig({ QUIRE_WORKER: "false", QUIRE_COLLAB: "false" }).services).toEqual({ web: true, worker: false, collab: false });
    expect(() => loadConfig({ QUIRE_SERVICES: "web,jobs" })).toThrow(
      'QUIRE_SERVICES names "jobs": use a comma-separated list of web, worker, collab',
    );
    expect(() => loadConfig({ QUIRE_SERVICES: "web", QUIRE_WORKER: "true" })).toThrow(/leave QUIRE_WORKER and QUIRE_COLLAB unset/);
  });
});
