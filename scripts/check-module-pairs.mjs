#!/usr/bin/env node
/**
 * Fails when two sibling modules (src/modules/<a>, src/modules/<b>) import each other, counting
 * every non-test file of each: the families form a graph with one direction per pair (see
 * docs/architecture.md). Prints the pairs and the files that make each edge.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("../src/modules/", import.meta.url).pathname;
const edges = new Map(); // "a b" -> files of a that import b
for (const family of readdirSync(root)) {
  const dir = join(root, family);
  for (const file of readdirSync(dir, { recursive: true })) {
    if (!String(file).endsWith(".ts") || String(file).endsWith(".test.ts")) continue;
    const text = readFileSync(join(dir, String(file)), "utf8");
    for (const [, other] of text.matchAll(/from\s+"\.\.\/([a-z0-9-]+)\//g)) {
      if (other === family) continue;
      const key = `${family} ${other}`;
      edges.set(key, [...(edges.get(key) ?? []), `src/modules/${family}/${file}`]);
    }
  }
}
const pairs = [...edges.keys()].filter((key) => {
  const [a, b] = key.split(" ");
  return a < b && edges.has(`${b} ${a}`);
});
for (const key of pairs) {
  const [a, b] = key.split(" ");
  console.error(`modules ${a} and ${b} import each other:`);
  for (const file of new Set(edges.get(key))) console.error(`  ${file} -> ${b}`);
  for (const file of new Set(edges.get(`${b} ${a}`))) console.error(`  ${file} -> ${a}`);
}
if (pairs.length > 0) {
  console.error(`${pairs.length} pair(s) of sibling modules import each other; give each pair one direction (docs/architecture.md).`);
  process.exit(1);
}
console.log(
  `module pairs: none of ${new Set([...edges.keys()].map((k) => k.split(" ")[0])).size} importing families imports a family that imports it back`,
);
