import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { classifyTestFiles } from "./test-files.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A repository of the given files (path -> text) in a temporary directory. */
function repository(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "quire-classify-"));
  made.push(root);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

// Written in two parts: this file itself reads no switch, or the rule would class it a database test.
const ENV = "process.env";

const helpers = {
  "test/helpers/db.ts": `export const dialect = () => ${ENV}.QUIRE_TEST_DIALECT ?? "sqlite";\n`,
  "test/helpers/app.ts": 'import { dialect } from "./db.js";\nexport const app = () => dialect();\n',
  "test/helpers/text.ts": "export const upper = (s: string) => s.toUpperCase();\n",
};

describe("the database-test rule", () => {
  it("classes a file that reaches a database switch through any chain of imports as a database test", () => {
    const root = repository({
      ...helpers,
      "src/direct.test.ts": 'import { dialect } from "../test/helpers/db.js";\n',
      "src/through-app.test.ts": 'import { app } from "../test/helpers/app.js";\n',
      "src/lazy.test.ts": 'it("x", async () => { await import("../test/helpers/app.js"); });\n',
      "src/re-export.test.ts": 'export * from "./shared/index.js";\n',
      "src/shared/index.ts": 'export { app } from "../../test/helpers/app.js";\n',
      "src/bracket.test.ts": `const url = ${ENV}["QUIRE_TEST_DATABASE_URL"];\n`,
      // A cycle of helpers, one of which reaches the database.
      "src/cycle.test.ts": 'import "./a.js";\n',
      "src/a.ts": 'import "./b.js";\n',
      "src/b.ts": 'import "./a.js";\nimport "../test/helpers/db.js";\n',
    });
    const { database, databaseFree, reasons } = classifyTestFiles(root);
    expect(database).toEqual([
      "src/bracket.test.ts",
      "src/cycle.test.ts",
      "src/direct.test.ts",
      "src/lazy.test.ts",
      "src/re-export.test.ts",
      "src/through-app.test.ts",
    ]);
    expect(databaseFree).toEqual([]);
    expect(reasons["src/through-app.test.ts"]).toEqual(["src/through-app.test.ts", "test/helpers/app.ts", "test/helpers/db.ts"]);
    expect(reasons["src/cycle.test.ts"]).toEqual(["src/cycle.test.ts", "src/a.ts", "src/b.ts", "test/helpers/db.ts"]);
  });

  it("classes a file as database-free when the database is named only in comments, strings or unrelated code", () => {
    const root = repository({
      ...helpers,
      "src/pure.test.ts": 'import { upper } from "../test/helpers/text.js";\nimport { z } from "zod";\n',
      "src/mentions.test.ts": [
        '// import { app } from "../test/helpers/app.js";',
        '/* await import("../test/helpers/db.js") */',
        'const text = "import \\"../test/helpers/db.js\\"";',
        "const doc = `QUIRE_TEST_DIALECT=postgres runs it on PostgreSQL`;",
        "",
      ].join("\n"),
      "test/nested/deeper/pure.test.ts": 'import { upper } from "../../helpers/text.js";\n',
    });
    expect(classifyTestFiles(root)).toEqual({
      database: [],
      databaseFree: ["src/mentions.test.ts", "src/pure.test.ts", "test/nested/deeper/pure.test.ts"],
      reasons: {},
    });
  });

  it("classes this repository's files: the whole app and the migrations are database tests, a parser is not", () => {
    const { database, databaseFree, reasons } = classifyTestFiles();
    expect(reasons["src/modules/users/users.routes.test.ts"]).toEqual([
      "src/modules/users/users.routes.test.ts",
      "test/helpers/app.ts",
      "test/helpers/db.ts",
    ]);
    expect(database).toContain("src/db/migrations/0021_saml_logout.test.ts");
    expect(databaseFree).toContain("src/content/markdown/parse.test.ts");
    expect(databaseFree).toContain("test/test-files.test.ts");
    // Every test file with an import line of the database helpers is a database test.
    for (const file of databaseFree) {
      const text = fs.readFileSync(path.resolve(import.meta.dirname, "..", file), "utf8");
      expect(text, file).not.toMatch(/^import .* from "(\.\.?\/)+(test\/)?helpers\/(db|app)\.js";$/m);
    }
  });
});

describe("a database-free test file that opens a test database anyway", () => {
  it("fails with what to do: the database-free project runs with QUIRE_TEST_DIALECT=none", async () => {
    // A computed specifier, which the rule cannot follow: this file stays database-free.
    const helper = ["d", "b"].join("");
    const { createTestDatabase } = (await import(/* @vite-ignore */ path.join(import.meta.dirname, "helpers", `${helper}.ts`))) as {
      createTestDatabase: () => Promise<unknown>;
    };
    await expect(createTestDatabase()).rejects.toThrow(/test-files\.test\.ts was classed database-free .* import test\/helpers\/db\.ts/);
  });
});
