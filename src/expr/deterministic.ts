/**
 * Whether an expression's value depends only on some context roots. Publishing uses it for
 * `evaluated=deterministic-only`: a condition reading only `space`/`page` can be evaluated once
 * when content is published, one reading `visitor` must wait for each request.
 */
import type { ExprNode, PatternNode } from "./ast.js";
import { ExpressionError } from "./errors.js";
import { ParsedExpression, parseExpression, treeOf } from "./parse.js";

/** Free identifiers of a tree: those not bound by an enclosing arrow function's parameters. */
function freeNames(node: ExprNode, bound: ReadonlySet<string>, out: Set<string>): void {
  const visit = (child: ExprNode) => freeNames(child, bound, out);
  switch (node.type) {
    case "literal":
    case "builtin":
      return;
    case "identifier":
      if (!bound.has(node.name)) out.add(node.name);
      return;
    case "template":
      node.expressions.forEach(visit);
      return;
    case "array":
      for (const element of node.elements) visit(element.type === "spread" ? element.argument : element);
      return;
    case "object":
      for (const property of node.properties) {
        if ("type" in property) visit(property.argument);
        else {
          if (typeof property.key !== "string") visit(property.key);
          visit(property.value);
        }
      }
      return;
    case "unary":
      visit(node.argument);
      return;
    case "binary":
    case "logical":
      visit(node.first);
      for (const { operand } of node.rest) visit(operand);
      return;
    case "conditional":
      visit(node.test);
      visit(node.consequent);
      visit(node.alternate);
      return;
    case "chain":
      visit(node.base);
      for (const link of node.links) {
        if (link.kind === "member") {
          if (typeof link.key !== "string") visit(link.key);
        } else for (const arg of link.args) visit(arg.type === "spread" ? arg.argument : arg);
      }
      return;
    case "arrow": {
      const inner = new Set(bound);
      // Default values run in the arrow's scope, so they see the parameters too.
      const defaults: ExprNode[] = [];
      const collect = (pattern: PatternNode): void => {
        if (pattern.type === "bind") inner.add(pattern.name);
        else if (pattern.type === "default") {
          defaults.push(pattern.value);
          collect(pattern.target);
        } else for (const property of pattern.properties) collect(property.value);
      };
      node.params.forEach(collect);
      for (const value of defaults) freeNames(value, inner, out);
      freeNames(node.body, inner, out);
    }
  }
}

/**
 * True when the expression reads no context root outside `deterministicRoots`. Built-ins count as
 * deterministic (none reads a clock or randomness); any other name, even one the context lacks,
 * counts as a root that is not in the list.
 */
export function isDeterministic(expr: ParsedExpression | string, deterministicRoots: readonly string[]): boolean {
  const parsed = typeof expr === "string" ? parseExpression(expr) : expr;
  const tree = parsed instanceof ParsedExpression ? treeOf(parsed) : undefined;
  if (tree === undefined) throw new ExpressionError("syntax", "An expression must be a string or come from parseExpression");
  const names = new Set<string>();
  freeNames(tree, new Set(), names);
  const allowed = new Set(deterministicRoots);
  for (const name of names) if (!allowed.has(name)) return false;
  return true;
}
