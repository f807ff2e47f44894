/**
 * The functions an expression can call: pure methods of arrays and strings, and a few globals.
 * Each is written against Budget so its work is charged and its output size checked before it is
 * built. Array methods are re-implemented rather than delegated: native ones read `constructor`
 * (species) and call user callbacks without a step budget. String methods delegate to native code
 * once every argument has been converted to a primitive here.
 */
import type { Budget } from "./budget.js";
import { ExpressionError } from "./errors.js";
import {
  type Closure,
  chargeEquality,
  isPlainArray,
  joinArray,
  readIndex,
  runtimeError,
  toInteger,
  toNumber,
  toStr,
  truthy,
} from "./values.js";

/** What a method needs from the interpreter. */
export interface CallContext {
  readonly budget: Budget;
  /** Calls an arrow function argument. */
  invoke(fn: Closure, args: unknown[]): unknown;
  /** Source offset of the call, for errors. */
  readonly position: number;
}

export interface Method<Receiver> {
  /** Whether the first argument must be an arrow function (the only place one is accepted). */
  readonly callback?: boolean;
  run(call: CallContext, receiver: Receiver, args: unknown[]): unknown;
}

/**
 * Deepest nesting `flat` descends into. `flat(Infinity)` is a common idiom, so it is accepted, but
 * data nested deeper (or a cycle) is a `limit` error rather than a walk that never ends.
 */
export const MAX_FLAT_DEPTH = 32;

/** Index from a relative position argument, as slice/at/includes compute it. */
function relative(value: unknown, length: number, fallback: number, call: CallContext): number {
  if (value === undefined) return fallback;
  const n = toInteger(value, call.budget, call.position);
  if (n < 0) return Math.max(length + n, 0);
  return Math.min(n, length);
}

function callback(args: unknown[]): Closure {
  // The interpreter checks the callback position before running a method marked `callback`.
  return args[0] as Closure;
}

/** SameValueZero, as includes compares. */
function sameValueZero(a: unknown, b: unknown): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

function flatten(call: CallContext, array: readonly unknown[], depth: number, out: unknown[], level: number): void {
  if (level > MAX_FLAT_DEPTH) {
    throw new ExpressionError("limit", `flat would descend more than ${MAX_FLAT_DEPTH} levels`, call.position);
  }
  for (let i = 0; i < array.length; i++) {
    call.budget.step();
    const element = readIndex(array, i);
    if (depth > 0 && isPlainArray(element)) flatten(call, element, depth - 1, out, level + 1);
    else {
      out.push(element);
      call.budget.arrayLength(out.length, call.position);
    }
  }
}

type ArrayMethod = Method<readonly unknown[]>;

