/**
 * scripts/check-module-pairs.mjs and the graph it reads (scripts/lib/module-graph.mjs): imports of
 * every kind between the families of src/modules, and no cycle among them, of any length; and a
 * role for every file of a family (scripts/lib/module-roles.mjs), each role documented.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { elementaryCycles, importsOf, moduleGraph } from "../../scripts/lib/module-graph.mjs";
import { APP_ROLES, appFilesWithoutRole, ROLES } from "../../scripts/lib/module-roles.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** The architecture document's table of roles, with a row for each of `roles`. */
const rolesTable = (roles: readonly string[]) =>
  [
    "# Architecture",
    "",
    "## One rule per layer",
    "",
    "| layer | rule |",
    "|---|---|",
    ...roles.map((r) => `| \`<name>.${r}.ts\` | ... |`),
    "",
    "## Next",
    "",
  ].join("\n");

/** A repository whose src/modules holds the given files (path under src/modules -> text), its roles documented. */
function modules(files: Record<string, string>, documented: readonly string[] = ROLES): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-graph-"));
  made.push(dir);
  fs.mkdirSync(path.join(dir, "docs"));
  fs.writeFileSync(path.join(dir, "docs/architecture.md"), rolesTable(documented));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, "src/modules", file)), { recursive: true });
    fs.writeFileSync(path.join(dir, "src/modules", file), text);
  }
  return dir;
}

async function check(repository: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(root, "scripts/check-module-pairs.mjs"), repository]);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe("the imports of a file", () => {
  it("are its static, type-only and dynamic imports, not what comments and strings mention", () => {
    const text = [
      'import { a } from "../a/a.js";',
      'import type { B } from "../b/b.js";',
      'import { type C } from "../c/c.js";',
      'export * from "../d/d.js";',
      'const e = () => import("../e/e.js");',
      'type F = typeof import("../f/f.js");',
      '// import { g } from "../g/g.js";',
      'const h = "import(\\"../h/h.js\\")";',
      "",
    ].join("\n");
    expect(importsOf("x.ts", text).map(({ specifier, kind }) => `${kind} ${specifier}`)).toEqual([
      "static ../a/a.js",
      "type ../b/b.js",
      "type ../c/c.js",
      "static ../d/d.js",
      "dynamic ../e/e.js",
      "type ../f/f.js",
    ]);
  });
});

describe("cycles between families", () => {
  it("are found whatever their length, each once", () => {
    const edges = new Map(
      ["a b", "b c", "c a", "c d", "d c", "e f"].map((key) => {
        const [from, to] = key.split(" ") as [string, string];
        return [key, { from, to, sites: [] }];
      }),
    );
    expect(elementaryCycles(edges)).toEqual(["a -> b -> c", "c -> d"]);
  });

  it("fail the check, naming the files of each edge, also through a lazy import() or a nested folder", async () => {
    const repository = modules({
      "a/a.service.ts": 'import { b } from "../b/b.service.js";\nexport const a = b;\n',
      "b/b.service.ts": 'export const b = 1;\nexport const later = () => import("../c/c.service.js");\n',
      "c/deep/c.service.ts": 'import { a } from "../../a/a.service.js";\nexport const c = a;\n',
      "d/d.service.ts": 'import { a } from "../a/a.service.js";\nexport const d = a;\n',
    });
    const { code, output } = await check(repository);
    expect(code).toBe(1);
    expect(output).toContain("cycle: a -> b -> c -> a");
    expect(output).toContain("src/modules/a/a.service.ts:1 -> b");
    expect(output).toContain("src/modules/b/b.service.ts:2 -> c (dynamic)");
    expect(output).toContain("src/modules/c/deep/c.service.ts:1 -> a");
    expect(output).not.toContain("src/modules/d/d.service.ts");
  });

  it("pass the check when every edge has one direction (and a test file may import anything)", async () => {
    const repository = modules({
      "a/a.service.ts": 'import { b } from "../b/b.queries.js";\nexport const a = b;\n',
      "a/a.test.ts": 'import { b } from "../b/b.queries.js";\n',
      "b/b.queries.ts": "export const b = 1;\n",
      "b/b.test.ts": 'import { a } from "../a/a.service.js";\n',
    });
    expect(await check(repository)).toEqual({ code: 0, output: expect.stringContaining("module cycles: none") });
  });

  it("are none in this repository", () => {
    expect(elementaryCycles(moduleGraph())).toEqual([]);
  });
});

describe("the role of every file of a family", () => {
  it("fails the check for a file without one, naming the file and the roles", async () => {
    const repository = modules({
      "a/a.service.ts": "export const a = 1;\n",
      "a/helpers.ts": "export const h = 1;\n",
      "b/deep/b.urls.ts": "export const b = 1;\n",
    });
    const { code, output } = await check(repository);
    expect(code).toBe(1);
    expect(output).toContain(`src/modules/a/helpers.ts has no role: name it <name>.<role>.ts with one of ${ROLES.join(", ")}`);
    expect(output).toContain("src/modules/b/deep/b.urls.ts has no role");
    expect(output).not.toContain("a.service.ts has no role");
  });

  it("asks none of a test file or a .d.ts", async () => {
    const repository = modules({
      "a/a.model.ts": "export const a = 1;\n",
      "a/a.model.test.ts": "export {};\n",
      "a/package.d.ts": 'declare module "untyped" {}\n',
    });
    expect(await check(repository)).toEqual({
      code: 0,
      output: expect.stringContaining("module roles: every file of src/modules has one"),
    });
  });

  it("fails the check for a role that has no row in the architecture document's table", async () => {
    const repository = modules(
      { "a/a.adapter.ts": "export const a = 1;\n" },
      ROLES.filter((role) => role !== "adapter"),
    );
    const { code, output } = await check(repository);
    expect(code).toBe(1);
    expect(output).toContain("The role .adapter.ts has no row in docs/architecture.md");
  });

  it("is given in this repository, besides the renames still pending", async () => {
    const { code, output } = await check(root);
    expect(output).not.toContain("has no role");
    expect(code).toBe(0);
  });
});

describe("the role of every file of an application", () => {
  it("fails the check for a file without one (the editor's browser bundle aside), naming the file and the roles", async () => {
    const repository = modules({ "a/a.service.ts": "export const a = 1;\n" });
    const app = (file: string) => {
      fs.mkdirSync(path.dirname(path.join(repository, "src/apps", file)), { recursive: true });
      fs.writeFileSync(path.join(repository, "src/apps", file), "export {};\n");
    };
    for (const file of ["site/site.routes.ts", "site/pages/page.page.ts", "site/layout.ts", "site/layout.test.ts", "web/editor/main.ts"])
      app(file);
    expect(appFilesWithoutRole(repository)).toEqual(["src/apps/site/layout.ts"]);
    const { code, output } = await check(repository);
    expect(code).toBe(1);
    expect(output).toContain(`src/apps/site/layout.ts has no role: name it <name>.<role>.ts with one of ${APP_ROLES.join(", ")}`);
  });

  it("are all given in this repository", () => {
    expect(appFilesWithoutRole()).toEqual([]);
  });
});
