import { describe, expect, it } from "vitest";
import { ExpressionError, evaluate, evaluateCondition, isDeterministic, parseExpression } from "./index.js";

/** Context of a custom merge rule (api-notes 5b). */
const mergeContext = () => ({
  changeRequest: { subject: "Fix typos", description: "", outdated: false, createdBy: { id: "alice" } },
  reviews: [
    { status: "approved", reviewer: { id: "bob" } },
    { status: "changes_requested", reviewer: { id: "carol" } },
    { status: "approved", reviewer: { id: "dave" } },
  ],
  actor: { id: "alice" },
});

/** Context of an adaptive-content condition or inline expression (api-notes 5c). */
const visitorContext = () => ({
  visitor: {
    claims: {
      plan: "enterprise",
      isBetaUser: true,
      flags: { ADAPTIVE_CONTENT: true },
      unsigned: { region: "eu", language: "fr" },
    },
  },
  space: { vars: { version: "2.4.1", product: "Quire" } },
  page: { vars: { audience: "admins" } },
});

function failure(run: () => unknown): ExpressionError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    return error as ExpressionError;
  }
  throw new Error("expected an ExpressionError, got a value");
}

const run = (source: string, context: Record<string, unknown> = {}) => evaluate(source, context);

describe("GitBook's documented examples", () => {
  it("custom merge rules", () => {
    const context = mergeContext();
    expect(evaluate('reviews.filter(r => r.status === "approved").length >= 2', context)).toBe(true);
    expect(evaluate('reviews.filter(r => r.status === "approved").length >= 3', context)).toBe(false);
    expect(evaluate("actor.id === changeRequest.createdBy.id", context)).toBe(true);
    expect(evaluate("actor.id === changeRequest.createdBy.id", { ...context, actor: { id: "bob" } })).toBe(false);
    expect(evaluate("!changeRequest.outdated && changeRequest.subject.length > 0", context)).toBe(true);
    expect(evaluate('reviews.every(r => r.reviewer.id !== actor.id) && changeRequest.description === ""', context)).toBe(true);
    expect(evaluate('reviews.some(({ reviewer: { id } }) => id === "carol")', context)).toBe(true);
  });

  it("visitor-claim conditions", () => {
    const context = visitorContext();
    expect(evaluateCondition('visitor.claims.plan === "enterprise" && visitor.claims.unsigned.region === "eu"', context)).toBe(true);
    expect(evaluateCondition("visitor.claims.isBetaUser == true", context)).toBe(true);
    expect(evaluateCondition('visitor.claims.unsigned.language === "fr"', context)).toBe(true);
    expect(evaluateCondition("visitor.claims.flags?.ADAPTIVE_CONTENT === true", context)).toBe(true);
    const noFlags = { visitor: { claims: { plan: "free", unsigned: {} } } };
    expect(evaluateCondition("visitor.claims.flags?.ADAPTIVE_CONTENT === true", noFlags)).toBe(false);
    expect(evaluateCondition('visitor.claims.plan === "enterprise" && visitor.claims.unsigned.region === "eu"', noFlags)).toBe(false);
  });

  it("inline expressions", () => {
    const context = visitorContext();
    expect(evaluate("space.vars.version", context)).toBe("2.4.1");
    expect(evaluate("`${space.vars.product} v${space.vars.version}`", context)).toBe("Quire v2.4.1");
    expect(evaluate('space.vars.version.split(".").map(part => Number(part))', context)).toEqual([2, 4, 1]);
    expect(evaluate("page.vars.audience.toUpperCase()", context)).toBe("ADMINS");
    expect(evaluate("space.vars.missing", context)).toBeUndefined();
  });
});

