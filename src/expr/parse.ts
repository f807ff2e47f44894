/**
 * Parses one JavaScript expression with acorn and converts it into the evaluator's own tree
 * (ast.ts), refusing every construct the language leaves out. Everything that can be decided
 * without the context is decided here, so a stored rule fails when it is saved, not when it runs.
 */
import {
  type ArrowFunctionExpression,
  type Expression,
  type Options,
  type Pattern,
  parseExpressionAt,
  type SpreadElement,
  tokenizer,
  tokTypes,
} from "acorn";
import {
  type BinaryOperator,
  BUILTIN_FUNCTIONS,
  BUILTIN_NAMESPACES,
  type BuiltinName,
  type ExprNode,
  type Link,
  type PatternNode,
  type SpreadNode,
  type UnaryOperator,
} from "./ast.js";
import { ExpressionError } from "./errors.js";

export interface ParseOptions {
  /** Longest accepted source, in Unicode code points (the API's JSON Schema `maxLength` counts those). */
  maxLength?: number;
  /** Deepest accepted nesting of the syntax tree (chains and operator runs count as one level). */
  maxDepth?: number;
}

export const DEFAULT_MAX_LENGTH = 1024;
export const DEFAULT_MAX_DEPTH = 100;

/**
 * A parsed expression, safe to cache and evaluate many times. Its tree is kept out of reach (a
 * module-private WeakMap), so only trees this module built and checked can ever be evaluated.
 */
export class ParsedExpression {
  constructor(readonly source: string) {
    Object.freeze(this);
  }
}

const trees = new WeakMap<ParsedExpression, ExprNode>();

/** The checked tree of a ParsedExpression; undefined for an object parseExpression did not make. */
export function treeOf(expr: ParsedExpression): ExprNode | undefined {
  return trees.get(expr);
}

// Module code is strict: no `with`, no octal literals. `await x` parses (top-level await) so it can
// be refused by name rather than as a confusing syntax error.
const ACORN_OPTIONS: Options = { ecmaVersion: 2022, sourceType: "module", allowAwaitOutsideFunction: true };

/** Reserved names that are not functions: they read as constants and cannot be rebound. */
const CONSTANTS: ReadonlyMap<string, undefined | number> = new Map([
  ["undefined", undefined],
  ["NaN", Number.NaN],
  ["Infinity", Number.POSITIVE_INFINITY],
]);
const BUILTINS: ReadonlySet<string> = new Set([...BUILTIN_FUNCTIONS, ...BUILTIN_NAMESPACES]);

const BINARY_OPERATORS: ReadonlySet<string> = new Set<BinaryOperator>([
  "==",
  "!=",
  "===",
  "!==",
  "<",
  "<=",
  ">",
  ">=",
  "<<",
  ">>",
  ">>>",
  "+",
  "-",
  "*",
  "/",
  "%",
  "**",
  "|",
  "^",
  "&",
  "in",
]);
const UNARY_OPERATORS: ReadonlySet<string> = new Set<UnaryOperator>(["!", "-", "+", "~", "typeof"]);

/** Names of constructs outside the language, for the `unsupported` message. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  AssignmentExpression: "Assignment",
  UpdateExpression: "The update operators ++ and --",
  NewExpression: "`new`",
  ThisExpression: "`this`",
  Super: "`super`",
  AwaitExpression: "`await`",
  YieldExpression: "`yield`",
  SequenceExpression: "A comma-separated sequence of expressions",
  FunctionExpression: "A function expression",
  ClassExpression: "A class",
  TaggedTemplateExpression: "A tagged template",
  ImportExpression: "`import()`",
  MetaProperty: "`import.meta`/`new.target`",
  PrivateIdentifier: "A private name",
};

function unsupported(what: string, start: number): never {
  throw new ExpressionError("unsupported", `${what} is not supported`, start);
}

/** Whether `source` has more than `limit` code points; counts them only when its UTF-16 length cannot tell. */
function exceedsLength(source: string, limit: number): boolean {
  if (source.length <= limit) return false; // at most `length` code points
  if (source.length > 2 * limit) return true; // at least `length / 2` code points
  let points = 0;
  for (const _ of source) if (++points > limit) return true;
  return false;
}

