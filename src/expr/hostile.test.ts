/**
 * Expressions written to escape, hang, exhaust memory or change the context. Each must end, quickly,
 * in a value or an ExpressionError with the expected code, and leave the context and the runtime's
 * prototypes exactly as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withCpuTime } from "../../test/helpers/cpu-time.js";
import {
  ExpressionError,
  type ExpressionErrorCode,
  evaluate,
  evaluateCondition,
  isDeterministic,
  ParsedExpression,
  parseExpression,
} from "./index.js";

// CPU time, so that other processes on a loaded machine cannot fail a case (test/helpers/cpu-time.ts).
const TIME_LIMIT_MS = 50;

type Outcome = { value: unknown } | { code: ExpressionErrorCode };

/** Runs `run` and returns its outcome; anything thrown but an ExpressionError fails the test. */
function outcome(run: () => unknown): Outcome & { error?: ExpressionError } {
  try {
    return { value: run() };
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw new Error(`threw a non-ExpressionError: ${String(error)}`, { cause: error });
    // A cause marks a failure of the evaluator itself (see `guarded`), which would be a bug.
    expect(error.cause, error.message).toBeUndefined();
    return { code: error.code, error };
  }
}

/** The outcome, checked to take under TIME_LIMIT_MS of CPU (re-run once, so one GC pause cannot fail it). */
function timed(run: () => unknown): Outcome {
  let { result, ms } = withCpuTime(() => outcome(run));
  if (ms > TIME_LIMIT_MS) {
    ({ result, ms } = withCpuTime(() => outcome(run)));
    expect(ms).toBeLessThan(TIME_LIMIT_MS);
  }
  return result;
}

function expectOutcome(source: string, expected: Outcome, context: Record<string, unknown>, options = {}) {
  const result = timed(() => evaluate(source, context, options));
  if ("code" in expected) expect("code" in result ? result.code : result, source).toBe(expected.code);
  else expect(result, source).toEqual(expected);
}

/** Wraps data in proxies that record any attempt to write, define, delete or re-prototype. */
function tripwire<T>(value: T, writes: string[], path = "context"): T {
  if (typeof value !== "object" || value === null) return value;
  const copy: object = Array.isArray(value)
    ? value.map((item, i) => tripwire(item, writes, `${path}[${i}]`))
    : Object.fromEntries(Object.entries(value).map(([key, item]) => [key, tripwire(item, writes, `${path}.${key}`)]));
  const deny = (operation: string) => () => {
    writes.push(`${operation} on ${path}`);
    return false;
  };
  return new Proxy(copy, {
    set: deny("set"),
    defineProperty: deny("defineProperty"),
    deleteProperty: deny("deleteProperty"),
    setPrototypeOf: deny("setPrototypeOf"),
    preventExtensions: deny("preventExtensions"),
  }) as T;
}

const hostileContext = () => ({
  x: { a: 1, list: [1, 2, 3], toString: "not a function", valueOf: 5, nested: { deep: true } },
  s: "text",
  xs: Array.from({ length: 100 }, (_, i) => i),
  big: Array.from({ length: 9_000 }, (_, i) => i),
  long: "y".repeat(90_000),
  long2: "y".repeat(90_000), // equal to `long`, but another string: comparing them reads every character
  visitor: { claims: { role: "reader" } },
});

