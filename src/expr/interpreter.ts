/**
 * The tree-walking interpreter. Every node costs a step and carries its depth, so any expression
 * ends within the budget; values are only read through values.ts, so nothing outside the context's
 * own data (prototypes, globals, getters) is ever reached, and nothing is ever written to it.
 */
import {
  type ArrayNode,
  type BinaryOperator,
  BUILTIN_FUNCTIONS,
  type CallLink,
  type ChainNode,
  type ExprNode,
  type ObjectNode,
  type PatternNode,
  type SpreadNode,
  type TemplateNode,
} from "./ast.js";
import type { Budget } from "./budget.js";
import { ARRAY_METHODS, BUILTIN_CALLS, type CallContext, type Method, STRING_METHODS } from "./methods.js";
import {
  BLOCKED_KEYS,
  Closure,
  getMember,
  isPlainArray,
  isPlainObject,
  looseEquals,
  ownData,
  quote,
  readIndex,
  runtimeError,
  type Scope,
  toNumber,
  toPrimitive,
  toStr,
  truthy,
} from "./values.js";

const FUNCTIONS: ReadonlySet<string> = new Set(BUILTIN_FUNCTIONS);

/** Defines an own data property, so a key such as `__proto__` can never act as the prototype setter. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

export class Interpreter {
  constructor(
    private readonly context: object,
    private readonly budget: Budget,
  ) {}

  evaluate(node: ExprNode, scope: Scope | undefined, depth: number): unknown {
    this.budget.step();
    this.budget.depth(depth, node.start);
    const inner = depth + 1;
    switch (node.type) {
      case "literal":
        return node.value;
      case "template":
        return this.template(node, scope, inner);
      case "identifier":
        return this.lookup(node.name, scope);
      case "builtin":
        throw runtimeError(
          FUNCTIONS.has(node.name)
            ? `${node.name} can only be called, as in ${node.name}(value)`
            : `${node.name} can only be used to call one of its functions, as in ${node.name === "Math" ? "Math.max(a, b)" : "Array.isArray(value)"}`,
          node.start,
        );
      case "array":
        return this.array(node, scope, inner);
      case "object":
        return this.object(node, scope, inner);
      case "unary": {
        const value = this.evaluate(node.argument, scope, inner);
        switch (node.operator) {
          case "!":
            return !truthy(value);
          case "typeof":
            return typeof value;
          case "-":
            return -toNumber(value, this.budget, node.start);
          case "+":
            return toNumber(value, this.budget, node.start);
          case "~":
            return ~toNumber(value, this.budget, node.start);
        }
        break;
      }
      case "binary": {
        let value = this.evaluate(node.first, scope, inner);
        for (const { operator, operand, start } of node.rest) {
          value = this.binary(operator, value, this.evaluate(operand, scope, inner), start);
        }
        return value;
      }
      case "logical": {
        let value = this.evaluate(node.first, scope, inner);
        for (const { operator, operand } of node.rest) {
          const decided = operator === "&&" ? !truthy(value) : operator === "||" ? truthy(value) : value !== null && value !== undefined;
          if (!decided) value = this.evaluate(operand, scope, inner);
        }
        return value;
      }
      case "conditional":
        return truthy(this.evaluate(node.test, scope, inner))
          ? this.evaluate(node.consequent, scope, inner)
          : this.evaluate(node.alternate, scope, inner);
      case "chain":
        return this.chain(node, scope, inner);
      case "arrow":
        return new Closure(node, scope, depth);
    }
    throw runtimeError("Unknown syntax", (node as { start?: number }).start);
  }

  /** Arrow parameters first, then the context's own data; nothing else is in scope. */
  private lookup(name: string, scope: Scope | undefined): unknown {
    for (let s = scope; s !== undefined; s = s.parent) if (s.names.has(name)) return s.names.get(name);
    return ownData(this.context, name).value;
  }

  private template(node: TemplateNode, scope: Scope | undefined, depth: number): string {
    let out = node.quasis[0] ?? "";
    node.expressions.forEach((expression, i) => {
      const part = toStr(this.evaluate(expression, scope, depth), this.budget, expression.start) + (node.quasis[i + 1] ?? "");
      this.budget.checkString(out.length + part.length, node.start);
      this.budget.chargeChars(part.length);
      out += part;
    });
    return out;
  }

  private spreadArray(node: SpreadNode, scope: Scope | undefined, depth: number): readonly unknown[] {
    const value = this.evaluate(node.argument, scope, depth);
    if (!isPlainArray(value)) throw runtimeError("Only an array can be spread here", node.start);
    this.budget.charge(value.length);
    return value;
  }

  private array(node: ArrayNode, scope: Scope | undefined, depth: number): unknown[] {
    const out: unknown[] = [];
    for (const element of node.elements) {
      if (element.type === "spread") {
        const values = this.spreadArray(element, scope, depth);
        this.budget.arrayLength(out.length + values.length, element.start);
        for (let i = 0; i < values.length; i++) out.push(readIndex(values, i));
      } else {
        out.push(this.evaluate(element, scope, depth));
        this.budget.arrayLength(out.length, node.start);
      }
    }
    return out;
  }

  private object(node: ObjectNode, scope: Scope | undefined, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let size = 0;
    const set = (key: string, value: unknown, position: number) => {
      // A blocked key could never be read back: leave it out rather than hand it to the caller.
      if (BLOCKED_KEYS.has(key)) return;
      if (!Object.hasOwn(out, key)) this.budget.arrayLength(++size, position);
      define(out, key, value);
    };
    for (const property of node.properties) {
      if ("type" in property) {
        const value = this.evaluate(property.argument, scope, depth);
        if (value === null || value === undefined) continue; // as in JavaScript
        if (!isPlainObject(value)) throw runtimeError("Only a plain object can be spread into an object", property.start);
        const keys = Object.keys(value);
        this.budget.charge(keys.length);
        for (const key of keys) {
          const own = ownData(value, key);
          if (own.found) set(key, own.value, property.start);
        }
      } else {
        const key = typeof property.key === "string" ? property.key : this.propertyKey(property.key, scope, depth);
        set(key, this.evaluate(property.value, scope, depth), node.start);
      }
    }
    return out;
  }

  private propertyKey(node: ExprNode, scope: Scope | undefined, depth: number): string {
    return toStr(this.evaluate(node, scope, depth), this.budget, node.start);
  }

  private binary(operator: BinaryOperator, a: unknown, b: unknown, position: number): unknown {
    const budget = this.budget;
    // Comparing, parsing or copying a string is native work proportional to its length.
    if (typeof a === "string") budget.chargeChars(a.length);
    if (typeof b === "string") budget.chargeChars(b.length);
    switch (operator) {
      case "===":
        return a === b;
      case "!==":
        return a !== b;
      case "==":
        return looseEquals(a, b, budget, position);
      case "!=":
        return !looseEquals(a, b, budget, position);
      case "+": {
        const pa = toPrimitive(a, budget, position);
        const pb = toPrimitive(b, budget, position);
        if (typeof pa === "string" || typeof pb === "string") {
          const sa = typeof pa === "string" ? pa : toStr(pa, budget, position);
          const sb = typeof pb === "string" ? pb : toStr(pb, budget, position);
          budget.newString(sa.length + sb.length, position);
          return sa + sb;
        }
        return toNumber(pa, budget, position) + toNumber(pb, budget, position);
      }
      case "<":
      case "<=":
      case ">":
      case ">=": {
        // Two non-symbol primitives: the native comparison runs no user code.
        const pa = toPrimitive(a, budget, position);
        const pb = toPrimitive(b, budget, position);
        const x = pa as number;
        const y = pb as number;
        return operator === "<" ? x < y : operator === "<=" ? x <= y : operator === ">" ? x > y : x >= y;
      }
      case "in": {
        if (!isPlainObject(b)) throw runtimeError("The right side of `in` must be a plain object", position);
        return ownData(b, toStr(a, budget, position)).found;
      }
    }
    const x = toNumber(a, budget, position);
    const y = toNumber(b, budget, position);
    switch (operator) {
      case "-":
        return x - y;
      case "*":
        return x * y;
      case "/":
        return x / y;
      case "%":
        return x % y;
      case "**":
        return x ** y;
      case "<<":
        return x << y;
      case ">>":
        return x >> y;
      case ">>>":
        return x >>> y;
      case "&":
        return x & y;
      case "|":
        return x | y;
      case "^":
        return x ^ y;
    }
  }

  /**
   * A member/call chain. A member link directly followed by a call is a method call, resolved by
   * the receiver's type from the whitelists in methods.ts; any other call fails. A `?.` link on a
   * null or undefined value ends the whole chain with undefined.
   */
  private chain(node: ChainNode, scope: Scope | undefined, depth: number): unknown {
    const links = node.links;
    let i = 0;
    let value: unknown;
    if (node.base.type === "builtin") {
      ({ value, next: i } = this.builtinCall(node, scope, depth));
    } else {
      value = this.evaluate(node.base, scope, depth);
    }
    for (; i < links.length; i++) {
      const link = links[i]!;
      this.budget.step();
      if (link.optional && (value === null || value === undefined)) return undefined;
      if (link.kind === "call") throw this.notCallable(link);
      const key = typeof link.key === "string" ? link.key : this.propertyKey(link.key, scope, depth);
      const call = links[i + 1];
      if (call?.kind !== "call") {
        value = getMember(value, key, link.start);
        continue;
      }
      i++;
      const method = this.method(value, key, link.start);
      if (method) {
        value = this.callMethod(method, value, call, scope, depth);
        continue;
      }
      if (call.optional && getMember(value, key, link.start) == null) return undefined;
      throw this.notCallable(call);
    }
    return value;
  }

  /** `Number(x)`, `Math.max(a, b)`...: the only way a built-in name may be used. */
  private builtinCall(node: ChainNode, scope: Scope | undefined, depth: number): { value: unknown; next: number } {
    const name = (node.base as { name: string }).name;
    const [first, second] = node.links;
    if (FUNCTIONS.has(name) && first?.kind === "call") {
      return { value: this.callBuiltin(name, first, scope, depth), next: 1 };
    }
    if (!FUNCTIONS.has(name) && first?.kind === "member" && second?.kind === "call") {
      const key = typeof first.key === "string" ? first.key : this.propertyKey(first.key, scope, depth);
      if (!BUILTIN_CALLS.has(`${name}.${key}`)) throw this.notCallable(second);
      return { value: this.callBuiltin(`${name}.${key}`, second, scope, depth), next: 2 };
    }
    // `Array(n)`, `Number.isInteger(n)`: a call, but not of a function the language provides.
    if (first?.kind === "call") throw this.notCallable(first);
    if (first?.kind === "member" && second?.kind === "call") throw this.notCallable(second);
    // `Math` or `Number` used as a value.
    return { value: this.evaluate(node.base, scope, depth), next: 0 };
  }

  private callBuiltin(name: string, call: CallLink, scope: Scope | undefined, depth: number): unknown {
    const args = this.arguments(call, scope, depth, false);
    return BUILTIN_CALLS.get(name)!(this.callContext(call.start), args);
  }

  private method(receiver: unknown, key: string, position: number): Method<never> | undefined {
    if (receiver === null || receiver === undefined) {
      throw runtimeError(`Cannot read property ${quote(key)} of ${String(receiver)}`, position);
    }
    if (typeof receiver === "string") return STRING_METHODS.get(key) as Method<never> | undefined;
    if (isPlainArray(receiver)) return ARRAY_METHODS.get(key) as Method<never> | undefined;
    return undefined;
  }

  private callMethod(method: Method<never>, receiver: unknown, call: CallLink, scope: Scope | undefined, depth: number): unknown {
    const args = this.arguments(call, scope, depth, method.callback === true);
    if (method.callback && !(args[0] instanceof Closure)) {
      throw runtimeError(`${call.callee} needs an arrow function as its first argument`, call.start);
    }
    return method.run(this.callContext(call.start), receiver as never, args);
  }

  /** Evaluated arguments; an arrow function is accepted only as the first one of a callback method. */
  private arguments(call: CallLink, scope: Scope | undefined, depth: number, callback: boolean): unknown[] {
    const args: unknown[] = [];
    call.args.forEach((arg, index) => {
      if (arg.type === "spread") {
        const values = this.spreadArray(arg, scope, depth);
        this.budget.arrayLength(args.length + values.length, arg.start);
        for (let i = 0; i < values.length; i++) args.push(readIndex(values, i));
        return;
      }
      if (arg.type === "arrow" && !(callback && index === 0)) {
        throw runtimeError(`${call.callee} does not take a function as argument ${index + 1}`, arg.start);
      }
      args.push(this.evaluate(arg, scope, depth));
    });
    return args;
  }

  private callContext(position: number): CallContext {
    return { budget: this.budget, position, invoke: (fn, args) => this.invoke(fn, args) };
  }

  private invoke(fn: Closure, args: unknown[]): unknown {
    this.budget.step();
    const names = new Map<string, unknown>();
    const scope: Scope = { names, parent: fn.scope };
    const depth = fn.depth + 1;
    fn.node.params.forEach((param, i) => {
      this.bind(param, args[i], names, scope, depth);
    });
    return this.evaluate(fn.node.body, scope, depth);
  }

  /** Binds a parameter; destructuring reads like member access (blocked keys read as undefined). */
  private bind(pattern: PatternNode, value: unknown, names: Map<string, unknown>, scope: Scope, depth: number): void {
    this.budget.depth(depth, pattern.start);
    switch (pattern.type) {
      case "bind":
        names.set(pattern.name, value);
        return;
      case "default":
        this.bind(pattern.target, value === undefined ? this.evaluate(pattern.value, scope, depth + 1) : value, names, scope, depth + 1);
        return;
      case "object":
        if (value === null || value === undefined) throw runtimeError(`Cannot destructure ${String(value)}`, pattern.start);
        for (const property of pattern.properties) {
          this.bind(property.value, getMember(value, property.key, pattern.start), names, scope, depth + 1);
        }
    }
  }

  private notCallable(call: CallLink) {
    return runtimeError(`${call.callee} is not a function you can call`, call.start);
  }
}
