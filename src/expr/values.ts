/**
 * What an expression can see of a value, and JavaScript's conversions re-implemented for the values
 * it can see. Native conversion (`String(obj)`, `obj + 1`, `obj == 1`) looks up and calls
 * `toString`/`valueOf`, which a context object may hold as own keys (a claim named "toString"), so
 * objects never reach a native conversion: they are converted here, and native operators only ever
 * receive primitives.
 */
import type { ArrowNode } from "./ast.js";
import type { Budget } from "./budget.js";
import { ExpressionError } from "./errors.js";

/** Keys that lead to prototypes and constructors: never read, never written, whatever the object. */
export const BLOCKED_KEYS: ReadonlySet<string> = new Set(["__proto__", "prototype", "constructor"]);

export interface Scope {
  readonly names: ReadonlyMap<string, unknown>;
  readonly parent: Scope | undefined;
}

/**
 * An arrow function value. It exists only while the method it was passed to runs: parse.ts allows
 * arrows only as call arguments, and calls refuse them except as callbacks, so a Closure never ends
 * up inside an array, an object or a result.
 */
export class Closure {
  constructor(
    readonly node: ArrowNode,
    readonly scope: Scope | undefined,
    /** Evaluation depth of the arrow; its body runs one level deeper. */
    readonly depth: number,
  ) {}
}

export function isPlainArray(value: unknown): value is readonly unknown[] {
  return Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype;
}

/** An object literal or JSON object: its prototype is Object.prototype or null. */
export function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * An own, enumerable data property: never a getter (it would run the context's code), never an
 * inherited property, never a blocked key. `found` tells a missing key from an undefined value.
 */
export function ownData(target: object, key: string): { found: boolean; value: unknown } {
  if (BLOCKED_KEYS.has(key)) return { found: false, value: undefined };
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  if (descriptor === undefined || !descriptor.enumerable || !Object.hasOwn(descriptor, "value")) {
    return { found: false, value: undefined };
  }
  return { found: true, value: descriptor.value };
}

export function readOwn(target: object, key: string): unknown {
  return ownData(target, key).value;
}

/** An element of a plain array, read like any other own data property (holes read as undefined). */
export function readIndex(array: readonly unknown[], index: number): unknown {
  return readOwn(array, String(index));
}

const INDEX = /^(?:0|[1-9][0-9]{0,9})$/;

function arrayIndex(key: string, length: number): number | undefined {
  if (!INDEX.test(key)) return undefined;
  const index = Number(key);
  return index < length ? index : undefined;
}

/** Shortens user-controlled text quoted in an error message. */
export function quote(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

export function runtimeError(message: string, position?: number): ExpressionError {
  return new ExpressionError("runtime", message, position);
}

/**
 * `value[key]` as an expression sees it: `length` and indexes of strings and arrays, own data
 * properties of plain objects, and undefined for everything else (methods are resolved by calls).
 */
export function getMember(value: unknown, key: string, position?: number): unknown {
  if (value === null || value === undefined) {
    throw runtimeError(`Cannot read property ${quote(key)} of ${String(value)}`, position);
  }
  if (BLOCKED_KEYS.has(key)) return undefined;
  if (typeof value === "string") {
    if (key === "length") return value.length;
    const index = arrayIndex(key, value.length);
    return index === undefined ? undefined : value.charAt(index);
  }
  if (isPlainArray(value)) {
    if (key === "length") return value.length;
    const index = arrayIndex(key, value.length);
    return index === undefined ? undefined : readIndex(value, index);
  }
  if (isPlainObject(value)) return readOwn(value, key);
  return undefined;
}

type Primitive = string | number | boolean | null | undefined | bigint;

function cannotConvert(value: unknown, position?: number): ExpressionError {
  return runtimeError(`A ${typeof value === "symbol" ? "symbol" : "value of this kind"} cannot be converted`, position);
}

/** ToPrimitive for the values an expression can see: arrays join, plain objects are "[object Object]". */
export function toPrimitive(value: unknown, budget: Budget, position?: number): Primitive {
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
    case "undefined":
    case "bigint":
      return value;
    case "symbol":
      throw cannotConvert(value, position);
  }
  if (value === null) return null;
  if (isPlainArray(value)) return joinArray(value, ",", budget, new Set(), position);
  if (isPlainObject(value)) return "[object Object]";
  // Class instances and functions from the context would run their own valueOf/toString.
  throw cannotConvert(value, position);
}

export function toStr(value: unknown, budget: Budget, position?: number): string {
  if (typeof value === "string") return value;
  return String(toPrimitive(value, budget, position));
}

export function toNumber(value: unknown, budget: Budget, position?: number): number {
  if (typeof value === "number") return value;
  const primitive = toPrimitive(value, budget, position);
  if (typeof primitive === "string") budget.chargeChars(primitive.length); // parsing it
  // Number(1n) works but `+1n` throws; BigInt only comes from a context and is not worth a semantics.
  if (typeof primitive === "bigint") throw runtimeError("BigInt values cannot be used in arithmetic", position);
  return Number(primitive);
}

/** ToIntegerOrInfinity, for positions and lengths given to methods. */
export function toInteger(value: unknown, budget: Budget, position?: number): number {
  const number = toNumber(value, budget, position);
  return Number.isNaN(number) ? 0 : Math.trunc(number);
}

/** `array.join(separator)` over nested arrays, with JavaScript's "" for a cycle. */
export function joinArray(
  array: readonly unknown[],
  separator: string,
  budget: Budget,
  seen: Set<readonly unknown[]>,
  position?: number,
): string {
  if (seen.has(array)) return "";
  budget.depth(seen.size, position);
  seen.add(array);
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; i < array.length; i++) {
    budget.step();
    const element = readIndex(array, i);
    let part: string;
    if (element === null || element === undefined) part = "";
    else if (isPlainArray(element)) part = joinArray(element, ",", budget, seen, position);
    else part = toStr(element, budget, position);
    const added = part.length + (i > 0 ? separator.length : 0);
    length += added;
    budget.checkString(length, position);
    budget.chargeChars(added);
    parts.push(part);
  }
  seen.delete(array);
  return parts.join(separator);
}

/** Charges comparing two values: equal-length strings are compared character by character. */
export function chargeEquality(a: unknown, b: unknown, budget: Budget): void {
  if (typeof a === "string" && typeof b === "string" && a.length === b.length) budget.chargeChars(a.length);
}

/** `a == b`: natively for two primitives (no user code can run), after toPrimitive otherwise. */
export function looseEquals(a: unknown, b: unknown, budget: Budget, position?: number): boolean {
  const objectA = typeof a === "object" ? a !== null : typeof a === "function";
  const objectB = typeof b === "object" ? b !== null : typeof b === "function";
  if (objectA && objectB) return a === b;
  // biome-ignore lint/suspicious/noDoubleEquals: the expression language's == is JavaScript's loose equality, on purpose
  if (objectA) return b === null || b === undefined ? false : toPrimitive(a, budget, position) == b;
  // biome-ignore lint/suspicious/noDoubleEquals: the expression language's == is JavaScript's loose equality, on purpose
  if (objectB) return a === null || a === undefined ? false : a == toPrimitive(b, budget, position);
  // biome-ignore lint/suspicious/noDoubleEquals: the expression language's == is JavaScript's loose equality, on purpose
  return a == b;
}

/** Truthiness; native, since ToBoolean never calls user code. */
export function truthy(value: unknown): boolean {
  return Boolean(value);
}
