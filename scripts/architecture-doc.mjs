#!/usr/bin/env node
/**
 * Writes the parts of docs/architecture.md that are read from the code, between their markers:
 * the imports between the families of src/modules (static, type-only and dynamic `import()`), and
 * the job kinds with their file, attempts and schedule. `--check` writes nothing and fails when the
 * document differs from the code (npm run lint runs it).
 *
 * Usage: node scripts/architecture-doc.mjs [--check] [repository root]   (default: this repository)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { jobKinds } from "./lib/jobs.mjs";
import { edgeKind, families, moduleGraph, repoRoot } from "./lib/module-graph.mjs";

const DOC = "docs/architecture.md";

/** The table of imports between families. */
export function moduleGraphSection(root = repoRoot) {
  const edges = moduleGraph(root);
  const lines = ["| family | imports (from its non-test files) |", "|---|---|"];
  for (const family of families(root)) {
    const out = [...edges.values()].filter((edge) => edge.from === family).sort((a, b) => a.to.localeCompare(b.to));
    const imports = out.map((edge) => {
      const kinds = new Set(edge.sites.map((site) => site.kind));
      const kind = edgeKind(edge);
      if (kind === "dynamic") return `\`${edge.to}\` (\`import()\` only)`;
      if (kind === "type") return `\`${edge.to}\` (types only)`;
      return kinds.has("dynamic") ? `\`${edge.to}\` (also \`import()\`)` : `\`${edge.to}\``;
    });
    lines.push(`| \`${family}\` | ${imports.length > 0 ? imports.join(", ") : "none"} |`);
  }
  return lines.join("\n");
}

function period(ms) {
  if (ms % 3_600_000 === 0) return `every ${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `every ${ms / 60_000} min`;
  return `every ${ms / 1000} s`;
}

/** The table of job kinds. */
export function jobsSection(root = repoRoot) {
  const lines = ["| kind | defined in | attempts | runs |", "|---|---|---|---|"];
  for (const job of jobKinds(root)) {
    const runs = job.everyMs === undefined ? "when enqueued" : `${period(job.everyMs)} (its \`everyMs\`)`;
    lines.push(`| \`${job.kind}\` | \`${job.file}\` | ${job.maxAttempts} | ${runs} |`);
  }
  return lines.join("\n");
}

/** `text` with the lines between `<!-- generated:<name> -->` and `<!-- end generated:<name> -->` replaced. */
export function replaceSection(text, name, content) {
  const start = `<!-- generated:${name} (node scripts/architecture-doc.mjs; do not edit by hand) -->`;
  const end = `<!-- end generated:${name} -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${DOC} lacks the markers of "${name}":\n${start}\n${end}`);
  return `${text.slice(0, from + start.length)}\n${content}\n${text.slice(to)}`;
}

export function generate(text, root = repoRoot) {
  return replaceSection(replaceSection(text, "module-graph", moduleGraphSection(root)), "jobs", jobsSection(root));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const root = process.argv.slice(2).find((arg) => !arg.startsWith("--")) ?? repoRoot;
  const path = join(root, DOC);
  const current = readFileSync(path, "utf8");
  const wanted = generate(current, root);
  if (process.argv.includes("--check")) {
    if (wanted !== current) {
      console.error(`${DOC} is out of date with the code (module imports or job kinds): run npm run docs, and commit it.`);
      process.exit(1);
    }
    console.log(`${DOC}: the module graph and the job kinds match the code`);
  } else if (wanted !== current) {
    writeFileSync(path, wanted);
    console.log(`${DOC} updated`);
  } else {
    console.log(`${DOC} already matches the code`);
  }
}