export const ARRAY_METHODS: ReadonlyMap<string, ArrayMethod> = new Map<string, ArrayMethod>([
  [
    "filter",
    {
      callback: true,
      run(call, array, args) {
        const out: unknown[] = [];
        for (let i = 0; i < array.length; i++) {
          const element = readIndex(array, i);
          if (truthy(call.invoke(callback(args), [element, i, array]))) {
            out.push(element);
            call.budget.arrayLength(out.length, call.position);
          }
        }
        return out;
      },
    },
  ],
  [
    "map",
    {
      callback: true,
      run(call, array, args) {
        call.budget.arrayLength(array.length, call.position);
        const out: unknown[] = [];
        for (let i = 0; i < array.length; i++) out.push(call.invoke(callback(args), [readIndex(array, i), i, array]));
        return out;
      },
    },
  ],
  [
    "some",
    {
      callback: true,
      run(call, array, args) {
        for (let i = 0; i < array.length; i++) if (truthy(call.invoke(callback(args), [readIndex(array, i), i, array]))) return true;
        return false;
      },
    },
  ],
  [
    "every",
    {
      callback: true,
      run(call, array, args) {
        for (let i = 0; i < array.length; i++) if (!truthy(call.invoke(callback(args), [readIndex(array, i), i, array]))) return false;
        return true;
      },
    },
  ],
  [
    "find",
    {
      callback: true,
      run(call, array, args) {
        for (let i = 0; i < array.length; i++) {
          const element = readIndex(array, i);
          if (truthy(call.invoke(callback(args), [element, i, array]))) return element;
        }
        return undefined;
      },
    },
  ],
  [
    "findIndex",
    {
      callback: true,
      run(call, array, args) {
        for (let i = 0; i < array.length; i++) if (truthy(call.invoke(callback(args), [readIndex(array, i), i, array]))) return i;
        return -1;
      },
    },
  ],
  [
    "reduce",
    {
      callback: true,
      run(call, array, args) {
        let i = 0;
        let accumulator: unknown;
        if (args.length >= 2) accumulator = args[1];
        else if (array.length === 0) throw runtimeError("reduce of an empty array needs an initial value", call.position);
        else accumulator = readIndex(array, i++);
        for (; i < array.length; i++) accumulator = call.invoke(callback(args), [accumulator, readIndex(array, i), i, array]);
        return accumulator;
      },
    },
  ],
  [
    "includes",
    {
      run(call, array, args) {
        for (let i = relative(args[1], array.length, 0, call); i < array.length; i++) {
          call.budget.step();
          const element = readIndex(array, i);
          chargeEquality(element, args[0], call.budget);
          if (sameValueZero(element, args[0])) return true;
        }
        return false;
      },
    },
  ],
  [
    "indexOf",
    {
      run(call, array, args) {
        for (let i = relative(args[1], array.length, 0, call); i < array.length; i++) {
          call.budget.step();
          const element = readIndex(array, i);
          chargeEquality(element, args[0], call.budget);
          if (element === args[0]) return i;
        }
        return -1;
      },
    },
  ],
  [
    "join",
    {
      run(call, array, args) {
        const separator = args[0] === undefined ? "," : toStr(args[0], call.budget, call.position);
        return joinArray(array, separator, call.budget, new Set(), call.position);
      },
    },
  ],
  [
    "slice",
    {
      run(call, array, args) {
        const start = relative(args[0], array.length, 0, call);
        const end = relative(args[1], array.length, array.length, call);
        const count = Math.max(end - start, 0);
        call.budget.arrayLength(count, call.position);
        call.budget.charge(count);
        const out: unknown[] = [];
        for (let i = start; i < end; i++) out.push(readIndex(array, i));
        return out;
      },
    },
  ],
  [
    "concat",
    {
      run(call, array, args) {
        // Only arrays are spread (JavaScript's Symbol.isConcatSpreadable does not exist here).
        const total = args.reduce<number>((sum, arg) => sum + (isPlainArray(arg) ? arg.length : 1), array.length);
        call.budget.arrayLength(total, call.position);
        call.budget.charge(total);
        const out: unknown[] = [];
        for (const part of [array, ...args]) {
          if (isPlainArray(part)) for (let i = 0; i < part.length; i++) out.push(readIndex(part, i));
          else out.push(part);
        }
        return out;
      },
    },
  ],
  [
    "at",
    {
      run(call, array, args) {
        const n = toInteger(args[0], call.budget, call.position);
        const index = n < 0 ? array.length + n : n;
        return index >= 0 && index < array.length ? readIndex(array, index) : undefined;
      },
    },
  ],
  [
    "flat",
    {
      run(call, array, args) {
        const depth = args[0] === undefined ? 1 : toInteger(args[0], call.budget, call.position);
        if (depth > MAX_FLAT_DEPTH && depth !== Number.POSITIVE_INFINITY) {
          throw runtimeError(`flat accepts a depth of at most ${MAX_FLAT_DEPTH} (or Infinity)`, call.position);
        }
        const out: unknown[] = [];
        flatten(call, array, depth, out, 0);
        return out;
      },
    },
  ],
]);

type StringMethod = Method<string>;

/** A string argument of a string method: converted here, never by native code, and charged. */
function text(call: CallContext, value: unknown): string {
  const s = toStr(value, call.budget, call.position);
  call.budget.chargeChars(s.length);
  return s;
}

/** An optional integer argument of a string method. */
function integer(call: CallContext, value: unknown, fallback: number): number {
  return value === undefined ? fallback : toInteger(value, call.budget, call.position);
}

/** The first-match replacement of String.prototype.replace with a string pattern, `$` patterns included. */
function replaceFirst(call: CallContext, subject: string, pattern: string, replacement: string): string {
  const at = subject.indexOf(pattern);
  if (at < 0) return subject;
  const before = subject.slice(0, at);
  const after = subject.slice(at + pattern.length);
  const pieces: string[] = [before];
  let length = before.length + after.length;
  const add = (piece: string) => {
    length += piece.length;
    // `$'` and `` $` `` copy the subject: check each time, so repeating them cannot build a huge string.
    call.budget.checkString(length, call.position);
    pieces.push(piece);
  };
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]!;
    const next = replacement[i + 1];
    if (c !== "$" || next === undefined) add(c);
    else if (next === "$") {
      add("$");
      i++;
    } else if (next === "&") {
      add(pattern);
      i++;
    } else if (next === "`") {
      add(before);
      i++;
    } else if (next === "'") {
      add(after);
      i++;
    } else add(c);
  }
  pieces.push(after);
  call.budget.newString(length, call.position);
  return pieces.join("");
}

