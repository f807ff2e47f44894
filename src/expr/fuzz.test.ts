/**
 * Seeded fuzzing. Random token soups must always end, quickly, in a value or a clean ExpressionError.
 * Random well-formed expressions over the supported language must also agree with JavaScript itself:
 * the test (never the evaluator) runs them natively through `new Function` and compares.
 */
import { describe, expect, it } from "vitest";
import { withCpuTime } from "../../test/helpers/cpu-time.js";
import { ExpressionError, evaluate } from "./index.js";

// CPU time, so that other processes on a loaded machine cannot fail a case (test/helpers/cpu-time.ts).
const TIME_LIMIT_MS = 50;

/** mulberry32: a small seeded generator, so a failure can be replayed from its seed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}
type Random = ReturnType<typeof random>;

type Outcome = { value: unknown } | { error: ExpressionError };

function run(source: string, context: Record<string, unknown>): Outcome {
  const attempt = (): Outcome => {
    try {
      return { value: evaluate(source, context) };
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw new Error(`${source}: threw ${String(error)}`, { cause: error });
      // A cause marks a failure of the evaluator itself, never an expected refusal.
      if (error.cause !== undefined) throw new Error(`${source}: internal failure`, { cause: error.cause });
      return { error };
    }
  };
  let { result, ms } = withCpuTime(attempt);
  if (ms > TIME_LIMIT_MS) {
    // Once more before failing, so that a garbage collection is not taken for slowness.
    ({ result, ms } = withCpuTime(attempt));
    expect(ms, source).toBeLessThan(TIME_LIMIT_MS);
  }
  return result;
}

/** Results are plain data: no function, class instance or internal object ever leaks out. */
function expectPlainData(value: unknown, source: string, seen = new Set<unknown>()): void {
  if (typeof value !== "object" || value === null) {
    expect(typeof value, source).not.toBe("function");
    return;
  }
  if (seen.has(value)) return;
  seen.add(value);
  const proto: unknown = Object.getPrototypeOf(value);
  expect(proto === Object.prototype || proto === Array.prototype, source).toBe(true);
  for (const key of Object.keys(value)) expectPlainData((value as Record<string, unknown>)[key], source, seen);
}

const context = () => ({
  n: 3,
  m: -1.5,
  s: "Ab c",
  e: "",
  t: true,
  f: false,
  z: null,
  u: undefined,
  xs: [1, 2, 3],
  ys: ["b", "a", "c"],
  ws: [
    [1, 2],
    [3, [4]],
  ],
  o: { a: 1, b: "x", c: [1, { d: 2 }], n: null },
  visitor: { claims: { plan: "pro", unsigned: { region: "eu" } } },
});

const TOKENS = [
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ".",
  "?.",
  ",",
  ":",
  "?",
  "=>",
  "...",
  ";",
  "+",
  "-",
  "*",
  "/",
  "%",
  "**",
  "==",
  "===",
  "!=",
  "!==",
  "<",
  ">",
  "<=",
  ">=",
  "&&",
  "||",
  "??",
  "!",
  "~",
  "&",
  "|",
  "^",
  "<<",
  ">>>",
  "typeof",
  "in",
  "instanceof",
  "=",
  "+=",
  "++",
  "--",
  "new",
  "this",
  "function",
  "class",
  "delete",
  "void",
  "await",
  "yield",
  "import",
  "super",
  "async",
  "`",
  "${",
  "}`",
  "'a'",
  '"b"',
  "'$&'",
  "0",
  "1",
  "2",
  "1e9",
  "-1",
  "0.5",
  "1n",
  "NaN",
  "Infinity",
  "undefined",
  "null",
  "true",
  "false",
  "n",
  "s",
  "xs",
  "ys",
  "ws",
  "o",
  "z",
  "u",
  "p",
  "visitor",
  "claims",
  "constructor",
  "__proto__",
  "prototype",
  "toString",
  "valueOf",
  "call",
  "apply",
  "bind",
  "map",
  "filter",
  "reduce",
  "some",
  "every",
  "find",
  "flat",
  "padStart",
  "split",
  "join",
  "concat",
  "slice",
  "replace",
  "includes",
  "at",
  "length",
  "Math",
  "max",
  "min",
  "Number",
  "String",
  "Boolean",
  "Array",
  "isArray",
  "process",
  "globalThis",
  "require",
  "eval",
  "Function",
  "/a+/",
  "/(a+)+$/",
  "\\u0063onstructor",
  "#x",
  "//",
  "/*",
  "*/",
  "p =>",
  "(p, q) =>",
  "({ a }) =>",
];

