import { defineConfig } from "vitest/config";

// The whole suite runs on SQLite; when QUIRE_TEST_DATABASE_URL points at a PostgreSQL server it runs
// a second time on PostgreSQL (each test file gets a fresh database on that server).
const postgresUrl = process.env.QUIRE_TEST_DATABASE_URL;

const shared = {
  include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

// Modules that never touch the database: running them again on PostgreSQL would only repeat them.
const databaseFree = [
  "src/db/sqlite-statements.test.ts",
  "src/content/pdf/**",
  "src/content/html/**",
  "src/content/markdown/**",
  "src/content/document/**",
  "src/content/translation/**",
  "src/modules/translations/translations.engines.test.ts",
  "src/content/merge/**",
  "src/content/gitbook-repo/**",
  "src/expr/**",
  "src/git/**",
  "src/lib/**",
  "src/config.test.ts",
  "src/modules/conversations/redact.test.ts",
  "src/modules/conversations/conversations.analysis.test.ts",
];

// Responsiveness tests assert that /healthz answers within 200 ms while heavy work runs in a worker
// thread: they run last, one file at a time, so that other test files do not take the cores they
// measure. The request thread's share of work does not depend on the database, so SQLite only.
const responsiveness = ["**/*.responsiveness.test.ts"];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
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
                exclude: [...databaseFree, ...responsiveness, "**/node_modules/**"],
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
          include: responsiveness,
          name: "responsiveness",
          env: { QUIRE_TEST_DIALECT: "sqlite" },
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