/** Converts acorn's tree into ours, refusing what the language leaves out. */
class Converter {
  constructor(
    private readonly source: string,
    private readonly maxDepth: number,
  ) {}

  private enter(depth: number, start: number): number {
    if (depth >= this.maxDepth) {
      throw new ExpressionError("too_long", `Expression nests deeper than ${this.maxDepth} levels`, start);
    }
    return depth + 1;
  }

  expression(node: Expression | SpreadElement | { type: string; start: number }, depth: number): ExprNode {
    const inner = this.enter(depth, node.start);
    const n = node as Expression;
    switch (n.type) {
      case "Literal": {
        if (n.regex) unsupported("A regular expression literal", n.start); // no backtracking bounds
        if (n.bigint !== undefined) unsupported("A BigInt literal", n.start);
        const value = n.value;
        if (typeof value === "object" && value !== null) unsupported("This literal", n.start);
        return { type: "literal", value: value as string | number | boolean | null, start: n.start };
      }
      case "TemplateLiteral":
        return {
          type: "template",
          // `cooked` is only null for invalid escapes, which acorn allows in tagged templates alone.
          quasis: n.quasis.map((quasi) => quasi.value.cooked ?? ""),
          expressions: n.expressions.map((e) => this.expression(e, inner)),
          start: n.start,
        };
      case "Identifier":
        if (CONSTANTS.has(n.name)) return { type: "literal", value: CONSTANTS.get(n.name), start: n.start };
        if (BUILTINS.has(n.name)) return { type: "builtin", name: n.name as BuiltinName, start: n.start };
        return { type: "identifier", name: n.name, start: n.start };
      case "ArrayExpression":
        return {
          type: "array",
          elements: n.elements.map((element, index) => {
            if (element === null) unsupported("An array hole", this.holePosition(n.elements, index, n.start));
            return this.element(element, inner);
          }),
          start: n.start,
        };
      case "ObjectExpression":
        return {
          type: "object",
          properties: n.properties.map((property) => {
            if (property.type === "SpreadElement") return this.spread(property, inner);
            if (property.kind !== "init") unsupported(property.kind === "get" ? "A getter" : "A setter", property.start);
            if (property.method) unsupported("A method definition", property.start);
            return { key: this.propertyKey(property.key, property.computed, inner), value: this.expression(property.value, inner) };
          }),
          start: n.start,
        };
      case "UnaryExpression":
        if (!UNARY_OPERATORS.has(n.operator)) unsupported(`The \`${n.operator}\` operator`, n.start);
        return { type: "unary", operator: n.operator as UnaryOperator, argument: this.expression(n.argument, inner), start: n.start };
      case "BinaryExpression": {
        // Walk the left spine iteratively: `a + b + c + ...` must not recurse once per operand.
        const rest: { operator: BinaryOperator; operand: ExprNode; start: number }[] = [];
        let left: Expression | { type: string; start: number } = n;
        while (left.type === "BinaryExpression") {
          const b = left as Extract<Expression, { type: "BinaryExpression" }>;
          if (!BINARY_OPERATORS.has(b.operator)) unsupported(`The \`${b.operator}\` operator`, b.start);
          rest.push({ operator: b.operator as BinaryOperator, operand: this.expression(b.right, inner), start: b.start });
          left = b.left;
        }
        rest.reverse();
        return { type: "binary", first: this.expression(left, inner), rest, start: n.start };
      }
      case "LogicalExpression": {
        const rest: { operator: "&&" | "||" | "??"; operand: ExprNode }[] = [];
        let left: Expression = n;
        while (left.type === "LogicalExpression") {
          rest.push({ operator: left.operator, operand: this.expression(left.right, inner) });
          left = left.left;
        }
        rest.reverse();
        return { type: "logical", first: this.expression(left, inner), rest, start: n.start };
      }
      case "ConditionalExpression":
        return {
          type: "conditional",
          test: this.expression(n.test, inner),
          consequent: this.expression(n.consequent, inner),
          alternate: this.expression(n.alternate, inner),
          start: n.start,
        };
      case "ChainExpression":
        return this.chain(n.expression, inner);
      case "MemberExpression":
      case "CallExpression":
        return this.chain(n, inner);
      case "ArrowFunctionExpression":
        return unsupported("An arrow function outside a callback argument", n.start);
      default:
        return unsupported(UNSUPPORTED[n.type] ?? `\`${n.type}\``, n.start);
    }
  }

