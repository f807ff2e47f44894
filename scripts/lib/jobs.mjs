/**
 * The job kinds, read from the code with TypeScript's parser: the definitions src/app.ts lists in
 * `jobDefinitions` (each followed through its import to the `defineJob({ kind, maxAttempts, everyMs })`
 * that made it). Numbers may be written as expressions of literals and
 * constants (`60 * 60_000`, `MAX_ATTEMPTS`, an imported `REFRESH_SCAN_EVERY_MS`); anything else is
 * an error naming the file and line, so the table is never a guess.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { repoRoot } from "./module-graph.mjs";

/** The default of `maxAttempts` (src/jobs/registry.ts, src/jobs/queue.ts). */
export const DEFAULT_MAX_ATTEMPTS = 5;

class SourceFiles {
  constructor(root) {
    this.root = root;
    this.cache = new Map();
  }
  get(path) {
    let source = this.cache.get(path);
    if (!source) {
      source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
      this.cache.set(path, source);
    }
    return source;
  }
  where(node) {
    const source = node.getSourceFile();
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    return { file: relative(this.root, source.fileName).split(sep).join("/"), line: line + 1 };
  }
  fail(node, message) {
    const { file, line } = this.where(node);
    throw new Error(`${file}:${line}: ${message}`);
  }
}

/** The file a relative import of `fromFile` names (`./a.js` is `./a.ts`). */
function resolveImport(fromFile, specifier) {
  const base = resolve(dirname(fromFile), specifier);
  return [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")].find((candidate) => existsSync(candidate));
}

/** The top-level `const name = <initializer>` of a file, or undefined. */
function constDeclaration(source, name) {
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.name.text === name) return declaration;
    }
  }
  return undefined;
}

/** Where `name`, used in `source`, is declared: its declaration, following a named import. */
function declarationOf(files, source, name, node) {
  const local = constDeclaration(source, name);
  if (local) return local;
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !statement.importClause?.namedBindings) continue;
    const bindings = statement.importClause.namedBindings;
    if (!ts.isNamedImports(bindings)) continue;
    const binding = bindings.elements.find((element) => element.name.text === name);
    if (!binding) continue;
    const target = resolveImport(source.fileName, statement.moduleSpecifier.text);
    if (!target) files.fail(statement, `cannot find the module of ${name}`);
    return declarationOf(files, files.get(target), (binding.propertyName ?? binding.name).text, node);
  }
  return files.fail(node, `${name} is neither a constant of this file nor imported by name`);
}

/** The value of a numeric expression of literals, + - * / and constants. */
function evaluate(files, node) {
  if (ts.isNumericLiteral(node)) return Number(node.text.replaceAll("_", ""));
  if (ts.isParenthesizedExpression(node)) return evaluate(files, node.expression);
  if (ts.isBinaryExpression(node)) {
    const [a, b] = [evaluate(files, node.left), evaluate(files, node.right)];
    switch (node.operatorToken.kind) {
      case ts.SyntaxKind.AsteriskToken:
        return a * b;
      case ts.SyntaxKind.PlusToken:
        return a + b;
      case ts.SyntaxKind.MinusToken:
        return a - b;
      case ts.SyntaxKind.SlashToken:
        return a / b;
    }
  }
  if (ts.isIdentifier(node)) {
    const declaration = declarationOf(files, node.getSourceFile(), node.text, node);
    if (!declaration.initializer) files.fail(declaration, `${node.text} has no value`);
    return evaluate(files, declaration.initializer);
  }
  return files.fail(node, `cannot read the number ${node.getText()} (literals, + - * / and constants only)`);
}

function property(object, name) {
  return object.properties.find(
    (p) => ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === name,
  );
}

/** The array literal of `export const <name> ... = [...]` in src/app.ts. */
function appList(files, app, name) {
  const declaration = constDeclaration(app, name);
  let initializer = declaration?.initializer;
  while (initializer && (ts.isAsExpression(initializer) || ts.isSatisfiesExpression(initializer))) initializer = initializer.expression;
  if (!initializer || !ts.isArrayLiteralExpression(initializer)) files.fail(declaration ?? app, `src/app.ts has no array literal ${name}`);
  return initializer.elements;
}

/** Every `defineJob(...)` call in the non-test sources of src/. */
function defineJobCalls(files, root) {
  const calls = [];
  for (const entry of readdirSync(join(root, "src"), { recursive: true })) {
    const file = String(entry);
    if (!file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
    const path = join(root, "src", file);
    const text = readFileSync(path, "utf8");
    if (!text.includes("defineJob(")) continue;
    const visit = (node) => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "defineJob") calls.push(node);
      ts.forEachChild(node, visit);
    };
    visit(files.get(path));
  }
  return calls;
}

/**
 * The job kinds: `[{ kind, file, line, maxAttempts, everyMs }]` in the order of `jobDefinitions`,
 * everyMs undefined for a job that runs only when enqueued. Throws when a definition is not
 * `defineJob({ kind: "<literal>", ... })` in a *.jobs.ts file, when a job is defined but not listed
 * (it would never run).
 */
export function jobKinds(root = repoRoot) {
  const files = new SourceFiles(root);
  const app = files.get(join(root, "src", "app.ts"));
  const jobs = [];
  const listed = new Set();
  for (const element of appList(files, app, "jobDefinitions")) {
    if (!ts.isIdentifier(element)) files.fail(element, "jobDefinitions lists a definition by the name of its constant");
    const declaration = declarationOf(files, app, element.text, element);
    const call = declaration.initializer;
    if (
      !call ||
      !ts.isCallExpression(call) ||
      call.expression.getText() !== "defineJob" ||
      !ts.isObjectLiteralExpression(call.arguments[0])
    ) {
      files.fail(declaration, `${element.text} is not defineJob({ ... })`);
    }
    const definition = call.arguments[0];
    const kind = property(definition, "kind");
    if (!kind || !ts.isStringLiteral(kind.initializer)) files.fail(definition, `${element.text} has no literal kind`);
    const maxAttempts = property(definition, "maxAttempts");
    const everyMs = property(definition, "everyMs");
    const where = files.where(call);
    if (!where.file.endsWith(".jobs.ts"))
      files.fail(call, `job ${kind.initializer.text} is defined outside a *.jobs.ts file (docs/architecture.md)`);
    listed.add(call);
    jobs.push({
      kind: kind.initializer.text,
      ...where,
      maxAttempts: maxAttempts ? evaluate(files, maxAttempts.initializer) : DEFAULT_MAX_ATTEMPTS,
      everyMs: everyMs ? evaluate(files, everyMs.initializer) : undefined,
    });
  }
  for (const call of defineJobCalls(files, root)) {
    if (!listed.has(call)) files.fail(call, "this job is defined but not listed in jobDefinitions of src/app.ts: no worker would run it");
  }
  return jobs;
}
