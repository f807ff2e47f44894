/**
 * Entry points: evaluate an expression against a context, or test it as a condition. The
 * expression only reads the context; its result is a fresh copy, so whoever holds the result can
 * change it without changing the context.
 */
import type { ExprNode } from "./ast.js";
import { Budget, type Limits, resolveLimits } from "./budget.js";
import { ExpressionError } from "./errors.js";
import { Interpreter } from "./interpreter.js";
import { ParsedExpression, type ParseOptions, parseExpression, treeOf } from "./parse.js";
import { BLOCKED_KEYS, isPlainArray, isPlainObject, ownData, readIndex, truthy } from "./values.js";

export interface EvaluateOptions extends Partial<Limits> {
  /** Only used when the expression is given as source text; see ParseOptions. */
  maxLength?: number;
}

function treeFor(expr: ParsedExpression | string, options: ParseOptions): ExprNode {
  const parsed = typeof expr === "string" ? parseExpression(expr, options) : expr;
  const tree = parsed instanceof ParsedExpression ? treeOf(parsed) : undefined;
  if (tree === undefined) throw new ExpressionError("syntax", "An expression must be a string or come from parseExpression");
  return tree;
}

/**
 * Runs `run`, turning a failure of the evaluator itself into an ExpressionError: a stack overflow
 * (a context nested deeper than the stack allows) is a `limit`; anything else would be a bug here,
 * and is reported as `runtime` with the original error as `cause` rather than escaping as a 500.
 */
function guarded<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ExpressionError) throw error;
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      throw new ExpressionError("limit", "Expression nests too deeply for the evaluator's stack");
    }
    throw new ExpressionError("runtime", "Expression evaluation failed unexpectedly", undefined, { cause: error });
  }
}

function run(expr: ParsedExpression | string, context: Record<string, unknown>, options: EvaluateOptions) {
  if (typeof context !== "object" || context === null) {
    // The context comes from our own code, not from the expression's author: a programming error.
    throw new TypeError("The context of an expression must be an object");
  }
  const limits = resolveLimits(options);
  const tree = treeFor(expr, { maxLength: options.maxLength, maxDepth: limits.maxDepth });
  const budget = new Budget(limits);
  return { budget, value: guarded(() => new Interpreter(context, budget).evaluate(tree, undefined, 0)) };
}

/**
 * A copy of a result made only of fresh arrays and plain objects (shared parts stay shared, cycles
 * stay cycles), charged to the same budget. Values that are neither primitives nor plain arrays or
 * objects can only come from the context (class instances, functions) and are returned as they are.
 */
function detach(value: unknown, budget: Budget, depth: number, copies: Map<object, unknown>): unknown {
  if (typeof value !== "object" || value === null) return value;
  const known = copies.get(value);
  if (known !== undefined) return known;
  budget.depth(depth);
  if (isPlainArray(value)) {
    const out: unknown[] = [];
    copies.set(value, out);
    budget.charge(value.length);
    for (let i = 0; i < value.length; i++) out.push(detach(readIndex(value, i), budget, depth + 1, copies));
    return out;
  }
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    copies.set(value, out);
    const keys = Object.keys(value);
    budget.charge(keys.length);
    for (const key of keys) {
      const own = ownData(value, key);
      if (!own.found || BLOCKED_KEYS.has(key)) continue;
      Object.defineProperty(out, key, {
        value: detach(own.value, budget, depth + 1, copies),
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/**
 * Evaluates one expression against `context`, whose own data properties are its variables.
 * Throws ExpressionError: the parse codes for source text, `runtime` or `limit` while running.
 */
export function evaluate(expr: ParsedExpression | string, context: Record<string, unknown>, options: EvaluateOptions = {}): unknown {
  const { budget, value } = run(expr, context, options);
  return guarded(() => detach(value, budget, 0, new Map()));
}

/**
 * The expression's truthiness. A runtime error, such as reading a property of a missing claim,
 * makes the condition false (GitBook: "a missing claim makes the condition false"). Parse errors
 * and exhausted limits still throw: they are faults of the expression, not of the visitor.
 */
export function evaluateCondition(
  expr: ParsedExpression | string,
  context: Record<string, unknown>,
  options: EvaluateOptions = {},
): boolean {
  try {
    return truthy(run(expr, context, options).value);
  } catch (error) {
    if (error instanceof ExpressionError && error.code === "runtime") return false;
    throw error;
  }
}
