import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import LongestFirstSequencer from "./test/sequencer.js";
import { classifyTestFiles } from "./test/test-files.js";

// Database tests run on SQLite; when QUIRE_TEST_DATABASE_URL points at a PostgreSQL server they run
// a second time on PostgreSQL (each test file gets a fresh database on that server). Test files that
// never reach the test database run once.
const postgresUrl = process.env.QUIRE_TEST_DATABASE_URL;

// By rule (test/test-files.ts): a database test imports, directly or not, a file that reads
// QUIRE_TEST_DIALECT or QUIRE_TEST_DATABASE_URL (test/helpers/db.ts); every other file is database-free.
const { database, databaseFree } = classifyTestFiles();

// Responsiveness tests assert that /healthz answers within 200 ms while heavy work runs in a worker
// thread: they run last, one file at a time, so that other test files do not take the cores they
// measure. The request thread's share of work does not depend on the database, so SQLite only.
const responsiveness = ["**/*.responsiveness.test.ts"];
// The PDF robustness tests measure the heap a render grows by: files sharing a worker would count
// what the files before them left running, so they run in a process of their own. Their bounds are
// heap and CPU time, which other processes do not stretch: they run beside the other files.
const ownProcess = ["src/content/pdf/render-pdf.robustness.test.ts"];

const shared = {
  // Guards against a hang, not a measure: two files per core pair and a busy runner stretch wall time.
  testTimeout: 120_000,
  hookTimeout: 120_000,
  // Migrates the template database once per project (each file's database is a copy of it) and
  // serves the run's Chromium to browser tests.
  globalSetup: ["test/global-setup.ts"],
  // Files share worker processes: the app's modules are loaded and its schemas compiled once per
  // worker rather than once per file (less than half the CPU time). Each file still gets its own
  // database, app and browser contexts; test/setup.ts fails a file that leaves process.env changed.
  isolate: false,
  setupFiles: ["test/setup.ts"],
};

export default defineConfig({
  test: {
    // A test file waits on PostgreSQL, git, Chromium and its own server much of the time: one worker
    // per core, at least two (vitest's default, cores - 1, is a single worker on a 2-core runner).
    maxWorkers: Math.max(2, availableParallelism()),
    // Longest files first, the database-free project's short files last (test/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          ...shared,
          include: databaseFree,
          exclude: [...responsiveness, ...ownProcess, "**/node_modules/**"],
          name: "database-free",
          // test/helpers/db.ts refuses to open a database here: a file the rule missed fails.
          env: { QUIRE_TEST_DIALECT: "none" },
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          include: database,
          exclude: [...responsiveness, "**/node_modules/**"],
          name: "sqlite",
          env: { QUIRE_TEST_DIALECT: "sqlite" },
          sequence: { groupOrder: 0 },
        },
      },
      ...(postgresUrl
        ? [
            {
              test: {
                ...shared,
                include: database,
                exclude: [...responsiveness, "**/node_modules/**"],
                name: "postgres",
                env: { QUIRE_TEST_DIALECT: "postgres" },
                sequence: { groupOrder: 0 },
              },
            },
          ]
        : []),
      {
        test: {
          ...shared,
          include: ownProcess,
          name: "pdf-robustness",
          env: { QUIRE_TEST_DIALECT: "none" },
          isolate: true,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          include: responsiveness,
          name: "responsiveness",
          env: { QUIRE_TEST_DIALECT: "sqlite" },
          // A process of its own per file, as the latency each measures should owe nothing to the files before.
          isolate: true,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