describe("operators", () => {
  it("follow JavaScript's precedence and associativity", () => {
    expect(run("1 + 2 * 3")).toBe(7);
    expect(run("(1 + 2) * 3")).toBe(9);
    expect(run("10 - 4 - 3")).toBe(3);
    expect(run("2 ** 3 ** 2")).toBe(512);
    expect(run("(-2) ** 2")).toBe(4);
    expect(run("1 + 2 < 4 === true")).toBe(true);
    expect(run("!a || b && c", { a: true, b: true, c: false })).toBe(false);
    expect(run("a ? b : c ? d : e", { a: false, b: 1, c: false, d: 2, e: 3 })).toBe(3);
    expect(run("1 | 2 ^ 3 & 4 << 1")).toBe(1 | (2 ^ (3 & (4 << 1))));
    expect(run("-7 >> 1 === -4 && -7 >>> 28 === 15")).toBe(true);
    expect(run("7 % 3 + ~5 + -'3' + +'4'")).toBe(1 - 6 - 3 + 4);
  });

  it("convert like JavaScript", () => {
    expect(run("'1' + 2")).toBe("12");
    expect(run("1 + true + null")).toBe(2);
    expect(run("[1, 2] + [3]")).toBe("1,23");
    expect(run("({}) + ''")).toBe("[object Object]");
    expect(run("1 == '1' && null == undefined && [1] == 1 && !(null == 0) && ({}) == '[object Object]'")).toBe(true);
    expect(run("1 === '1'")).toBe(false);
    expect(run("'b' > 'a' && '10' < '9' && 10 > 9 && [2] > 1")).toBe(true);
    expect(run("typeof a + typeof b + typeof c + typeof d + typeof missing", { a: 1, b: "", c: [], d: null })).toBe(
      "numberstringobjectobjectundefined",
    );
    expect(run("NaN === NaN || Infinity < 0")).toBe(false);
    expect(run("`${[1, [2, 3]]}|${null}|${undefined}|${{}}`")).toBe("1,2,3|null|undefined|[object Object]");
  });

  it("`in` tests own keys of plain objects only", () => {
    const context = { o: { a: 1, u: undefined } };
    expect(run("'a' in o && 'u' in o", context)).toBe(true);
    expect(run("'toString' in o || 'constructor' in o || '__proto__' in o || 'b' in o", context)).toBe(false);
    expect(failure(() => run("0 in arr", { arr: [1] })).code).toBe("runtime");
    expect(failure(() => run("'length' in 'abc'")).code).toBe("runtime");
  });

  it("short-circuit: the operand not needed is never evaluated", () => {
    // `missing.x` would be a runtime error if evaluated.
    expect(run("false && missing.x")).toBe(false);
    expect(run("0 || null || 'first truthy'")).toBe("first truthy");
    expect(run("'a' || missing.x")).toBe("a");
    expect(run("0 ?? missing.x")).toBe(0);
    expect(run("null ?? undefined ?? 'd'")).toBe("d");
    expect(run("true ? 1 : missing.x")).toBe(1);
    expect(run("false ? missing.x : 2")).toBe(2);
    expect(run("[].some(x => missing.x) || [].every(x => missing.x)")).toBe(true);
    expect(failure(() => run("true && missing.x")).code).toBe("runtime");
  });
});

describe("member access and optional chaining", () => {
  const context = { o: { a: { b: [10, 20, { c: "deep" }] } }, s: "héllo", n: null };

  it("reads own data of objects, elements and length of arrays and strings", () => {
    expect(run("o.a.b[2].c", context)).toBe("deep");
    expect(run("o['a']['b'][1]", context)).toBe(20);
    expect(run("o.a.b['1']", context)).toBe(20);
    expect(run("[o.a.b[5], o.a.b[-1], o.a.b[1.5], o.a.b['01']]", context)).toEqual([undefined, undefined, undefined, undefined]);
    expect(run("o.a.b.length + s.length", context)).toBe(8);
    expect(run("s[1] + s.at(-1)", context)).toBe("éo");
    expect(run("(5).x === undefined && true.y === undefined", context)).toBe(true);
  });

  it("fails on null or undefined, naming the property", () => {
    const error = failure(() => run("o.missing.deeper", context));
    expect(error.code).toBe("runtime");
    expect(error.message).toMatch(/Cannot read property "deeper" of undefined at position 10/);
    expect(failure(() => run("n.x", context)).message).toMatch(/of null/);
  });

  it("`?.` ends the whole chain with undefined on null or undefined", () => {
    expect(run("o.missing?.deeper.still.more", context)).toBeUndefined();
    expect(run("n?.[0]", context)).toBeUndefined();
    expect(run("o.a?.b?.[2]?.c", context)).toBe("deep");
    expect(run("o.missing?.map(x => x)", context)).toBeUndefined();
    expect(run("o.a.b.nothing?.()", context)).toBeUndefined();
    // Parentheses end the chain: `(x?.y).z` reads z of undefined.
    expect(failure(() => run("(o.missing?.deeper).more", context)).code).toBe("runtime");
  });

  it("identifiers are the context's own data and the callbacks' parameters, nothing else", () => {
    expect(run("x", { x: 1 })).toBe(1);
    expect(run("[globalThis, process, require, window, Object, Function, eval, JSON, Date, arguments]", {})).toEqual(
      Array(10).fill(undefined),
    );
    expect(run("inherited", Object.create({ inherited: 1 }) as Record<string, unknown>)).toBeUndefined();
    const withGetter = Object.defineProperty({}, "secret", { get: () => "ran", enumerable: true });
    expect(run("secret", withGetter)).toBeUndefined();
    expect(run("[1, 2].map(x => x + y)", { x: 100, y: 10 })).toEqual([11, 12]);
  });
});