// Every own property of the built-in prototypes and globals an escape would aim at.
const watched = [Object.prototype, Array.prototype, String.prototype, Function.prototype, Number.prototype, globalThis];
let before: string[][];
beforeAll(() => {
  before = watched.map((target) => Reflect.ownKeys(target).map(String).sort());
});
afterAll(() => {
  expect(watched.map((target) => Reflect.ownKeys(target).map(String).sort())).toEqual(before);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

describe("prototype and constructor escapes", () => {
  const cases: [string, Outcome][] = [
    ['constructor.constructor("return process")()', { code: "runtime" }],
    ['({}).constructor.constructor("return process")()', { code: "runtime" }],
    ["({}).__proto__", { value: undefined }],
    ["({}).__proto__.polluted", { code: "runtime" }],
    ["[].constructor", { value: undefined }],
    ['[].constructor("x")', { code: "runtime" }],
    ['"".constructor', { value: undefined }],
    ['"".constructor.fromCharCode(65)', { code: "runtime" }],
    ["(1).constructor", { value: undefined }],
    ['x["__proto__"]', { value: undefined }],
    ['x["__pro" + "to__"]', { value: undefined }],
    ['x[["__proto__"]]', { value: undefined }],
    ["x[`constructor`]", { value: undefined }],
    ["x.prototype", { value: undefined }],
    ["x.hasOwnProperty", { value: undefined }],
    ['x.hasOwnProperty("a")', { code: "runtime" }],
    ["x.toString()", { code: "runtime" }],
    ["x + 1", { value: "[object Object]1" }], // own `toString`/`valueOf` keys are data, never called
    ["x == 5", { value: false }],
    ["`${x}`", { value: "[object Object]" }],
    ["toString", { value: undefined }],
    ["toString.call(x)", { code: "runtime" }],
    ["valueOf()", { code: "runtime" }],
    ["[].map.constructor", { code: "runtime" }],
    ["[].map.call(x, v => v)", { code: "runtime" }],
    ["xs.map.apply", { code: "runtime" }],
    ['s.replace.call("a", "a", "b")', { code: "runtime" }],
    ["xs.map(v => v.constructor)", { value: Array(100).fill(undefined) }],
    ["xs.map(({ constructor }) => constructor).filter(c => c !== undefined).length", { value: 0 }],
    ["({ __proto__: x }).a", { value: undefined }],
    ["({ ['__proto__']: x }).a", { value: undefined }],
    ["({ ...x }).a", { value: 1 }],
    ["'constructor' in x || '__proto__' in x || 'toString' in {}", { value: false }],
    // Unicode escapes spell the same names and are blocked the same way.
    ["\\u0063onstructor", { value: undefined }],
    ["x.\\u0063onstructor", { value: undefined }],
    ["x.\\u{5f}_proto__", { value: undefined }],
    ['x["\\u0063onstructor"]', { value: undefined }],
    ['x["\\x5f_proto__"]', { value: undefined }],
    ['\\u0063onstructor.\\u0063onstructor("return this")()', { code: "runtime" }],
  ];
  for (const [source, expected] of cases) {
    it(source, () => expectOutcome(source, expected, hostileContext()));
  }
});

describe("blocked keys stay blocked when the context holds them as its own data", () => {
  // JSON.parse makes "__proto__" an own property, and claims can be named anything.
  const x = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"name": "C"}, "prototype": 1, "ok": 2}') as Record<string, unknown>;
  const context = () => ({ x, xs: [x], constructor: 1, __proto__: 2 });
  const cases: [string, Outcome][] = [
    ["x.__proto__", { value: undefined }],
    ["x.constructor", { value: undefined }],
    ['x["prototype"]', { value: undefined }],
    ["x.__proto__.polluted", { code: "runtime" }],
    ["x?.constructor?.name", { value: undefined }],
    ["constructor", { value: undefined }],
    ["xs.map(({ constructor, ok }) => [constructor, ok])", { value: [[undefined, 2]] }],
    ["'__proto__' in x || 'constructor' in x || 'prototype' in x", { value: false }],
    ["x", { value: { ok: 2 } }],
    ["({ ...x })", { value: { ok: 2 } }],
    ["[x][0]", { value: { ok: 2 } }],
  ];
  for (const [source, expected] of cases) {
    it(source, () => {
      const result = timed(() => evaluate(source, context()));
      expectOutcome(source, expected, context());
      // Not only equal: the blocked keys are not even present as own keys of a result.
      if ("value" in result && typeof result.value === "object" && result.value !== null && !Array.isArray(result.value)) {
        expect(Object.getOwnPropertyNames(result.value)).toEqual(["ok"]);
        expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
      }
    });
  }
});

describe("globals are absent", () => {
  const absent = [
    "globalThis",
    "global",
    "window",
    "self",
    "process",
    "require",
    "module",
    "exports",
    "Function",
    "eval",
    "Object",
    "Reflect",
    "Proxy",
    "Symbol",
    "JSON",
    "Date",
    "Promise",
    "setTimeout",
    "fetch",
    "Buffer",
    "arguments",
    "__dirname",
  ];
  it("every name outside the context reads as undefined", () => {
    for (const name of absent) expectOutcome(name, { value: undefined }, hostileContext());
  });
  const cases: [string, Outcome][] = [
    ["globalThis.process.exit(1)", { code: "runtime" }],
    ['process.mainModule.require("child_process")', { code: "runtime" }],
    ['require("fs").readFileSync("/etc/passwd")', { code: "runtime" }],
    ['Function("return this")()', { code: "runtime" }],
    ['eval("1")', { code: "runtime" }],
    ["Object.keys(x)", { code: "runtime" }],
    ["Reflect.ownKeys(x)", { code: "runtime" }],
    ["Date.now()", { code: "runtime" }],
    ["Math.random()", { code: "runtime" }],
    ["Math.constructor", { code: "runtime" }],
    ["Number.constructor", { code: "runtime" }],
    ["String.prototype", { code: "runtime" }],
    ["Array.prototype.map", { code: "runtime" }],
    ["typeof Math", { code: "runtime" }],
    ["xs.map(String)", { code: "runtime" }],
    ['import("fs")', { code: "unsupported" }],
    ["import.meta.url", { code: "unsupported" }],
    ["this", { code: "unsupported" }],
    ["new Function('return 1')", { code: "unsupported" }],
    ["async () => 1", { code: "unsupported" }],
    ["(function () { return this })()", { code: "unsupported" }],
    ["class { static x = process }", { code: "unsupported" }],
    ["String.raw`x`", { code: "unsupported" }],
    ["with (x) a", { code: "syntax" }],
    ["super.x", { code: "syntax" }],
    ["new.target", { code: "syntax" }],
    ["#x in x", { code: "syntax" }],
  ];
  for (const [source, expected] of cases) {
    it(source, () => expectOutcome(source, expected, hostileContext()));
  }
});