  /** acorn gives a hole no node: it is after the comma that follows the previous element. */
  private holePosition(elements: readonly ({ end: number } | null)[], index: number, arrayStart: number): number {
    const previous = elements[index - 1];
    let at = index === 0 ? arrayStart + 1 : previous ? this.source.indexOf(",", previous.end) + 1 : arrayStart + 1;
    while (/\s/.test(this.source[at] ?? "")) at++;
    return at;
  }

  private element(node: Expression | SpreadElement, depth: number): ExprNode | SpreadNode {
    return node.type === "SpreadElement" ? this.spread(node, depth) : this.expression(node, depth);
  }

  private spread(node: SpreadElement, depth: number): SpreadNode {
    return { type: "spread", argument: this.expression(node.argument, depth), start: node.start };
  }

  private propertyKey(key: Expression | { type: string; start: number }, computed: boolean, depth: number): string | ExprNode {
    if (computed) return this.expression(key, depth);
    const k = key as Expression;
    if (k.type === "Identifier") return k.name;
    if (k.type === "Literal" && (typeof k.value === "string" || typeof k.value === "number")) return String(k.value);
    return unsupported("This property key", k.start);
  }

  /**
   * Flattens `a.b[c](d)?.e` into a base and a list of links. The walk follows the object/callee
   * spine iteratively and stops at anything else, including a parenthesized `(a?.b)`, which acorn
   * gives as a ChainExpression and which ends its own optional chain.
   */
  private chain(node: Expression, depth: number): ExprNode {
    const links: Link[] = [];
    let current: Expression | { type: string; start: number } = node;
    for (;;) {
      if (current.type === "MemberExpression") {
        const m = current as Extract<Expression, { type: "MemberExpression" }>;
        if (m.object.type === "Super") unsupported("`super`", m.object.start);
        if (m.property.type === "PrivateIdentifier") unsupported("A private name", m.property.start);
        const key = m.computed ? this.expression(m.property, depth) : (m.property as { name: string }).name;
        links.push({ kind: "member", key, optional: m.optional, start: m.property.start });
        current = m.object;
      } else if (current.type === "CallExpression") {
        const c = current as Extract<Expression, { type: "CallExpression" }>;
        if (c.callee.type === "Super") unsupported("`super`", c.callee.start);
        links.push({
          kind: "call",
          args: c.arguments.map((arg) => this.argument(arg, depth)),
          optional: c.optional,
          callee: this.source.slice(c.callee.start, c.callee.end).slice(0, 80),
          start: c.start,
        });
        current = c.callee;
      } else break;
    }
    links.reverse();
    return { type: "chain", base: this.expression(current, depth), links, start: node.start };
  }

  /** A call argument: the one place an arrow function may appear. */
  private argument(node: Expression | SpreadElement, depth: number): ExprNode | SpreadNode {
    if (node.type !== "ArrowFunctionExpression") return this.element(node, depth);
    const inner = this.enter(depth, node.start);
    return this.arrow(node, inner);
  }

  private arrow(node: ArrowFunctionExpression, depth: number): ExprNode {
    if (node.async) unsupported("An async arrow function", node.start);
    if (node.body.type === "BlockStatement") unsupported("An arrow function with a block body", node.body.start);
    const params = node.params.map((param) => this.pattern(param, depth));
    return { type: "arrow", params, body: this.expression(node.body, depth), start: node.start };
  }