describe("literals", () => {
  it("arrays and objects, with spread of arrays and plain objects", () => {
    expect(run("[1, 'a', true, null, undefined, [2]]")).toEqual([1, "a", true, null, undefined, [2]]);
    expect(run("[...a, ...[3]]", { a: [1, 2] })).toEqual([1, 2, 3]);
    expect(run("({ a, b: 2, 'c d': 3, [k + 1]: 4, 5: 5, ...o })", { a: 1, k: "x", o: { e: 6 } })).toEqual({
      a: 1,
      b: 2,
      "c d": 3,
      x1: 4,
      5: 5,
      e: 6,
    });
    expect(run("({ ...null, ...undefined, a: 1 })")).toEqual({ a: 1 });
    expect(failure(() => run("[...'abc']")).message).toMatch(/Only an array can be spread/);
    expect(failure(() => run("({ ...[1] })")).message).toMatch(/Only a plain object/);
    expect(failure(() => run("({ ...s })", { s: "abc" })).code).toBe("runtime");
  });

  it("template literals", () => {
    expect(run("`a${1 + 1}b${'c'}`")).toBe("a2bc");
    expect(run("`line\\n${x}\\u0041`", { x: "!" })).toBe("line\n!A");
    expect(run("``")).toBe("");
  });

  it("undefined, NaN and Infinity are constants", () => {
    expect(run("[undefined, NaN, Infinity, -Infinity]", { undefined: 1, NaN: 2, Infinity: 3 })).toEqual([
      undefined,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
    ]);
  });
});