describe("the context is read-only", () => {
  const attempts = [
    "x.a = 2",
    "x.a++",
    "delete x.a",
    "x.__proto__ = {}",
    "x.list.push(4)",
    "x.list.sort()",
    "x.list.reverse()",
    "x.list.splice(0)",
    "x.list.fill(0)",
    "x.list.copyWithin(0, 1)",
    "x.list.shift()",
    "Object.assign(x, { a: 2 })",
    "Object.setPrototypeOf(x, null)",
    "xs.map(v => v.a = 1)",
    "xs.reduce((acc, v) => (acc.a = v, acc), x)",
    "xs.forEach(v => 1)",
    "({ __proto__: x, a: 2 })",
    "[...x.list, 4]",
    "x.list.concat([4])",
    "x.list.map(v => v * 2)",
    "({ ...x, a: 2 })",
    "x.nested",
    "xs.slice(0, 3)",
  ];

  it("no expression writes to it, even through a result", () => {
    const writes: string[] = [];
    const context = tripwire(hostileContext(), writes);
    const snapshot = JSON.stringify(hostileContext());
    for (const source of attempts) {
      const result = timed(() => evaluate(source, context));
      // Results are fresh copies: changing them must not reach the context either.
      if ("value" in result && typeof result.value === "object" && result.value !== null) {
        Object.assign(result.value, { a: "changed", 0: "changed" });
      }
    }
    expect(writes).toEqual([]);
    expect(JSON.stringify(context)).toBe(snapshot);
  });

  it("getters in the context are never run", () => {
    let ran = 0;
    const context = {
      get root() {
        ran++;
        return 1;
      },
      o: Object.defineProperty({}, "g", { enumerable: true, get: () => ran++ }),
      arr: Object.defineProperty([1, 2], 0, { enumerable: true, get: () => ran++ }),
    };
    for (const source of ["root", "o.g", "o", "arr[0]", "arr.map(v => v)", "arr.join()", "({ ...o })", "[...arr]", "o?.g ?? 1"]) {
      timed(() => evaluate(source, context));
    }
    expect(ran).toBe(0);
  });
});