describe("fuzz: random token sequences", () => {
  it("always end in a value or a clean ExpressionError, in time", () => {
    const rng = random(20_240_601);
    const codes = new Map<string, number>();
    for (let i = 0; i < 4_000; i++) {
      const count = 1 + rng.int(24);
      const source = Array.from({ length: count }, () => rng.pick(TOKENS)).join(rng.next() < 0.5 ? " " : "");
      const result = run(source, context());
      const key = "error" in result ? result.error.code : "value";
      codes.set(key, (codes.get(key) ?? 0) + 1);
      if ("value" in result) expectPlainData(result.value, source);
    }
    // The soup reaches every outcome, so the loop above checked each kind of ending.
    for (const code of ["value", "syntax", "unsupported", "runtime"]) expect(codes.get(code) ?? 0, code).toBeGreaterThan(10);
  });
});

/**
 * Random expressions in the supported language, typed just enough that methods are only called on
 * values that have them (calling a missing method is refused by design, so it cannot be compared).
 */
type Kind = "any" | "num" | "str" | "bool" | "arr" | "obj";

const LEAVES: Record<Exclude<Kind, "any">, string[]> = {
  num: ["0", "1", "2", "-1", "0.5", "3", "NaN", "Infinity", "n", "m", "xs.length", "s.length", "-0"],
  str: ["''", "'a'", "'Ab'", "' x '", "'1'", "'b'", "s", "e", "o.b", "'$&'", "'c'"],
  bool: ["true", "false", "t", "f"],
  arr: ["xs", "ys", "ws", "[]", "o.c", "[1, 'a', null]"],
  obj: ["o", "({})", "o.c[1]", "visitor.claims"],
};
const NULLISH = ["z", "u", "null", "undefined", "o.n", "o.missing"];
const KEYS = ["a", "b", "c", "d", "n", "length", "missing", "plan", "unsigned"];
const KEY_EXPRESSIONS = ["'a'", "'b'", "0", "1", "-1", "1.5", "'length'", "n", "'0'", "e"];
const REPLACEMENTS = ["'$&'", "'$$'", "'$`'", '"$\'"', "'$1'", "'[$&]'", "'-'", "''", "'$<n>'"];

class ExpressionGenerator {
  constructor(private readonly rng: Random) {}