describe("methods and built-ins", () => {
  const context = { xs: [3, 1, 2], words: ["b", "a"], s: "Hello, World", nested: [1, [2, [3, [4]]]] };

  it("array methods", () => {
    const cases: [string, unknown][] = [
      ["xs.filter((x, i) => x > 1 && i < 2)", [3]],
      ["xs.map((x, i, all) => x * all.length + i)", [9, 4, 8]],
      ["xs.some(x => x > 2) && !xs.every(x => x > 2)", true],
      ["xs.find(x => x < 3)", 1],
      ["xs.find(x => x > 9)", undefined],
      ["xs.findIndex(x => x === 2)", 2],
      ["xs.includes(2) && !xs.includes(2, 3) && [NaN].includes(NaN)", true],
      ["[xs.indexOf(1), xs.indexOf(9), [NaN].indexOf(NaN)]", [1, -1, -1]],
      ["xs.join() + '|' + words.join(' - ') + '|' + [null, undefined, [1, [2]]].join()", "3,1,2|b - a|,,1,2"],
      ["[xs.slice(1), xs.slice(-1), xs.slice(0, -1), xs.slice(5)]", [[1, 2], [2], [3, 1], []]],
      ["xs.concat([4, 5], 6, [[7]])", [3, 1, 2, 4, 5, 6, [7]]],
      ["[xs.at(0), xs.at(-1), xs.at(3)]", [3, 2, undefined]],
      ["xs.reduce((sum, x) => sum + x)", 6],
      ["xs.reduce((acc, x, i) => acc.concat([x * i]), [])", [0, 1, 4]],
      [
        "[nested.flat(), nested.flat(2), nested.flat(Infinity), nested.flat(0)]",
        [
          [1, 2, [3, [4]]],
          [1, 2, 3, [4]],
          [1, 2, 3, 4],
          [1, [2, [3, [4]]]],
        ],
      ],
      [
        "xs.map(x => xs.map(y => x * y))",
        [
          [9, 3, 6],
          [3, 1, 2],
          [6, 2, 4],
        ],
      ],
      ["xs.map(({ length = 'none' }) => length)", ["none", "none", "none"]],
    ];
    for (const [source, expected] of cases) expect(run(source, context), source).toEqual(expected);
    // Work is charged by what is added, not by the length so far: joining 2,000 items fits the budget.
    const many = Array.from({ length: 2_000 }, (_, i) => `item${i}`);
    expect(run("many.join(', ')", { many })).toBe(many.join(", "));
    expect(run("`${many}`.length", { many })).toBe(String(many).length);
    expect(failure(() => run("[].reduce((a, b) => a + b)")).code).toBe("runtime");
    expect(failure(() => run("xs.flat(33)", context)).code).toBe("runtime");
  });

  it("string methods", () => {
    const cases: [string, unknown][] = [
      ["s.includes('World') && s.startsWith('Hell') && s.endsWith('ld') && !s.startsWith('World', 0)", true],
      ["[s.toLowerCase(), s.toUpperCase(), '  x '.trim(), 'ß'.toUpperCase()]", ["hello, world", "HELLO, WORLD", "x", "SS"]],
      [
        "[s.split(', '), s.split(''), 'a,b,c'.split(',', 2), s.split(), ''.split('')]",
        [["Hello", "World"], [..."Hello, World"], ["a", "b"], ["Hello, World"], []],
      ],
      ["[s.slice(7), s.slice(-5, -1), s.indexOf('o'), s.indexOf('o', 5), s.at(-1)]", ["World", "Worl", 4, 8, "d"]],
      [
        "[s.replace('o', '0'), s.replace('x', 'y'), 'aXb'.replace('X', '[$&|$`|$\\'|$$|$1]')]",
        ["Hell0, World", "Hello, World", "a[X|a|b|$|$1]b"],
      ],
      ["['5'.padStart(3, '0'), 'abc'.padStart(2), 'a'.padStart(4), 'a'.padStart(5, 'xy')]", ["005", "abc", "   a", "xyxya"]],
      ["'1'.padStart(3, 0) + 'a'.replace('a', 1) + 'a1'.includes(1)", "001" + "1" + "true"],
    ];
    for (const [source, expected] of cases) expect(run(source, context), source).toEqual(expected);
  });

  it("global functions", () => {
    const cases: [string, unknown][] = [
      ["[Number('12'), Number(''), Number('x'), Number(true), Number([5]), Number()]", [12, 0, Number.NaN, 1, 5, 0]],
      ["[String(1), String(null), String([1, 2]), String({}), String()]", ["1", "null", "1,2", "[object Object]", ""]],
      ["[Boolean(''), Boolean('0'), Boolean([]), Boolean(0)]", [false, true, true, false]],
      ["[Math.min(3, 1, 2), Math.max(...xs), Math.min(), Math.max('7', [8])]", [1, 3, Number.POSITIVE_INFINITY, 8]],
      ["[Math.abs(-2), Math.floor(-1.5), Math.ceil(1.1), Math.round(2.5), Math.round(-2.5)]", [2, -2, 2, 3, -2]],
      ["[Array.isArray(xs), Array.isArray(s), Array.isArray()]", [true, false, false]],
    ];
    for (const [source, expected] of cases) expect(run(source, context), source).toEqual(expected);
    // Built-ins are called, never passed around.
    expect(failure(() => run("xs.map(String)", context)).message).toMatch(/String can only be called/);
  });

  it("calling anything else fails with 'is not a function you can call'", () => {
    const calls = [
      "xs.sort()",
      "xs.push(4)",
      "xs.reverse()",
      "s.repeat(3)",
      "s.toString()",
      "s.valueOf()",
      "s.charCodeAt(0)",
      "xs.toString()",
      "xs.length()",
      "o.f()",
      "f()",
      "(1)()",
      "Math.random()",
      "Math.pow(2, 3)",
      "Array(3)",
      "Array.from(xs)",
      "Number.isInteger(1)",
      "xs.map(x => x).foo()",
    ];
    for (const source of calls) {
      const error = failure(() => run(source, { ...context, o: { f: [1] }, f: 1 }));
      expect(error.code, source).toBe("runtime");
      expect(error.message, source).toMatch(/is not a function you can call/);
    }
    expect(failure(() => run("xs.map(1)", context)).message).toMatch(/needs an arrow function/);
    expect(failure(() => run("xs.includes(x => x)", context)).message).toMatch(/does not take a function as argument 1/);
    expect(failure(() => run("Math.max(x => x)", context)).message).toMatch(/does not take a function/);
  });
});