describe("runaway work and memory", () => {
  const cases: [string, Outcome, object?][] = [
    ["[...Array(1e9)]", { code: "runtime" }],
    ['"a".padStart(1e9)', { code: "limit" }],
    ['"a".padStart(Infinity, "ab")', { code: "limit" }],
    ["long.padStart(100001)", { code: "limit" }],
    ["xs.map(a => xs.map(b => xs.map(c => xs.map(d => 1))))", { code: "limit" }],
    ["xs.map(a => xs.map(b => 1))", { code: "limit" }],
    ['xs.reduce(acc => acc + acc, "ab")', { code: "limit" }],
    ["xs.reduce(acc => acc.concat(acc), [1])", { code: "limit" }],
    ["xs.reduce(acc => [...acc, ...acc], [1])", { code: "limit" }],
    ["String(xs.reduce(acc => [acc, acc], 1))", { code: "limit" }],
    ["xs.reduce(acc => ({ ...acc, ...acc, [acc.k]: 1, k: acc.k + 'x' }), { k: 'a' })", { code: "limit" }],
    ["xs.reduce(acc => `${acc}${acc}`, 'x')", { code: "limit" }],
    ["xs.reduce(acc => acc.replace('x', '$`x$`'), 'ax')", { code: "limit" }],
    ["long.replace('y', '$\\'$\\'')", { code: "limit" }],
    ["long.split('')", { code: "limit" }],
    ["long.split('', 5)", { value: ["y", "y", "y", "y", "y"] }],
    ["[...big, ...big]", { code: "limit" }],
    ["big.concat(big)", { code: "limit" }],
    ["Math.max(...big, ...big)", { code: "limit" }],
    ["big.map(v => big.length)", { code: "limit" }],
    ["big.length + big.at(-1)", { value: 17_999 }],
    ["big.map(v => v).map(v => v)", { code: "limit" }],
    ["xs.map(() => long.toUpperCase()).length", { code: "limit" }],
    ["xs.map(() => long + long).length", { code: "limit" }],
    ["xs.some(() => long.includes('z'))", { code: "limit" }],
    ["xs.map(v => xs.join()).join().length", { code: "limit" }],
    ["[xs, xs, xs, xs, xs, xs, xs, xs, xs, xs].flat().map(a => xs.map(b => b))", { code: "limit" }],
    ["xs.map(() => +long)", { code: "limit" }],
    ["xs.map(() => long == 1)", { code: "limit" }],
    ["xs.map(() => long === long2)", { code: "limit" }],
    ["xs.map(() => long < long2)", { code: "limit" }],
    ["xs.filter(() => [long2].includes(long))", { code: "limit" }],
    ["xs.filter(() => [long2].indexOf(long))", { code: "limit" }],
    ["xs.map(() => 'y'.startsWith(long))", { code: "limit" }],
    ["xs.map(() => x[long])", { value: Array(100).fill(undefined) }],
    ["x.list.flat(Infinity)", { value: [1, 2, 3] }],
    ["xs.map(v => v)", { code: "limit" }, { maxSteps: 50 }],
    ["[1, 2, 3].map(v => v * 2)", { value: [2, 4, 6] }, { maxSteps: 50 }],
    ["'ab' + 'cd'", { code: "limit" }, { maxStringLength: 3 }],
    ["[1, 2].concat(3)", { code: "limit" }, { maxArrayLength: 2 }],
    ["({ a: 1, b: 2, c: 3 })", { code: "limit" }, { maxArrayLength: 2 }],
    ["xs.map(a => [a].map(b => [b].map(c => c)))", { code: "too_long" }, { maxDepth: 5 }],
  ];
  for (const [source, expected, options] of cases) {
    it(source, () => expectOutcome(source, expected, hostileContext(), options));
  }

  it("deep fan-out stops in time, and the depth limit also holds for trees parsed with a larger one", () => {
    // Nested maps over a 100-element array: 100^20 calls unless the budget stops it.
    const source = `${"xs.map(a => ".repeat(20)}1${")".repeat(20)}`;
    expectOutcome(source, { code: "limit" }, hostileContext());
    const parsed = parseExpression("xs.map(a => [a].map(b => [b].map(c => c)))");
    expect(timed(() => evaluate(parsed, hostileContext(), { maxDepth: 5 }))).toEqual(expect.objectContaining({ code: "limit" }));
  });

  it("deeply nested and very long sources are refused, in time, under the default limits", () => {
    expectOutcome(`${"(".repeat(10_000)}1${")".repeat(10_000)}`, { code: "too_long" }, {});
    const megabyte = `"${"x".repeat(1 << 20)}"`;
    expectOutcome(megabyte, { code: "too_long" }, {});
    expectOutcome(`1${" + 1".repeat(250_000)}`, { code: "too_long" }, {});
    expect(timed(() => isDeterministic(megabyte, ["space"]))).toEqual(expect.objectContaining({ code: "too_long" }));
    // The deepest nestings that fit in 1,024 characters.
    expectOutcome(`${"(".repeat(511)}1${")".repeat(511)}`, { value: 1 }, {});
    expectOutcome(`${"[".repeat(511)}${"]".repeat(511)}`, { code: "too_long" }, {});
    // What parses also evaluates: the parse and evaluation depth limits count the same levels.
    let nested: unknown = 1;
    for (let i = 0; i < 99; i++) nested = [nested];
    expectOutcome(`${"[".repeat(99)}1${"]".repeat(99)}`, { value: nested }, {});
    expectOutcome(`${"!".repeat(1023)}1`, { code: "too_long" }, {});
    expectOutcome(`${"a?b:".repeat(255)}c`, { code: "too_long" }, {});
    expectOutcome(`1${"**1".repeat(340)}`, { code: "too_long" }, {});
    expectOutcome(`${"x.map(a=>".repeat(100)}1${")".repeat(100)}`, { code: "too_long" }, {});
    expectOutcome(`1${"+1".repeat(511)}`, { value: 512 }, {});
  });

  it("with the length limit raised, deep nesting is still refused, by the depth limit or acorn's stack guard", () => {
    // Not timed: parsing 20,000 characters is the cost of the raised limit, not of the nesting.
    const raised = { maxLength: 1_000_000 };
    const cases = [
      `${"(".repeat(10_000)}1${")".repeat(10_000)}`,
      `${"[".repeat(5_000)}${"]".repeat(5_000)}`,
      `${"!".repeat(10_000)}1`,
      `${"a ? b : ".repeat(2_000)}c`,
    ];
    for (const source of cases) expect(outcome(() => evaluate(source, {}, raised))).toEqual(expect.objectContaining({ code: "too_long" }));
  });

  it("cyclic and very deep context data", () => {
    const cycle: unknown[] = [1];
    cycle.push(cycle);
    const loop: Record<string, unknown> = { name: "loop" };
    loop.self = loop;
    let deep: unknown = "bottom";
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const context = { cycle, loop, deep };
    expectOutcome("String(cycle)", { value: "1," }, context); // JavaScript's join gives "" for a cycle
    expectOutcome("cycle.flat(Infinity)", { code: "limit" }, context);
    expectOutcome("loop.self.self.self.self.name", { value: "loop" }, context);
    expectOutcome("deep", { code: "limit" }, context);
    expectOutcome("String(deep)", { code: "limit" }, context);
    expectOutcome("deep.flat(Infinity)", { code: "limit" }, context);
    expectOutcome("deep.length", { value: 1 }, context);
    // With the depth limit lifted, the native stack runs out first: still a clean `limit`.
    const unlimited = { maxDepth: 1_000_000, maxSteps: 1_000_000 };
    let deeper: unknown = 0;
    for (let i = 0; i < 200_000; i++) deeper = [deeper];
    const error = outcome(() => evaluate("String(deeper)", { deeper }, unlimited));
    expect(error).toEqual(expect.objectContaining({ code: "limit" }));
    expect(error.error?.message).toMatch(/stack/);
  });
});

