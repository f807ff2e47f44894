/**
 * scripts/check-module-pairs.mjs and the graph it reads (scripts/lib/module-graph.mjs): imports of
 * every kind between the families of src/modules, and no cycle among them, of any length.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { elementaryCycles, importsOf, moduleGraph } from "../../scripts/lib/module-graph.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A repository whose src/modules holds the given files (path under src/modules -> text). */
function modules(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-graph-"));
  made.push(dir);
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
      "a/a.ts": 'import { b } from "../b/b.js";\nexport const a = b;\n',
      "b/b.ts": 'export const b = 1;\nexport const later = () => import("../c/c.js");\n',
      "c/deep/c.ts": 'import { a } from "../../a/a.js";\nexport const c = a;\n',
      "d/d.ts": 'import { a } from "../a/a.js";\nexport const d = a;\n',
    });
    const { code, output } = await check(repository);
    expect(code).toBe(1);
    expect(output).toContain("cycle: a -> b -> c -> a");
    expect(output).toContain("src/modules/a/a.ts:1 -> b");
    expect(output).toContain("src/modules/b/b.ts:2 -> c (dynamic)");
    expect(output).toContain("src/modules/c/deep/c.ts:1 -> a");
    expect(output).not.toContain("src/modules/d/d.ts");
  });

  it("pass the check when every edge has one direction (and a test file may import anything)", async () => {
    const repository = modules({
      "a/a.ts": 'import { b } from "../b/b.js";\nexport const a = b;\n',
      "a/a.test.ts": 'import { b } from "../b/b.js";\n',
      "b/b.ts": "export const b = 1;\n",
      "b/b.test.ts": 'import { a } from "../a/a.js";\n',
    });
    expect(await check(repository)).toEqual({ code: 0, output: expect.stringContaining("module cycles: none") });
  });

  it("are none in this repository", () => {
    expect(elementaryCycles(moduleGraph())).toEqual([]);
  });
});