/** Wraps a native string method whose result is never longer than its receiver. */
function shrinking(run: (call: CallContext, s: string, args: unknown[]) => unknown): StringMethod {
  return {
    run(call, s, args) {
      call.budget.chargeChars(s.length);
      return run(call, s, args);
    },
  };
}

export const STRING_METHODS: ReadonlyMap<string, StringMethod> = new Map<string, StringMethod>([
  ["includes", shrinking((call, s, args) => s.includes(text(call, args[0]), integer(call, args[1], 0)))],
  ["startsWith", shrinking((call, s, args) => s.startsWith(text(call, args[0]), integer(call, args[1], 0)))],
  ["endsWith", shrinking((call, s, args) => s.endsWith(text(call, args[0]), integer(call, args[1], s.length)))],
  ["indexOf", shrinking((call, s, args) => s.indexOf(text(call, args[0]), integer(call, args[1], 0)))],
  ["trim", shrinking((_call, s) => s.trim())],
  ["slice", shrinking((call, s, args) => s.slice(integer(call, args[0], 0), integer(call, args[1], s.length)))],
  ["at", shrinking((call, s, args) => s.at(integer(call, args[0], 0)))],
  ["toLowerCase", caseMapping((s) => s.toLowerCase())],
  ["toUpperCase", caseMapping((s) => s.toUpperCase())],
  [
    "split",
    {
      run(call, s, args) {
        call.budget.chargeChars(s.length);
        const limit = args[1] === undefined ? 2 ** 32 - 1 : toNumber(args[1], call.budget, call.position) >>> 0;
        if (args[0] === undefined) return limit === 0 ? [] : [s];
        const max = call.budget.limits.maxArrayLength;
        // Ask native split for one piece more than allowed: it stops there instead of building them all.
        const parts = s.split(text(call, args[0]), Math.min(limit, max + 1));
        call.budget.arrayLength(parts.length, call.position);
        call.budget.charge(parts.length);
        return parts;
      },
    },
  ],
  [
    "replace",
    {
      run(call, s, args) {
        call.budget.chargeChars(s.length);
        return replaceFirst(call, s, text(call, args[0]), text(call, args[1]));
      },
    },
  ],
  [
    "padStart",
    {
      run(call, s, args) {
        const target = integer(call, args[0], 0);
        if (target <= s.length) return s;
        const fill = args[1] === undefined ? " " : text(call, args[1]);
        if (fill === "") return s;
        call.budget.newString(target, call.position); // before padStart allocates it
        return s.padStart(target, fill);
      },
    },
  ],
]);

/** toLowerCase/toUpperCase can lengthen a string ("ß" → "SS"): check the input, then the output. */
function caseMapping(map: (s: string) => string): StringMethod {
  return {
    run(call, s) {
      call.budget.newString(s.length, call.position);
      const out = map(s);
      call.budget.checkString(out.length, call.position);
      return out;
    },
  };
}

type Builtin = (call: CallContext, args: unknown[]) => unknown;

function numbers(call: CallContext, args: unknown[]): number[] {
  call.budget.charge(args.length);
  return args.map((arg) => toNumber(arg, call.budget, call.position));
}

const unary =
  (fn: (n: number) => number): Builtin =>
  (call, args) =>
    fn(toNumber(args[0], call.budget, call.position));

/** The global functions an expression can call, by the name it calls them with. */
export const BUILTIN_CALLS: ReadonlyMap<string, Builtin> = new Map<string, Builtin>([
  ["Number", (call, args) => (args.length === 0 ? 0 : toNumber(args[0], call.budget, call.position))],
  ["String", (call, args) => (args.length === 0 ? "" : toStr(args[0], call.budget, call.position))],
  ["Boolean", (_call, args) => truthy(args[0])],
  // Folded pairwise: spreading thousands of arguments into a native call could overflow the stack.
  ["Math.min", (call, args) => numbers(call, args).reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY)],
  ["Math.max", (call, args) => numbers(call, args).reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY)],
  ["Math.abs", unary(Math.abs)],
  ["Math.floor", unary(Math.floor)],
  ["Math.ceil", unary(Math.ceil)],
  ["Math.round", unary(Math.round)],
  ["Array.isArray", (_call, args) => Array.isArray(args[0])],
]);
