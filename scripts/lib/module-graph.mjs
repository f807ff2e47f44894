/**
 * The import graph between families of src/modules, read from the code with TypeScript's parser
 * (so a specifier inside a string or a comment is not an import): static imports and re-exports,
 * type-only imports, and dynamic `import()` (a call, or `typeof import()` in a type). Test files
 * are left out: a test may reach into any family. Used by check-module-pairs.mjs and
 * architecture-doc.mjs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/** This repository's root (the default of every function taking `root`). */
export const repoRoot = resolve(new URL("../..", import.meta.url).pathname);

/** The families: the folders of <root>/src/modules, sorted. */
export function families(root = repoRoot) {
  return readdirSync(join(root, "src", "modules"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The family a path lies in (src/modules/<family>/...), or undefined. */
function familyOf(modulesRoot, path) {
  const rel = relative(modulesRoot, path);
  if (rel.startsWith("..") || rel === "") return undefined;
  return rel.split(sep)[0];
}

/**
 * Every import of a TypeScript source: `{ specifier, line, kind }`, kind "static" (import or
 * export ... from), "type" (import type, export type, typeof import()) or "dynamic" (import()).
 */
export function importsOf(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = [];
  const add = (node, specifierNode, kind) => {
    if (!specifierNode || !ts.isStringLiteralLike(specifierNode)) return;
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push({ specifier: specifierNode.text, line: line + 1, kind });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        clause?.isTypeOnly ||
        (clause &&
        !clause.name &&
        clause.namedBindings &&
        ts.isNamedImports(clause.namedBindings) &&
        clause.namedBindings.elements.length > 0
          ? clause.namedBindings.elements.every((element) => element.isTypeOnly)
          : false);
      add(node, node.moduleSpecifier, typeOnly ? "type" : "static");
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node, node.moduleSpecifier, node.isTypeOnly ? "type" : "static");
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, node.isTypeOnly ? "type" : "static");
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0], "dynamic");
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal, "type");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The edges between families: a Map from "from to" to `{ from, to, sites: [{ file, line, kind }] }`,
 * file relative to the repository. An edge's kind is the strongest of its sites: static, then
 * dynamic, then type.
 */
export function moduleGraph(root = repoRoot) {
  const modulesRoot = join(root, "src", "modules");
  const edges = new Map();
  for (const family of families(root)) {
    const dir = join(modulesRoot, family);
    for (const entry of readdirSync(dir, { recursive: true })) {
      const file = String(entry);
      if (!file.endsWith(".ts") || file.endsWith(".test.ts") || file.endsWith(".d.ts")) continue;
      const path = join(dir, file);
      for (const { specifier, line, kind } of importsOf(path, readFileSync(path, "utf8"))) {
        if (!specifier.startsWith(".")) continue;
        const other = familyOf(modulesRoot, resolve(dirname(path), specifier));
        if (!other || other === family) continue;
        const key = `${family} ${other}`;
        const edge = edges.get(key) ?? { from: family, to: other, sites: [] };
        edge.sites.push({ file: relative(root, path).split(sep).join("/"), line, kind });
        edges.set(key, edge);
      }
    }
  }
  return edges;
}

/** The kind of an edge: "static" when any site imports at load time, else "dynamic", else "type". */
export function edgeKind(edge) {
  const kinds = new Set(edge.sites.map((site) => site.kind));
  return kinds.has("static") ? "static" : kinds.has("dynamic") ? "dynamic" : "type";
}

/**
 * Every elementary cycle of the graph (Johnson's algorithm), each as its list of families starting
 * from its smallest name, e.g. ["a", "c", "b"] for a -> c -> b -> a. Sorted, so the output is stable.
 */
export function elementaryCycles(edges) {
  const nodes = [...new Set([...edges.values()].flatMap((edge) => [edge.from, edge.to]))].sort();
  const next = new Map(nodes.map((node) => [node, []]));
  for (const edge of edges.values()) next.get(edge.from).push(edge.to);
  for (const list of next.values()) list.sort();
  const cycles = [];
  // Johnson: for each start s (in order), the cycles through s in the subgraph of nodes >= s.
  for (let s = 0; s < nodes.length; s++) {
    const start = nodes[s];
    const allowed = new Set(nodes.slice(s));
    const blocked = new Set();
    const blockMap = new Map();
    const stack = [];
    const unblock = (node) => {
      blocked.delete(node);
      for (const other of blockMap.get(node) ?? []) if (blocked.has(other)) unblock(other);
      blockMap.set(node, new Set());
    };
    const circuit = (node) => {
      let closed = false;
      stack.push(node);
      blocked.add(node);
      for (const to of next.get(node)) {
        if (!allowed.has(to)) continue;
        if (to === start) {
          cycles.push([...stack]);
          closed = true;
        } else if (!blocked.has(to) && circuit(to)) {
          closed = true;
        }
      }
      if (closed) unblock(node);
      else for (const to of next.get(node)) if (allowed.has(to)) (blockMap.get(to) ?? blockMap.set(to, new Set()).get(to)).add(node);
      stack.pop();
      return closed;
    };
    circuit(start);
  }
  return cycles.map((cycle) => cycle.join(" -> ")).sort();
}
