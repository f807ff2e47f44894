/** The Git import limits and worker threads read from the environment. */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";
import { DEFAULT_GIT_LIMITS } from "./git/operation.js";

describe("loadConfig: Git import limits and worker threads", () => {
  it("defaults to the documented limits and one worker thread", () => {
    const config = loadConfig({});
    expect(config.gitLimits).toEqual(DEFAULT_GIT_LIMITS);
    expect(config.gitLimits).toMatchObject({ maxFileBytes: 104_857_600, maxRepoBytes: 1_073_741_824, maxFiles: 50_000 });
    expect(config.importMaxPageBytes).toBe(2 * 1024 * 1024);
    expect(config.workerThreads).toBe(1);
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
  });

  it("refuses a value that is not a positive integer, naming the variable", () => {
    expect(() => loadConfig({ QUIRE_GIT_MAX_IMPORT_BYTES: "1GB" })).toThrow(ConfigError);
    expect(() => loadConfig({ QUIRE_GIT_MAX_IMPORT_BYTES: "1GB" })).toThrow(
      'QUIRE_GIT_MAX_IMPORT_BYTES must be an integer between 1 and 9007199254740991, got "1GB"',
    );
    expect(() => loadConfig({ QUIRE_WORKER_THREADS: "-1" })).toThrow(/QUIRE_WORKER_THREADS must be an integer between 0 and 64/);
  });
});
