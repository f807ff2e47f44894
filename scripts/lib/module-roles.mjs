/**
 * The roles a file of a family (src/modules/<family>/) may have, by the suffix of its name, each
 * with a row in docs/architecture.md's table and a lint rule in biome.jsonc. Used by
 * check-module-pairs.mjs.
 */
import { readdirSync } from "node:fs";
import { join, sep } from "node:path";
import { repoRoot } from "./module-graph.mjs";

/** `<name>.<role>.ts`; `.d.ts` declares the types of a package that ships none. */
export const ROLES = ["routes", "service", "loader", "queries", "policy", "presenter", "schemas", "jobs", "model", "adapter"];

const ROLE_SUFFIX = new RegExp(`\\.(${ROLES.join("|")})\\.ts$`);

/** The role of a file name, "declarations" for a `.d.ts`, or undefined when it has none. */
export function roleOf(fileName) {
  if (fileName.endsWith(".d.ts")) return "declarations";
  return ROLE_SUFFIX.exec(fileName)?.[1];
}

/** Every non-test TypeScript file under <root>/src/modules, as a path relative to root with forward slashes. */
export function moduleFiles(root = repoRoot) {
  const modulesRoot = join(root, "src", "modules");
  return readdirSync(modulesRoot, { recursive: true })
    .map((entry) => String(entry).split(sep).join("/"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .map((file) => `src/modules/${file}`)
    .sort();
}