  gen(kind: Kind, depth: number, params: string[]): string {
    const { rng } = this;
    if (depth <= 0 || rng.next() < 0.25) return this.leaf(kind, params);
    const d = depth - 1;
    const any = () => this.gen("any", d, params);
    const _num = () => this.gen("num", d, params);
    const str = () => this.gen("str", d, params);
    const arr = () => this.gen("arr", d, params);
    const obj = () => this.gen("obj", d, params);
    const small = () => rng.pick(["0", "1", "2", "5", "8", "-1", "'3'", "NaN", "undefined"]);
    const withParams = (names: string[], k: Kind = "any") => this.gen(k, d, [...params, ...names]);
    const choices: Record<Kind, (() => string)[]> = {
      num: [
        () => `(${any()}) ${rng.pick(["-", "*", "/", "%", "**", "|", "&", "^", "<<", ">>", ">>>"])} (${any()})`,
        () => `${rng.pick(["-", "+", "~"])}(${any()})`,
        () => `Number(${any()})`,
        () => `Math.${rng.pick(["max", "min"])}(${any()}, ${any()})`,
        () => `Math.${rng.pick(["max", "min"])}(...${arr()})`,
        () => `Math.${rng.pick(["abs", "floor", "ceil", "round"])}(${any()})`,
        () => `(${rng.pick([arr, str])()}).length`,
        () => `(${arr()}).indexOf(${any()}${rng.next() < 0.3 ? `, ${small()}` : ""})`,
        () => `(${arr()}).findIndex(p => ${withParams(["p"])})`,
        () => `(${str()}).indexOf(${str()}${rng.next() < 0.3 ? `, ${small()}` : ""})`,
      ],
      str: [
        () => `(${str()}).${rng.pick(["toUpperCase", "toLowerCase", "trim"])}()`,
        () => `(${str()}).slice(${small()}${rng.next() < 0.5 ? `, ${small()}` : ""})`,
        () => `(${str()}).padStart(${small()}${rng.next() < 0.5 ? `, ${str()}` : ""})`,
        () => `(${str()}).replace(${str()}, ${rng.next() < 0.5 ? rng.pick(REPLACEMENTS) : str()})`,
        () => `(${arr()}).join(${rng.next() < 0.7 ? str() : ""})`,
        () => `String(${any()})`,
        () => `\`${"${"}${any()}}-${"${"}${any()}}\``,
        () => `(${str()}) + (${any()})`,
        () => `typeof (${any()})`,
      ],
      bool: [
        () => `(${any()}) ${rng.pick(["==", "===", "!=", "!==", "<", "<=", ">", ">="])} (${any()})`,
        () => `!(${any()})`,
        () => `(${arr()}).includes(${any()}${rng.next() < 0.3 ? `, ${small()}` : ""})`,
        () => `(${arr()}).${rng.pick(["some", "every"])}((p, q) => ${withParams(["p", "q"])})`,
        () => `(${str()}).${rng.pick(["includes", "startsWith", "endsWith"])}(${str()}${rng.next() < 0.3 ? `, ${small()}` : ""})`,
        () => `Boolean(${any()})`,
        () => `Array.isArray(${any()})`,
        () => `(${rng.pick(KEY_EXPRESSIONS)}) in (${obj()})`,
      ],
      arr: [
        () => `[${any()}, ${any()}]`,
        () => `[...${arr()}, ${any()}]`,
        () => `(${arr()}).map((p, q) => ${withParams(["p", "q"])})`,
        () => `(${arr()}).filter(p => ${withParams(["p"])})`,
        () => `(${arr()}).slice(${small()}${rng.next() < 0.5 ? `, ${small()}` : ""})`,
        () => `(${arr()}).concat(${any()}${rng.next() < 0.5 ? `, ${any()}` : ""})`,
        () => `(${arr()}).flat(${rng.pick(["", "0", "1", "2", "Infinity", "-1", "'1'"])})`,
        () => `(${str()}).split(${rng.next() < 0.9 ? str() : "undefined"}${rng.next() < 0.5 ? `, ${small()}` : ""})`,
      ],
      obj: [
        () => `({ a: ${any()}, [${str()}]: ${any()} })`,
        () => `({ ...${obj()}, b: ${any()} })`,
        () => `({ ...${rng.pick(["null", "undefined", "o"])}, c: ${any()} })`,
      ],
      any: [
        () => `(${any()}) ? (${any()}) : (${any()})`,
        () => `(${any()}) ${rng.pick(["&&", "||", "??"])} (${any()})`,
        () => `(${any()}) + (${any()})`,
        () => `(${any()}).${rng.pick(KEYS)}`,
        () => `(${any()})?.${rng.pick(KEYS)}`,
        () => `(${any()})[${rng.pick(KEY_EXPRESSIONS)}]`,
        () => `(${any()})?.[${rng.pick(KEY_EXPRESSIONS)}]`,
        () => `(${arr()}).find(p => ${withParams(["p"])})`,
        () => `(${arr()}).at(${small()})`,
        () => `(${str()}).at(${small()})`,
        () => `(${arr()}).reduce((p, q) => ${withParams(["p", "q"])}${rng.next() < 0.7 ? `, ${any()}` : ""})`,
        () => `(${arr()}).map(({ a, b = ${any()} }) => ${withParams(["a", "b"])})`,
      ],
    };
    const k = kind === "any" ? rng.pick(["any", "any", "num", "str", "bool", "arr", "obj"] as const) : kind;
    return `(${rng.pick(choices[k])()})`;
  }

  private leaf(kind: Kind, params: string[]): string {
    const { rng } = this;
    if (kind !== "any") return rng.pick(LEAVES[kind]);
    if (params.length > 0 && rng.next() < 0.4) return rng.pick(params);
    const k = rng.pick(["num", "str", "bool", "arr", "obj", "nullish"] as const);
    return k === "nullish" ? rng.pick(NULLISH) : rng.pick(LEAVES[k]);
  }
}

describe("fuzz: random expressions against JavaScript itself", () => {
  it("agree with native evaluation: same value, or both fail", () => {
    const rng = random(7_919);
    const generator = new ExpressionGenerator(rng);
    const names = Object.keys(context());
    let values = 0;
    let failures = 0;
    for (let i = 0; i < 4_000; i++) {
      const source = generator.gen("any", 1 + rng.int(4), []);
      let expected: { value: unknown } | { thrown: unknown };
      try {
        // eslint-disable-next-line no-new-func -- the reference implementation, only in this test
        expected = { value: new Function(...names, `"use strict"; return (${source});`)(...Object.values(context())) };
      } catch (error) {
        expected = { thrown: error };
      }
      const actual = run(source, context());
      if ("thrown" in expected) {
        failures++;
        expect(expected.thrown, source).toBeInstanceOf(TypeError);
        expect("error" in actual ? actual.error.code : actual, source).toBe("runtime");
      } else {
        values++;
        if ("error" in actual)
          throw new Error(`${source}: JavaScript gives ${String(expected.value)}, the evaluator ${actual.error.message}`);
        expect(actual.value, source).toEqual(expected.value);
        expectPlainData(actual.value, source);
      }
    }
    // Both kinds of agreement were exercised.
    expect(values).toBeGreaterThan(1_000);
    expect(failures).toBeGreaterThan(50);
  });
});