describe("evaluate results", () => {
  it("are copies: changing them never changes the context", () => {
    const context = mergeContext();
    const snapshot = structuredClone(context);
    const reviews = evaluate("reviews", context) as { status: string }[];
    reviews[0]!.status = "tampered";
    reviews.push({ status: "extra" });
    const approved = evaluate("reviews.filter(r => r.status === 'approved')", context) as { reviewer: { id: string } }[];
    approved[0]!.reviewer.id = "mallory";
    const wrapped = evaluate("({ cr: changeRequest, list: [actor] })", context) as { cr: { subject: string }; list: { id: string }[] };
    wrapped.cr.subject = "changed";
    wrapped.list[0]!.id = "changed";
    expect(context).toEqual(snapshot);
  });

  it("keep shared parts shared and cycles as cycles", () => {
    const shared = { v: 1 };
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const pair = evaluate("[a, a]", { a: shared }) as object[];
    expect(pair[0]).toBe(pair[1]);
    expect(pair[0]).not.toBe(shared);
    const copy = evaluate("c", { c: cyclic }) as Record<string, unknown>;
    expect(copy.self).toBe(copy);
    expect(copy).not.toBe(cyclic);
  });

  it("are deterministic", () => {
    const source = "reviews.map(r => `${r.reviewer.id}:${r.status}`).join(';') + Math.max(...reviews.map((r, i) => i))";
    const first = evaluate(source, mergeContext());
    for (let i = 0; i < 5; i++) expect(evaluate(source, mergeContext())).toEqual(first);
  });

  it("accept a parsed expression many times", () => {
    const parsed = parseExpression("x * 2");
    expect([1, 2, 3].map((x) => evaluate(parsed, { x }))).toEqual([2, 4, 6]);
  });
});

describe("evaluateCondition", () => {
  it("is JavaScript truthiness", () => {
    const truthy = ["1", "'0'", "[]", "({})", "-1", "'false'", "Infinity"];
    const falsy = ["0", "''", "null", "undefined", "NaN", "false", "-0"];
    for (const source of truthy) expect(evaluateCondition(source, {}), source).toBe(true);
    for (const source of falsy) expect(evaluateCondition(source, {}), source).toBe(false);
  });

  it("is false when a path is missing or anything else fails at runtime", () => {
    const context = { visitor: { claims: {} } };
    expect(evaluateCondition("visitor.claims.unsigned.region === 'eu'", context)).toBe(false);
    expect(evaluateCondition("!visitor.claims.unsigned.beta", context)).toBe(false);
    expect(evaluateCondition("visitor.claims.plan.startsWith('ent')", context)).toBe(false);
    expect(evaluateCondition("visitor.claims.roles.includes('admin')", context)).toBe(false);
    expect(evaluateCondition("visitor.claims.sort()", context)).toBe(false);
  });

  it("still throws for a broken expression or an exhausted limit", () => {
    expect(failure(() => evaluateCondition("visitor.claims.plan ===", {})).code).toBe("syntax");
    expect(failure(() => evaluateCondition("x = 1", {})).code).toBe("unsupported");
    expect(failure(() => evaluateCondition("xs.map(x => xs.map(y => 1))", { xs: Array(200).fill(0) })).code).toBe("limit");
  });
});

describe("isDeterministic", () => {
  const roots = ["space", "page"];
  const check = (source: string) => isDeterministic(parseExpression(source), roots);

  it("is true when only the given roots and built-ins are read", () => {
    expect(check("space.vars.version")).toBe(true);
    expect(check("space.vars.a === page.vars.b && Math.max(1, 2) > 0")).toBe(true);
    expect(check("`v${space.vars.version}`.toUpperCase()")).toBe(true);
    expect(check("1 + 2")).toBe(true);
    expect(check("undefined === NaN")).toBe(true);
    // Parameters shadow roots: `visitor` here is the callback's own parameter.
    expect(check("page.vars.list.some(visitor => visitor === 'x')")).toBe(true);
    expect(check("page.vars.list.map(({ a = space.vars.d }) => a)")).toBe(true);
  });

  it("is false when any other root is read, wherever it appears", () => {
    expect(check("visitor.claims.plan === 'pro'")).toBe(false);
    expect(check("space.vars.a || visitor.claims.b")).toBe(false);
    expect(check("space.vars.list.map(x => x + visitor.claims.n)")).toBe(false);
    expect(check("space.vars.list.map(({ a = visitor }) => a)")).toBe(false);
    expect(check("space.vars[visitor.claims.key]")).toBe(false);
    expect(check("({ [visitor.k]: 1 })")).toBe(false);
    expect(check("`${visitor}`")).toBe(false);
    expect(check("[...visitor.list]")).toBe(false);
    expect(check("unknownThing")).toBe(false);
    expect(check("space.vars.list.map(x => y)")).toBe(false);
  });

  it("accepts source text too", () => {
    expect(isDeterministic("space.vars.x", roots)).toBe(true);
    expect(isDeterministic("visitor", roots)).toBe(false);
  });
});
