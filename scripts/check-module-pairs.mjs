#!/usr/bin/env node
/**
 * Fails when the families of src/modules (src/modules/<a>, src/modules/<b>, ...) import each other
 * in a cycle, of two families or more, counting every non-test file of each and every kind of
 * import: static, type-only and dynamic `import()` (a lazily loaded module still ties the two
 * families together). The families form a graph with one direction per edge (see
 * docs/architecture.md). Prints each cycle and the files that make its edges.
 *
 * Also fails when a non-test file of a family has no role: every file under src/modules is named
 * `<name>.<role>.ts` with a role of scripts/lib/module-roles.mjs (or is a `.d.ts`), so that the lint
 * rule of its role reaches it, and every role has its row in docs/architecture.md.
 *
 * Usage: node scripts/check-module-pairs.mjs [repository root]   (default: this repository)
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { elementaryCycles, moduleGraph, repoRoot } from "./lib/module-graph.mjs";
import { APP_ROLES, appFilesWithoutRole, moduleFiles, ROLES, roleOf } from "./lib/module-roles.mjs";

/**
 * Cycles that exist today and are to be removed by a refactor, written as the check prints them
 * ("a -> b -> a", starting from the smallest name). Each is tolerated until then; any other cycle
 * fails, and so does an entry here that no longer exists (remove it). None today.
 */
const KNOWN_CYCLES = [];

/**
 * Files without a role that cannot be renamed yet, each with the name it is to take and why it
 * waits. Each is tolerated until then; an entry whose file no longer exists fails (remove it).
 */
const PENDING_ROLES = {};

const root = resolve(process.argv[2] ?? repoRoot);
// The pending renames are this repository's files; another root (a test's) has none.
const pending = root === repoRoot ? PENDING_ROLES : {};
const unroled = moduleFiles(root).filter((file) => roleOf(basename(file)) === undefined && !(file in pending));
for (const file of unroled)
  console.error(`${file} has no role: name it <name>.<role>.ts with one of ${ROLES.join(", ")} (docs/architecture.md).`);
const renamed = Object.keys(pending).filter((file) => !existsSync(join(root, file)));
for (const file of renamed)
  console.error(`PENDING_ROLES in scripts/check-module-pairs.mjs lists ${file}, which no longer exists: remove it.`);
// The table of "One rule per layer", up to the next section: a role named only by the applications' table does not count.
const architecture = readFileSync(join(root, "docs", "architecture.md"), "utf8");
const layers = architecture.slice(
  architecture.indexOf("## One rule per layer"),
  architecture.indexOf("\n## ", architecture.indexOf("## One rule per layer")),
);
const undocumented = ROLES.filter((role) => !layers.includes(`.${role}.ts\``));
for (const role of undocumented)
  console.error(`The role .${role}.ts has no row in docs/architecture.md's "One rule per layer" table: add its rule there.`);
const appsUnroled = appFilesWithoutRole(root);
for (const file of appsUnroled)
  console.error(
    `${file} has no role: name it <name>.<role>.ts with one of ${APP_ROLES.join(", ")} (docs/architecture.md, "Applications").`,
  );
const failed = unroled.length > 0 || renamed.length > 0 || undocumented.length > 0 || appsUnroled.length > 0;

const edges = moduleGraph(root);
const cycles = elementaryCycles(edges);
const known = new Set(KNOWN_CYCLES);
const fresh = cycles.filter((cycle) => !known.has(cycle));
const gone = KNOWN_CYCLES.filter((cycle) => !cycles.includes(cycle));

for (const cycle of fresh) {
  const names = cycle.split(" -> ");
  console.error(`modules import each other in a cycle: ${cycle} -> ${names[0]}`);
  names.forEach((from, i) => {
    const to = names[(i + 1) % names.length];
    for (const site of edges.get(`${from} ${to}`).sites)
      console.error(`  ${site.file}:${site.line} -> ${to}${site.kind === "static" ? "" : ` (${site.kind})`}`);
  });
}
for (const cycle of gone)
  console.error(`KNOWN_CYCLES in scripts/check-module-pairs.mjs lists "${cycle}", which no longer exists: remove it.`);
if (fresh.length > 0) {
  console.error(
    `${fresh.length} cycle(s) between sibling modules; give each edge one direction, moving the shared piece down (docs/architecture.md).`,
  );
}
if (fresh.length > 0 || gone.length > 0 || failed) process.exit(1);
const importing = new Set([...edges.values()].map((edge) => edge.from)).size;
console.log(
  `module cycles: none among ${importing} importing families (${edges.size} edges, static, type and dynamic imports)` +
    (KNOWN_CYCLES.length > 0 ? `, besides the ${KNOWN_CYCLES.length} known one(s)` : ""),
);
console.log(
  `module roles: every file of src/modules has one (${ROLES.join(", ")}, or .d.ts)` +
    (Object.keys(pending).length > 0 ? `, besides the ${Object.keys(pending).length} pending rename(s)` : ""),
);
