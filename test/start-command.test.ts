/**
 * `npm start` and the `quire` executable give node the same V8 flags: the server's memory
 * figures (docs/git-import.md) are measured with them, whichever way it is started.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const v8Flags = (words: string[]) => words.filter((w) => w.startsWith("--") && w !== "--enable-source-maps").sort();

it("starts the server with the young-generation size of bin/quire.js", () => {
  const start: string = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).scripts.start;
  const shebang = fs.readFileSync(path.join(root, "bin/quire.js"), "utf8").split("\n")[0] ?? "";
  expect(shebang).toMatch(/^#!\/usr\/bin\/env -S node /);
  expect(v8Flags(start.split(/\s+/))).toEqual(v8Flags(shebang.split(/\s+/)));
  expect(v8Flags(start.split(/\s+/))).toContain("--max-semi-space-size=4");
});