  private pattern(node: Pattern, depth: number): PatternNode {
    const inner = this.enter(depth, node.start);
    switch (node.type) {
      case "Identifier":
        if (CONSTANTS.has(node.name) || BUILTINS.has(node.name)) {
          unsupported(`\`${node.name}\` as a parameter name`, node.start);
        }
        return { type: "bind", name: node.name, start: node.start };
      case "AssignmentPattern":
        return { type: "default", target: this.pattern(node.left, inner), value: this.expression(node.right, inner), start: node.start };
      case "ObjectPattern":
        return {
          type: "object",
          properties: node.properties.map((property) => {
            if (property.type === "RestElement") unsupported("A rest element", property.start);
            if (property.computed) unsupported("A computed key in destructuring", property.key.start);
            const key = this.propertyKey(property.key, false, inner) as string;
            return { key, value: this.pattern(property.value, inner) };
          }),
          start: node.start,
        };
      case "ArrayPattern":
        return unsupported("Array destructuring", node.start);
      case "RestElement":
        return unsupported("A rest parameter", node.start);
      default:
        return unsupported("This parameter", node.start);
    }
  }
}

function syntaxError(error: unknown, offset = 0): ExpressionError {
  if (error instanceof SyntaxError) {
    const at = (error as SyntaxError & { pos?: number }).pos;
    // acorn prints "(line:column)" itself; we report the offset once, the same way for every error.
    const message = error.message.replace(/ \(\d+:\d+\)$/, "");
    if (message.startsWith("Not enough stack space")) {
      return new ExpressionError("too_long", "Expression nests too deeply to parse", at === undefined ? undefined : at + offset);
    }
    return new ExpressionError("syntax", message, at === undefined ? undefined : at + offset);
  }
  if (error instanceof RangeError) return new ExpressionError("too_long", "Expression nests too deeply to parse");
  return new ExpressionError("syntax", "Expression could not be parsed", undefined, { cause: error });
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  // A bad limit is a bug in the caller, not in the expression, so it is not an ExpressionError.
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

/** Parses one expression, or throws ExpressionError `syntax`, `too_long` or `unsupported`. */
export function parseExpression(source: string, options: ParseOptions = {}): ParsedExpression {
  if (typeof source !== "string") throw new ExpressionError("syntax", "An expression must be a string");
  const maxLength = positive(options.maxLength, DEFAULT_MAX_LENGTH, "maxLength");
  const maxDepth = positive(options.maxDepth, DEFAULT_MAX_DEPTH, "maxDepth");
  if (exceedsLength(source, maxLength)) {
    throw new ExpressionError("too_long", `Expression is longer than ${maxLength} characters`);
  }
  // parseExpressionAt stops after the first complete expression, and the node it returns leaves out
  // enclosing parentheses. The last token it consumed marks where the expression really ends; after
  // it only blanks and comments may follow, else `a; b` or `a b` would quietly evaluate as `a`.
  let end = 0;
  let node: Expression;
  try {
    node = parseExpressionAt(source, 0, { ...ACORN_OPTIONS, onToken: (token) => void (end = token.end) });
  } catch (error) {
    throw syntaxError(error);
  }
  try {
    const next = tokenizer(source.slice(end), ACORN_OPTIONS).getToken();
    if (next.type !== tokTypes.eof) {
      throw new ExpressionError("syntax", "Unexpected text after the expression", end + next.start);
    }
  } catch (error) {
    throw error instanceof ExpressionError ? error : syntaxError(error, end);
  }
  let tree: ExprNode;
  try {
    tree = new Converter(source, maxDepth).expression(node, 0);
  } catch (error) {
    if (error instanceof ExpressionError) throw error;
    // The converter's own depth check normally fires first; this is the backstop for a small stack.
    if (error instanceof RangeError) throw new ExpressionError("too_long", "Expression nests too deeply to parse");
    throw error;
  }
  const parsed = new ParsedExpression(source);
  trees.set(parsed, tree);
  return parsed;
}
