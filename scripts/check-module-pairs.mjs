#!/usr/bin/env node
/**
 * Fails when the families of src/modules (src/modules/<a>, src/modules/<b>, ...) import each other
 * in a cycle, of two families or more, counting every non-test file of each and every kind of
 * import: static, type-only and dynamic `import()` (a lazily loaded module still ties the two
 * families together). The families form a graph with one direction per edge (see
 * docs/architecture.md). Prints each cycle and the files that make its edges.
 *
 * Usage: node scripts/check-module-pairs.mjs [repository root]   (default: this repository)
 */
import { elementaryCycles, moduleGraph } from "./lib/module-graph.mjs";

/**
 * Cycles that exist today and are to be removed by a refactor, written as the check prints them
 * ("a -> b -> a", starting from the smallest name). Each is tolerated until then; any other cycle
 * fails, and so does an entry here that no longer exists (remove it). None today.
 */
const KNOWN_CYCLES = [];

const root = process.argv[2];
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
if (fresh.length > 0 || gone.length > 0) process.exit(1);
const importing = new Set([...edges.values()].map((edge) => edge.from)).size;
console.log(
  `module cycles: none among ${importing} importing families (${edges.size} edges, static, type and dynamic imports)` +
    (KNOWN_CYCLES.length > 0 ? `, besides the ${KNOWN_CYCLES.length} known one(s)` : ""),
);
