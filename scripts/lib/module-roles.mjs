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

/**
 * The roles of a file of an application (src/apps/<app>/), by suffix, as docs/architecture.md's
 * "Applications" table gives them. `apps/web/editor/` is the editor's browser bundle (its own
 * tsconfig, built by esbuild): its files are the bundle's modules and carry no role.
 */
export const APP_ROLES = [
  "routes",
  "page",
  "action",
  "handler",
  "kinds",
  "steps",
  "views",
  "model",
  "schemas",
  "paths",
  "client",
  "session",
  "hooks",
  "queries",
  "render",
  "assets",
  "jobs",
];

const APP_ROLE_SUFFIX = new RegExp(`\\.(${APP_ROLES.join("|")})\\.ts$`);

/** Every non-test TypeScript file of the applications without one of APP_ROLES (the editor bundle aside). */
export function appFilesWithoutRole(root = repoRoot) {
  let entries;
  try {
    entries = readdirSync(join(root, "src", "apps"), { recursive: true });
  } catch {
    return [];
  }
  return entries
    .map((entry) => String(entry).split(sep).join("/"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.startsWith("web/editor/"))
    .filter((file) => !APP_ROLE_SUFFIX.test(file))
    .map((file) => `src/apps/${file}`)
    .sort();
}