describe("inputs that are not what the signature says", () => {
  it("a non-string expression is a syntax error", () => {
    for (const expr of [42, null, undefined, {}, { source: "1" }, [], () => 1, Object.create(ParsedExpression.prototype)]) {
      expect(outcome(() => evaluate(expr as never, {}))).toEqual(expect.objectContaining({ code: "syntax" }));
      expect(outcome(() => evaluateCondition(expr as never, {}))).toEqual(expect.objectContaining({ code: "syntax" }));
      expect(outcome(() => isDeterministic(expr as never, []))).toEqual(expect.objectContaining({ code: "syntax" }));
    }
    // A ParsedExpression built by hand has no checked tree.
    expect(outcome(() => evaluate(new ParsedExpression("1"), {}))).toEqual(expect.objectContaining({ code: "syntax" }));
  });

  it("values no JSON holds are opaque, and never converted by their own code", () => {
    let ran = 0;
    class Sneaky {
      toString() {
        ran++;
        return "x";
      }
      valueOf() {
        ran++;
        return 1;
      }
    }
    const context = { sneaky: new Sneaky(), fn: () => ran++, sym: Symbol("s"), big: 10n, date: new Date(0), map: new Map([["a", 1]]) };
    const cases: [string, Outcome][] = [
      ["sneaky + 1", { code: "runtime" }],
      ["`${sneaky}`", { code: "runtime" }],
      ["sneaky == 1", { code: "runtime" }],
      ["sneaky.toString()", { code: "runtime" }],
      ["sneaky.valueOf", { value: undefined }],
      ["fn()", { code: "runtime" }],
      ["fn.call()", { code: "runtime" }],
      ["fn.name", { value: undefined }],
      ["typeof fn", { value: "function" }],
      ["sym + ''", { code: "runtime" }],
      ["sym < 1", { code: "runtime" }],
      ["String(sym)", { code: "runtime" }],
      ["big + 1", { code: "runtime" }],
      ["big == 10", { value: true }],
      ["-big", { code: "runtime" }],
      ["date.getTime()", { code: "runtime" }],
      ["date + 1", { code: "runtime" }],
      ["map.get('a')", { code: "runtime" }],
      ["map.size", { value: undefined }],
      ["[sneaky, fn].length", { value: 2 }],
    ];
    for (const [source, expected] of cases) expectOutcome(source, expected, context);
    expect(ran).toBe(0);
    expect(parseExpression("fn").source).toBe("fn");
  });

  it("a context that is not an object, or a bad limit, is a programming error", () => {
    expect(() => evaluate("1", null as never)).toThrow(TypeError);
    expect(() => evaluate("1", {}, { maxSteps: -1 })).toThrow(RangeError);
    expect(() => evaluate("1", {}, { maxStringLength: Number.NaN })).toThrow(RangeError);
  });
});
