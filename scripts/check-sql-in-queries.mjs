#!/usr/bin/env node
/**
 * Fails when SQL is written outside a `.queries.ts` file in the families (src/modules) or the
 * applications (src/apps): a Kysely query begun there (`selectFrom`, `insertInto`, `updateTable`,
 * `deleteFrom`, `replaceInto`, `mergeInto`) or a raw `sql` template. Queries files are where the
 * SQL of a family is read and reviewed (docs/architecture.md); the rest calls them. Tests are exempt.
 * Read with TypeScript's parser, so comments and strings do not count.
 *
 * Usage: node scripts/check-sql-in-queries.mjs [repository root]   (default: this repository)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";
import { repoRoot } from "./lib/module-graph.mjs";

const QUERY_STARTS = new Set(["selectFrom", "insertInto", "updateTable", "deleteFrom", "replaceInto", "mergeInto"]);

/** `file:line: what` for every SQL written in this source. */
export function sqlOutsideQueries(root = repoRoot) {
  const found = [];
  for (const area of ["modules", "apps"]) {
    const dir = join(root, "src", area);
    let entries;
    try {
      entries = readdirSync(dir, { recursive: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const name = String(entry);
      if (!name.endsWith(".ts") || name.endsWith(".test.ts") || name.endsWith(".d.ts") || name.endsWith(".queries.ts")) continue;
      const path = join(dir, name);
      const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
      const at = (node, what) => {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push(`${relative(root, path).split(sep).join("/")}:${line + 1}: ${what}`);
      };
      const visit = (node) => {
        if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && QUERY_STARTS.has(node.expression.name.text)) {
          at(node, `.${node.expression.name.text}(...)`);
        } else if (ts.isTaggedTemplateExpression(node) && node.tag.getText(source).replace(/<.*$/s, "") === "sql") {
          at(node, "sql`...`");
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = sqlOutsideQueries(process.argv[2]);
  for (const line of found) console.error(`SQL outside a .queries.ts file: ${line}`);
  if (found.length > 0) {
    console.error(
      `${found.length} place(s): move each query into the family's (or the application's) .queries.ts and call it (docs/architecture.md).`,
    );
    process.exit(1);
  }
  console.log("SQL: only in .queries.ts files (src/modules, src/apps)");
}
